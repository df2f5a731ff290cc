// ===- runtime/core/model.cc - Verify, query and run a model --------------===
//
// The descriptor may come from a package, so it is read as hostile input:
// every offset is checked against total_size before anything behind it is
// read, in 64-bit arithmetic so nothing wraps.
#include "mote/model.h"

#include "mote/layout.h"

#include <string.h>

namespace {

const uint8_t *bytes_of(const mote_model_desc *desc) {
  return reinterpret_cast<const uint8_t *>(desc);
}

// Non-zero when [offset, offset + size) lies inside [0, limit).
bool in_bounds(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

// A NUL-terminated string starting at `offset` and ending before `limit`.
bool is_string(const uint8_t *base, uint32_t offset, uint32_t limit) {
  if (offset >= limit)
    return false;
  // A loop rather than memchr: the runtime uses nothing from libc but
  // memcpy and memset.
  for (uint32_t i = offset; i < limit; ++i)
    if (base[i] == 0)
      return true;
  return false;
}

mote_status verify_tensor(const uint8_t *base, uint32_t limit, const mote_tensor_desc &tensor) {
  if (!is_string(base, tensor.name_offset, limit))
    return MOTE_BAD_DESCRIPTOR;
  size_t element_size = mote_element_size(tensor.element_type);
  if (element_size == 0 || tensor.rank > MOTE_MAX_RANK)
    return MOTE_BAD_DESCRIPTOR;
  if ((tensor.dims_offset & 7u) || !in_bounds(tensor.dims_offset, 8u * tensor.rank, limit) ||
      !in_bounds(tensor.layout_offset, tensor.rank, limit))
    return MOTE_BAD_DESCRIPTOR;
  if (!mote_layout_is_valid(tensor.rank, base + tensor.layout_offset))
    return MOTE_BAD_DESCRIPTOR;
  const int64_t *dims = reinterpret_cast<const int64_t *>(base + tensor.dims_offset);
  uint64_t bytes = element_size;
  for (uint32_t d = 0; d < tensor.rank; ++d) {
    if (dims[d] < 0 || __builtin_mul_overflow(bytes, static_cast<uint64_t>(dims[d]), &bytes))
      return MOTE_BAD_DESCRIPTOR;
  }
  return bytes == tensor.byte_size ? MOTE_OK : MOTE_BAD_DESCRIPTOR;
}

mote_status verify_tensors(const uint8_t *base, uint32_t limit, uint32_t offset, uint32_t count) {
  if ((offset & 7u) || !in_bounds(offset, uint64_t{count} * sizeof(mote_tensor_desc), limit))
    return MOTE_BAD_DESCRIPTOR;
  const mote_tensor_desc *tensors = reinterpret_cast<const mote_tensor_desc *>(base + offset);
  for (uint32_t i = 0; i < count; ++i) {
    mote_status status = verify_tensor(base, limit, tensors[i]);
    if (status != MOTE_OK)
      return status;
  }
  return MOTE_OK;
}

bool is_ready(const mote_model *model) { return model && model->desc; }

const char *string_at(const mote_model *model, uint32_t offset) {
  if (!is_ready(model))
    return "";
  return reinterpret_cast<const char *>(bytes_of(model->desc) + offset);
}

mote_status tensor_info(const mote_model *model, uint32_t offset, uint32_t count, uint32_t index,
                        mote_tensor_info *out_info) {
  if (!is_ready(model) || !out_info || index >= count)
    return MOTE_INVALID_ARGUMENT;
  const uint8_t *base = bytes_of(model->desc);
  const mote_tensor_desc &tensor = reinterpret_cast<const mote_tensor_desc *>(base + offset)[index];
  out_info->name = reinterpret_cast<const char *>(base + tensor.name_offset);
  out_info->element_type = tensor.element_type;
  out_info->rank = tensor.rank;
  out_info->dims = reinterpret_cast<const int64_t *>(base + tensor.dims_offset);
  out_info->minor_to_major = base + tensor.layout_offset;
  out_info->byte_size = tensor.byte_size;
  size_t element_size = mote_element_size(tensor.element_type);
  // Verified: byte_size is an exact multiple. Divide by constant shifts: a
  // 64-bit division or variable shift is a libgcc call on 32-bit cores.
  switch (element_size) {
  case 8:
    out_info->element_count = tensor.byte_size >> 3;
    break;
  case 4:
    out_info->element_count = tensor.byte_size >> 2;
    break;
  case 2:
    out_info->element_count = tensor.byte_size >> 1;
    break;
  default:
    out_info->element_count = tensor.byte_size;
    break;
  }
  return MOTE_OK;
}

// Each pair names an argument and a result of the same byte size, and no
// result or argument is in two pairs. Runs after the tensors are verified.
mote_status verify_aliases(const uint8_t *base, uint32_t limit, const mote_model_desc &desc) {
  if ((desc.aliases_offset & 3u) ||
      !in_bounds(desc.aliases_offset, uint64_t{desc.alias_count} * sizeof(mote_alias_desc), limit))
    return MOTE_BAD_DESCRIPTOR;
  const auto *aliases = reinterpret_cast<const mote_alias_desc *>(base + desc.aliases_offset);
  const auto *args = reinterpret_cast<const mote_tensor_desc *>(base + desc.args_offset);
  const auto *results = reinterpret_cast<const mote_tensor_desc *>(base + desc.results_offset);
  for (uint32_t i = 0; i < desc.alias_count; ++i) {
    const mote_alias_desc &alias = aliases[i];
    if (alias.result >= desc.result_count || alias.arg >= desc.arg_count ||
        (alias.flags & ~MOTE_ALIAS_MUST) ||
        args[alias.arg].byte_size != results[alias.result].byte_size)
      return MOTE_BAD_DESCRIPTOR;
    for (uint32_t j = 0; j < i; ++j)
      if (aliases[j].result == alias.result || aliases[j].arg == alias.arg)
        return MOTE_BAD_DESCRIPTOR;
  }
  return MOTE_OK;
}

const mote_alias_desc *aliases_of(const mote_model *model) {
  return reinterpret_cast<const mote_alias_desc *>(bytes_of(model->desc) +
                                                   model->desc->aliases_offset);
}

// Whether [a, a + size) and [b, b + size) share bytes without being equal.
bool overlaps_partly(const void *a, const void *b, uint64_t size) {
  uintptr_t x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return x != y && x < y + size && y < x + size;
}

const mote_tensor_desc *tensors_at(const mote_model *model, uint32_t offset) {
  return reinterpret_cast<const mote_tensor_desc *>(bytes_of(model->desc) + offset);
}

} // namespace

extern "C" mote_status mote_model_desc_verify(const mote_model_desc *desc, size_t available_size) {
  if (!desc)
    return MOTE_INVALID_ARGUMENT;
  if ((reinterpret_cast<uintptr_t>(desc) & 7u) || available_size < sizeof(mote_model_desc))
    return MOTE_BAD_DESCRIPTOR;
  if (desc->magic != MOTE_MODEL_MAGIC)
    return MOTE_BAD_DESCRIPTOR;
  if (desc->abi_version != MOTE_ABI_VERSION)
    return MOTE_ABI_MISMATCH;
  uint32_t limit = desc->total_size;
  if (limit < sizeof(mote_model_desc) || limit > available_size)
    return MOTE_BAD_DESCRIPTOR;
  const uint8_t *base = bytes_of(desc);
  if (!is_string(base, desc->name_offset, limit) || !is_string(base, desc->triple_offset, limit) ||
      !is_string(base, desc->cpu_features_offset, limit))
    return MOTE_BAD_DESCRIPTOR;
  uint32_t align = desc->scratch_alignment;
  if (align == 0 || (align & (align - 1)))
    return MOTE_BAD_DESCRIPTOR;
  if (desc->weights_size &&
      (desc->weights_alignment == 0 || (desc->weights_alignment & (desc->weights_alignment - 1))))
    return MOTE_BAD_DESCRIPTOR;
  mote_status status = verify_tensors(base, limit, desc->args_offset, desc->arg_count);
  if (status != MOTE_OK)
    return status;
  status = verify_tensors(base, limit, desc->results_offset, desc->result_count);
  if (status != MOTE_OK)
    return status;
  return verify_aliases(base, limit, *desc);
}

extern "C" mote_status mote_model_init(const mote_model_desc *desc, mote_entry_fn entry,
                                       mote_model *out_model) {
  if (!desc || !entry || !out_model)
    return MOTE_INVALID_ARGUMENT;
  out_model->desc = nullptr;
  out_model->entry = nullptr;
  out_model->weights = nullptr;
  // A linked-in descriptor is as long as it says; the header check inside
  // runs before total_size is trusted.
  mote_status status = mote_model_desc_verify(desc, SIZE_MAX);
  if (status != MOTE_OK)
    return status;
  out_model->desc = desc;
  out_model->entry = entry;
  return MOTE_OK;
}

extern "C" mote_status mote_model_set_weights(mote_model *model, const void *weights,
                                              uint64_t size) {
  if (!is_ready(model) || !weights)
    return MOTE_INVALID_ARGUMENT;
  if (size < model->desc->weights_size)
    return MOTE_BUFFER_TOO_SMALL;
  if (model->desc->weights_size &&
      (reinterpret_cast<uintptr_t>(weights) & (model->desc->weights_alignment - 1u)))
    return MOTE_MISALIGNED;
  model->weights = weights;
  return MOTE_OK;
}

extern "C" uint64_t mote_model_weights_size(const mote_model *model) {
  return is_ready(model) ? model->desc->weights_size : 0;
}
extern "C" uint32_t mote_model_weights_alignment(const mote_model *model) {
  return is_ready(model) && model->desc->weights_size ? model->desc->weights_alignment : 1;
}

extern "C" uint32_t mote_model_alias_count(const mote_model *model) {
  return is_ready(model) ? model->desc->alias_count : 0;
}
extern "C" mote_status mote_model_alias(const mote_model *model, uint32_t index,
                                        uint32_t *out_result, uint32_t *out_arg, int *out_must) {
  if (!out_result || !out_arg || !out_must || index >= mote_model_alias_count(model))
    return MOTE_INVALID_ARGUMENT;
  const mote_alias_desc &alias = aliases_of(model)[index];
  *out_result = alias.result;
  *out_arg = alias.arg;
  *out_must = (alias.flags & MOTE_ALIAS_MUST) ? 1 : 0;
  return MOTE_OK;
}

extern "C" const char *mote_model_name(const mote_model *model) {
  return string_at(model, is_ready(model) ? model->desc->name_offset : 0);
}
extern "C" const char *mote_model_triple(const mote_model *model) {
  return string_at(model, is_ready(model) ? model->desc->triple_offset : 0);
}
extern "C" const char *mote_model_cpu_features(const mote_model *model) {
  return string_at(model, is_ready(model) ? model->desc->cpu_features_offset : 0);
}

extern "C" uint32_t mote_model_arg_count(const mote_model *model) {
  return is_ready(model) ? model->desc->arg_count : 0;
}
extern "C" uint32_t mote_model_result_count(const mote_model *model) {
  return is_ready(model) ? model->desc->result_count : 0;
}
extern "C" uint64_t mote_model_scratch_size(const mote_model *model) {
  return is_ready(model) ? model->desc->scratch_size : 0;
}
extern "C" uint32_t mote_model_scratch_alignment(const mote_model *model) {
  return is_ready(model) ? model->desc->scratch_alignment : 1;
}

extern "C" mote_status mote_model_arg_info(const mote_model *model, uint32_t index,
                                           mote_tensor_info *out_info) {
  return tensor_info(model, is_ready(model) ? model->desc->args_offset : 0,
                     mote_model_arg_count(model), index, out_info);
}
extern "C" mote_status mote_model_result_info(const mote_model *model, uint32_t index,
                                              mote_tensor_info *out_info) {
  return tensor_info(model, is_ready(model) ? model->desc->results_offset : 0,
                     mote_model_result_count(model), index, out_info);
}

extern "C" mote_status mote_model_run(const mote_model *model, const void *const *args,
                                      void *const *results, void *scratch, size_t scratch_size,
                                      const mote_env *env) {
  if (!is_ready(model) || !model->entry)
    return MOTE_INVALID_ARGUMENT;
  const mote_model_desc *desc = model->desc;
  if ((desc->arg_count && !args) || (desc->result_count && !results))
    return MOTE_INVALID_ARGUMENT;
  const mote_tensor_desc *arg_descs = tensors_at(model, desc->args_offset);
  for (uint32_t i = 0; i < desc->arg_count; ++i)
    if (!args[i] && arg_descs[i].byte_size)
      return MOTE_INVALID_ARGUMENT;
  const mote_tensor_desc *result_descs = tensors_at(model, desc->results_offset);
  for (uint32_t i = 0; i < desc->result_count; ++i)
    if (!results[i] && result_descs[i].byte_size)
      return MOTE_INVALID_ARGUMENT;
  if (desc->scratch_size) {
    if (!scratch)
      return MOTE_INVALID_ARGUMENT;
    if (scratch_size < desc->scratch_size)
      return MOTE_BUFFER_TOO_SMALL;
    if (reinterpret_cast<uintptr_t>(scratch) & (desc->scratch_alignment - 1u))
      return MOTE_MISALIGNED;
  }
  if (desc->weights_size && !model->weights)
    return MOTE_WEIGHTS_MISSING;
  // The code reads an aliased argument from its result's buffer.
  const mote_alias_desc *aliases = aliases_of(model);
  for (uint32_t i = 0; i < desc->alias_count; ++i) {
    const void *arg = args[aliases[i].arg];
    void *result = results[aliases[i].result];
    uint64_t size = arg_descs[aliases[i].arg].byte_size;
    if (overlaps_partly(arg, result, size))
      return MOTE_INVALID_ARGUMENT;
    if (arg != result && size)
      memcpy(result, arg, size_t(size));
  }
  mote_call call = {args, results, scratch, env, model->weights};
  return model->entry(&call) == MOTE_CALL_OK ? MOTE_OK : MOTE_MODEL_FAILED;
}
