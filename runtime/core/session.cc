// ===- runtime/core/session.cc - Bind host data, run, read results --------===
//
// The session decides, per argument and result, between using host memory in
// place and staging through a device buffer; the TransferManager does the
// moving. It takes memory only in init, so runs never fail for lack of it.
#include "mote/session.h"

#include <string.h>

#include "mote/layout.h"

namespace {

// Host memory can be used in place only when its bytes are already in the
// compiled order.
bool is_host_order(const mote_tensor_info &info) {
  return mote_layout_is_same_order(info.rank, info.dims, info.minor_to_major, nullptr);
}

// Points `slot` at `host` in place when the port allows it, else at the
// slot's own device buffer (allocated on first use, then reused).
mote_status bind(mote_session *session, const mote_tensor_info &info, mote_session_slot *slot,
                 const void *host) {
  const mote_transfer_manager *transfer = session->transfer;
  slot->flags = 0;
  if (info.byte_size == 0) {
    slot->bound.handle = 0;
    slot->bound.size = 0;
    slot->flags = MOTE_SLOT_BOUND;
    return MOTE_OK;
  }
  if (is_host_order(info) && transfer->import_host &&
      transfer->import_host(transfer->self, host, info.byte_size, &slot->bound) == MOTE_OK) {
    slot->flags = MOTE_SLOT_BOUND | MOTE_SLOT_ZERO_COPY;
    return MOTE_OK;
  }
  if (!slot->owned.handle) {
    mote_status status =
        transfer->allocate(transfer->self, info.byte_size, transfer->alignment, &slot->owned);
    if (status != MOTE_OK)
      return status;
  }
  slot->bound = slot->owned;
  slot->flags = MOTE_SLOT_BOUND;
  return MOTE_OK;
}

mote_status check_host(const mote_tensor_info &info, const void *host, size_t host_size) {
  if (!host && info.byte_size)
    return MOTE_INVALID_ARGUMENT;
  if (host_size < info.byte_size)
    return MOTE_BUFFER_TOO_SMALL;
  return MOTE_OK;
}

mote_status slot_buffer(const mote_session_slot *slots, uint32_t count, uint32_t index,
                        mote_device_buffer *out_buffer) {
  if (!slots || !out_buffer || index >= count)
    return MOTE_INVALID_ARGUMENT;
  *out_buffer = slots[index].bound;
  return MOTE_OK;
}

} // namespace

extern "C" size_t mote_session_table_size(const mote_model *model) {
  size_t count = static_cast<size_t>(mote_model_arg_count(model)) + mote_model_result_count(model);
  // Three tables, each aligned at most to 8 bytes (up to 7 bytes of padding).
  return count * (sizeof(mote_session_slot) + sizeof(mote_device_buffer) + sizeof(void *)) + 3 * 7;
}

extern "C" size_t mote_session_arena_size(const mote_model *model, size_t alignment) {
  if (!model || !model->desc)
    return 0;
  uint32_t args = mote_model_arg_count(model), results = mote_model_result_count(model);
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < args + results; ++i) {
    mote_tensor_info info;
    if ((i < args ? mote_model_arg_info(model, i, &info)
                  : mote_model_result_info(model, i - args, &info)) == MOTE_OK)
      bytes += info.byte_size;
  }
  return MOTE_SESSION_ARENA_BYTES(size_t(args) + results, bytes, mote_model_scratch_size(model),
                                  mote_model_scratch_alignment(model), alignment);
}

extern "C" mote_status mote_session_init(mote_session *out_session, const mote_model *model,
                                         const mote_transfer_manager *transfer, const mote_env *env,
                                         mote_arena *arena) {
  if (!out_session || !model || !model->desc || !model->entry || !transfer || !arena ||
      !transfer->allocate || !transfer->to_device || !transfer->from_device || !transfer->execute)
    return MOTE_INVALID_ARGUMENT;
  memset(out_session, 0, sizeof(*out_session));
  uint32_t args = mote_model_arg_count(model);
  uint32_t results = mote_model_result_count(model);
  size_t count = static_cast<size_t>(args) + results;
  void *slots = nullptr, *buffers = nullptr, *table = nullptr;
  mote_status status = mote_arena_allocate(arena, count * sizeof(mote_session_slot),
                                           alignof(mote_session_slot), &slots);
  if (status == MOTE_OK)
    status = mote_arena_allocate(arena, count * sizeof(mote_device_buffer),
                                 alignof(mote_device_buffer), &buffers);
  if (status == MOTE_OK)
    status = mote_arena_allocate(arena, count * sizeof(void *), alignof(void *), &table);
  if (status != MOTE_OK)
    return status;
  memset(slots, 0, count * sizeof(mote_session_slot));
  mote_device_buffer scratch = {0, 0};
  uint64_t scratch_size = mote_model_scratch_size(model);
  if (scratch_size) {
    status = transfer->allocate(transfer->self, scratch_size, mote_model_scratch_alignment(model),
                                &scratch);
    if (status != MOTE_OK)
      return status;
  }
  out_session->model = model;
  out_session->transfer = transfer;
  out_session->env = env;
  out_session->arena = arena;
  out_session->args = static_cast<mote_session_slot *>(slots);
  out_session->results = out_session->args + args;
  out_session->buffers = static_cast<mote_device_buffer *>(buffers);
  out_session->address_table = static_cast<void **>(table);
  out_session->scratch = scratch;
  return MOTE_OK;
}

