// ===- ports/sim-device/sim_device.cc - A device behind DMA only ----------===
//
// The device's memory is a private region addressed by biased offsets. The
// host side of the TransferManager names device memory only by handle;
// to_device / from_device resolve the handle on the device side and copy with
// relayout, like a strided DMA engine. import_host always refuses, so every
// tensor crosses the bus, and execute is the only place a model gets device
// addresses.
#include <string.h>

#include "mote_sim_device.h"

namespace {

mote_sim_device *device_of(void *self) { return static_cast<mote_sim_device *>(self); }

// Device side: the address behind `buffer`, or null when the handle does not
// name `bytes` bytes of allocated device memory.
uint8_t *resolve(mote_sim_device *device, mote_device_buffer buffer, uint64_t bytes) {
  if (buffer.handle < MOTE_SIM_DEVICE_HANDLE_BIAS)
    return nullptr;
  uint64_t offset = buffer.handle - MOTE_SIM_DEVICE_HANDLE_BIAS;
  if (offset > device->used || bytes > buffer.size || buffer.size > device->used - offset)
    return nullptr;
  return device->memory + offset;
}

mote_status allocate(void *self, uint64_t size, uint32_t alignment,
                     mote_device_buffer *out_buffer) {
  mote_sim_device *device = device_of(self);
  if (!out_buffer || (alignment & (alignment - 1)))
    return MOTE_INVALID_ARGUMENT;
  if (alignment < device->alignment)
    alignment = device->alignment;
  // The base is aligned to device->alignment; larger alignments pad offsets
  // only up to that base alignment, so refuse what cannot be honoured.
  if (alignment > device->alignment &&
      (reinterpret_cast<uintptr_t>(device->memory) & (alignment - 1)))
    return MOTE_MISALIGNED;
  size_t offset = (device->used + alignment - 1) & ~static_cast<size_t>(alignment - 1);
  if (offset > device->size || size > device->size - offset)
    return MOTE_BUFFER_TOO_SMALL;
  device->used = offset + static_cast<size_t>(size);
  out_buffer->handle = MOTE_SIM_DEVICE_HANDLE_BIAS + offset;
  out_buffer->size = size;
  return MOTE_OK;
}

mote_status import_host(void *, const void *, uint64_t, mote_device_buffer *) {
  return MOTE_UNSUPPORTED; // the device cannot see host memory
}

mote_status to_device(void *self, const mote_tensor_info *tensor, const void *host,
                      mote_device_buffer dst) {
  mote_sim_device *device = device_of(self);
  if (!tensor || (!host && tensor->byte_size))
    return MOTE_INVALID_ARGUMENT;
  uint8_t *target = resolve(device, dst, tensor->byte_size);
  if (!target)
    return MOTE_DEVICE_ERROR;
  mote_status status = mote_relayout(host, nullptr, target, tensor->minor_to_major, tensor->rank,
                                     tensor->dims, mote_element_size(tensor->element_type));
  if (status == MOTE_OK) {
    device->bytes_to_device += tensor->byte_size;
    ++device->transfers_to_device;
  }
  return status;
}

mote_status from_device(void *self, const mote_tensor_info *tensor, mote_device_buffer src,
                        void *host) {
  mote_sim_device *device = device_of(self);
  if (!tensor || (!host && tensor->byte_size))
    return MOTE_INVALID_ARGUMENT;
  const uint8_t *source = resolve(device, src, tensor->byte_size);
  if (!source)
    return MOTE_DEVICE_ERROR;
  mote_status status = mote_relayout(source, tensor->minor_to_major, host, nullptr, tensor->rank,
                                     tensor->dims, mote_element_size(tensor->element_type));
  if (status == MOTE_OK) {
    device->bytes_from_device += tensor->byte_size;
    ++device->transfers_from_device;
  }
  return status;
}

// Device side: a buffer the model reads or writes, resolved to device memory
// (null only for an empty tensor).
mote_status resolve_tensor(mote_sim_device *device, mote_device_buffer buffer, uint64_t bytes,
                           void **out_address) {
  if (bytes == 0 && buffer.handle == 0) {
    *out_address = nullptr;
    return MOTE_OK;
  }
  *out_address = resolve(device, buffer, bytes);
  return *out_address ? MOTE_OK : MOTE_DEVICE_ERROR;
}

mote_status execute(void *self, const mote_model *model, const mote_device_buffer *args,
                    const mote_device_buffer *results, mote_device_buffer scratch,
                    const mote_env *env, void **address_table) {
  mote_sim_device *device = device_of(self);
  uint32_t arg_count = mote_model_arg_count(model);
  uint32_t result_count = mote_model_result_count(model);
  if ((arg_count && !args) || (result_count && !results) ||
      (arg_count + result_count && !address_table))
    return MOTE_INVALID_ARGUMENT;
  mote_tensor_info info;
  for (uint32_t i = 0; i < arg_count; ++i) {
    mote_status status = mote_model_arg_info(model, i, &info);
    if (status == MOTE_OK)
      status = resolve_tensor(device, args[i], info.byte_size, &address_table[i]);
    if (status != MOTE_OK)
      return status;
  }
  for (uint32_t i = 0; i < result_count; ++i) {
    mote_status status = mote_model_result_info(model, i, &info);
    if (status == MOTE_OK)
      status = resolve_tensor(device, results[i], info.byte_size, &address_table[arg_count + i]);
    if (status != MOTE_OK)
      return status;
  }
  uint64_t scratch_size = mote_model_scratch_size(model);
  void *scratch_address = nullptr;
  if (scratch_size) {
    scratch_address = resolve(device, scratch, scratch_size);
    if (!scratch_address)
      return MOTE_DEVICE_ERROR;
  }
  ++device->executions;
  return mote_model_run(model, address_table, address_table + arg_count, scratch_address,
                        static_cast<size_t>(scratch_size), env);
}

} // namespace

extern "C" mote_status mote_sim_device_init(mote_sim_device *device, void *device_memory,
                                            size_t size, uint32_t alignment,
                                            mote_transfer_manager *out_transfer) {
  if (!device || !device_memory || !out_transfer)
    return MOTE_INVALID_ARGUMENT;
  if (alignment == 0)
    alignment = 64;
  if (alignment & (alignment - 1))
    return MOTE_INVALID_ARGUMENT;
  if (reinterpret_cast<uintptr_t>(device_memory) & (alignment - 1))
    return MOTE_MISALIGNED;
  memset(device, 0, sizeof(*device));
  device->memory = static_cast<uint8_t *>(device_memory);
  device->size = size;
  device->alignment = alignment;
  out_transfer->self = device;
  out_transfer->alignment = alignment;
  out_transfer->allocate = allocate;
  out_transfer->import_host = import_host;
  out_transfer->to_device = to_device;
  out_transfer->from_device = from_device;
  out_transfer->execute = execute;
  return MOTE_OK;
}

extern "C" void mote_sim_device_reset(mote_sim_device *device) { device->used = 0; }
