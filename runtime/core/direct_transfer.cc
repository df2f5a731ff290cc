// ===- runtime/core/direct_transfer.cc - TransferManager for shared memory ===
//
// For ports where the model runs on the CPU that owns the host memory (Linux,
// Cortex-M, RISC-V): a device buffer is an address, "moving" a tensor is a
// memcpy or a relayout, and memory that is already right is used in place.
#include <string.h>

#include "mote/layout.h"
#include "mote/transfer.h"

namespace {

mote_direct_transfer *self_of(void *self) { return static_cast<mote_direct_transfer *>(self); }

void *address_of(mote_device_buffer buffer) { return reinterpret_cast<void *>(buffer.handle); }

mote_status allocate(void *self, uint64_t size, uint32_t alignment,
                     mote_device_buffer *out_buffer) {
  mote_direct_transfer *direct = self_of(self);
  if (!out_buffer || (alignment & (alignment - 1)))
    return MOTE_INVALID_ARGUMENT;
  if (size > SIZE_MAX)
    return MOTE_BUFFER_TOO_SMALL;
  if (alignment < direct->alignment)
    alignment = direct->alignment;
  void *memory;
  mote_status status =
      mote_arena_allocate(direct->arena, static_cast<size_t>(size), alignment, &memory);
  if (status != MOTE_OK)
    return status;
  out_buffer->handle = reinterpret_cast<uintptr_t>(memory);
  out_buffer->size = size;
  return MOTE_OK;
}

mote_status import_host(void *self, const void *host, uint64_t size,
                        mote_device_buffer *out_buffer) {
  mote_direct_transfer *direct = self_of(self);
  if (!out_buffer || (!host && size))
    return MOTE_INVALID_ARGUMENT;
  if (size > SIZE_MAX)
    return MOTE_BUFFER_TOO_SMALL;
  if (reinterpret_cast<uintptr_t>(host) & (direct->alignment - 1u))
    return MOTE_MISALIGNED;
  if (direct->is_reachable && !direct->is_reachable(direct->user, host, static_cast<size_t>(size)))
    return MOTE_UNSUPPORTED;
  out_buffer->handle = reinterpret_cast<uintptr_t>(host);
  out_buffer->size = size;
  return MOTE_OK;
}

// Copies between row-major host memory and a buffer in the compiled layout.
mote_status move(const mote_tensor_info *tensor, const void *src, const uint8_t *src_layout,
                 void *dst, const uint8_t *dst_layout, uint64_t dst_capacity) {
  if (tensor->byte_size > dst_capacity)
    return MOTE_BUFFER_TOO_SMALL;
  if (src == dst) // imported in place: nothing to move
    return MOTE_OK;
  return mote_relayout(src, src_layout, dst, dst_layout, tensor->rank, tensor->dims,
                       mote_element_size(tensor->element_type));
}

mote_status to_device(void *self, const mote_tensor_info *tensor, const void *host,
                      mote_device_buffer dst) {
  mote_direct_transfer *direct = self_of(self);
  if (!tensor)
    return MOTE_INVALID_ARGUMENT;
  void *device = address_of(dst);
  mote_status status = move(tensor, host, nullptr, device, tensor->minor_to_major, dst.size);
  if (status == MOTE_OK && direct->clean && tensor->byte_size)
    direct->clean(direct->user, device, static_cast<size_t>(tensor->byte_size));
  return status;
}

mote_status from_device(void *self, const mote_tensor_info *tensor, mote_device_buffer src,
                        void *host) {
  mote_direct_transfer *direct = self_of(self);
  if (!tensor)
    return MOTE_INVALID_ARGUMENT;
  if (tensor->byte_size > src.size)
    return MOTE_BUFFER_TOO_SMALL;
  const void *device = address_of(src);
  if (direct->invalidate && tensor->byte_size)
    direct->invalidate(direct->user, device, static_cast<size_t>(tensor->byte_size));
  return move(tensor, device, tensor->minor_to_major, host, nullptr, tensor->byte_size);
}

mote_status execute(void *self, const mote_model *model, const mote_device_buffer *args,
                    const mote_device_buffer *results, mote_device_buffer scratch,
                    const mote_env *env, void **address_table) {
  (void)self;
  uint32_t arg_count = mote_model_arg_count(model);
  uint32_t result_count = mote_model_result_count(model);
  if ((arg_count && !args) || (result_count && !results) ||
      (arg_count + result_count && !address_table))
    return MOTE_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < arg_count; ++i)
    address_table[i] = address_of(args[i]);
  for (uint32_t i = 0; i < result_count; ++i)
    address_table[arg_count + i] = address_of(results[i]);
  return mote_model_run(model, address_table, address_table + arg_count, address_of(scratch),
                        scratch.size > SIZE_MAX ? SIZE_MAX : static_cast<size_t>(scratch.size),
                        env);
}

} // namespace

extern "C" mote_status mote_direct_transfer_init(mote_direct_transfer *storage, mote_arena *arena,
                                                 uint32_t alignment,
                                                 mote_transfer_manager *out_transfer) {
  if (!storage || !arena || !out_transfer)
    return MOTE_INVALID_ARGUMENT;
  if (alignment == 0)
    alignment = 16;
  if (alignment & (alignment - 1))
    return MOTE_INVALID_ARGUMENT;
  memset(storage, 0, sizeof(*storage));
  storage->arena = arena;
  storage->alignment = alignment;
  out_transfer->self = storage;
  out_transfer->alignment = alignment;
  out_transfer->allocate = allocate;
  out_transfer->import_host = import_host;
  out_transfer->to_device = to_device;
  out_transfer->from_device = from_device;
  out_transfer->execute = execute;
  return MOTE_OK;
}