extern "C" mote_status mote_session_set_input(mote_session *session, uint32_t index,
                                              const void *host, size_t host_size) {
  if (!session || !session->model)
    return MOTE_INVALID_ARGUMENT;
  mote_tensor_info info;
  mote_status status = mote_model_arg_info(session->model, index, &info);
  if (status == MOTE_OK)
    status = check_host(info, host, host_size);
  if (status != MOTE_OK)
    return status;
  mote_session_slot *slot = &session->args[index];
  status = bind(session, info, slot, host);
  if (status == MOTE_OK && info.byte_size)
    status = session->transfer->to_device(session->transfer->self, &info, host, slot->bound);
  if (status != MOTE_OK)
    slot->flags = 0;
  // Kept for a result updating this argument in place.
  slot->host = status == MOTE_OK ? const_cast<void *>(host) : nullptr;
  return status;
}

extern "C" mote_status mote_session_set_output_in_place(mote_session *session, uint32_t index) {
  if (!session || !session->model)
    return MOTE_INVALID_ARGUMENT;
  for (uint32_t i = 0, n = mote_model_alias_count(session->model); i < n; ++i) {
    uint32_t result, arg;
    int must;
    if (mote_model_alias(session->model, i, &result, &arg, &must) != MOTE_OK || result != index)
      continue;
    const mote_session_slot &input = session->args[arg];
    if (!(input.flags & MOTE_SLOT_BOUND))
      return MOTE_INVALID_ARGUMENT;
    // The argument's device buffer is the result's; the result goes back
    // to the argument's memory (nothing to copy when that is the buffer).
    mote_session_slot *slot = &session->results[index];
    slot->bound = input.bound;
    slot->host = input.host;
    slot->flags = input.flags;
    return MOTE_OK;
  }
  return MOTE_INVALID_ARGUMENT;
}

extern "C" uint32_t mote_session_alias_copies(const mote_session *session) {
  return session ? session->alias_copies : 0;
}

extern "C" mote_status mote_session_set_output(mote_session *session, uint32_t index, void *host,
                                               size_t host_size) {
  if (!session || !session->model)
    return MOTE_INVALID_ARGUMENT;
  mote_tensor_info info;
  mote_status status = mote_model_result_info(session->model, index, &info);
  if (status == MOTE_OK)
    status = check_host(info, host, host_size);
  if (status != MOTE_OK)
    return status;
  mote_session_slot *slot = &session->results[index];
  status = bind(session, info, slot, host);
  slot->host = status == MOTE_OK ? host : nullptr;
  return status;
}

extern "C" mote_status mote_session_run(mote_session *session) {
  if (!session || !session->model)
    return MOTE_INVALID_ARGUMENT;
  uint32_t args = mote_model_arg_count(session->model);
  uint32_t results = mote_model_result_count(session->model);
  for (uint32_t i = 0; i < args; ++i) {
    if (!(session->args[i].flags & MOTE_SLOT_BOUND))
      return MOTE_INVALID_ARGUMENT;
    session->buffers[i] = session->args[i].bound;
  }
  for (uint32_t i = 0; i < results; ++i) {
    if (!(session->results[i].flags & MOTE_SLOT_BOUND))
      return MOTE_INVALID_ARGUMENT;
    session->buffers[args + i] = session->results[i].bound;
  }
  session->alias_copies = 0;
  for (uint32_t i = 0, n = mote_model_alias_count(session->model); i < n; ++i) {
    uint32_t result, arg;
    int must;
    if (mote_model_alias(session->model, i, &result, &arg, &must) == MOTE_OK &&
        session->buffers[arg].handle != session->buffers[args + result].handle)
      ++session->alias_copies; // mote_model_run copies it
  }
  const mote_transfer_manager *transfer = session->transfer;
  mote_status status =
      transfer->execute(transfer->self, session->model, session->buffers, session->buffers + args,
                        session->scratch, session->env, session->address_table);
  for (uint32_t i = 0; status == MOTE_OK && i < results; ++i) {
    mote_tensor_info info;
    status = mote_model_result_info(session->model, i, &info);
    if (status == MOTE_OK && info.byte_size)
      status = transfer->from_device(transfer->self, &info, session->results[i].bound,
                                     session->results[i].host);
  }
  return status;
}

extern "C" mote_status mote_session_arg_buffer(const mote_session *session, uint32_t index,
                                               mote_device_buffer *out_buffer) {
  return slot_buffer(session ? session->args : nullptr,
                     session ? mote_model_arg_count(session->model) : 0, index, out_buffer);
}

extern "C" mote_status mote_session_result_buffer(const mote_session *session, uint32_t index,
                                                  mote_device_buffer *out_buffer) {
  return slot_buffer(session ? session->results : nullptr,
                     session ? mote_model_result_count(session->model) : 0, index, out_buffer);
}
