//===- package.cc - Open, query and load .mote packages (mote/package.h) --===//
#include "mote/package.h"

#include "mote/code_loader.h"
#include "package_format.h"
#include "package_reader.h"
#include "sha256.h"

#include <string.h>

namespace {

using mote::flatbuffer::Reader;
using mote::flatbuffer::Table;
using mote::flatbuffer::Vector;
namespace format = mote::package_format;
namespace reader_fields = mote::package_reader;

// Byte and string functions: the runtime uses nothing from libc but
// memcpy/memset, so no memcmp/strcmp/memchr.
bool bytes_equal(const void *a, const void *b, size_t size) {
  const uint8_t *x = static_cast<const uint8_t *>(a), *y = static_cast<const uint8_t *>(b);
  for (size_t i = 0; i < size; ++i)
    if (x[i] != y[i])
      return false;
  return true;
}

bool strings_equal(const char *a, const char *b) {
  while (*a && *a == *b)
    ++a, ++b;
  return *a == *b;
}

bool starts_with(const char *text, const char *prefix) {
  while (*prefix)
    if (*text++ != *prefix++)
      return false;
  return true;
}

uint64_t load_le(const uint8_t *p, unsigned width) {
  uint64_t value = 0;
  for (unsigned i = 0; i < width; ++i)
    value |= uint64_t(p[i]) << (8 * i);
  return value;
}

bool root_of(const mote_package *package, Reader *reader, Table *root) {
  if (package == nullptr || package->buffer == nullptr)
    return false;
  *reader = Reader(package->buffer, package->buffer_size);
  return reader->table(package->root, root);
}

// Element `index` of the code_objects vector.
mote_status code_table(const mote_package *package, uint32_t index, Reader *reader,
                       mote_package_code *out) {
  Table root, code;
  Vector codes;
  if (!root_of(package, reader, &root))
    return MOTE_INVALID_ARGUMENT;
  if (!reader->vector(root, reader_fields::kPackageCodeObjects, 4, &codes))
    return MOTE_PACKAGE_MALFORMED;
  if (index >= codes.count)
    return MOTE_INVALID_ARGUMENT;
  if (!reader->vector_table(codes, index, &code))
    return MOTE_PACKAGE_MALFORMED;
  return reader_fields::read_code(*reader, code, out);
}

mote_status weights_of(const mote_package *package, mote::package_reader::WeightsInfo *out) {
  Reader reader(nullptr, 0);
  Table root;
  if (!root_of(package, &reader, &root))
    return MOTE_INVALID_ARGUMENT;
  return reader_fields::read_weights(reader, root, out);
}

// True when "+x" item `feature` (length `length`) is in the list `list`.
bool has_feature(const char *list, const char *feature, size_t length) {
  const char *p = list;
  while (*p) {
    const char *end = p;
    while (*end && *end != ',')
      ++end;
    if (size_t(end - p) == length && bytes_equal(p, feature, length))
      return true;
    p = *end ? end + 1 : end;
  }
  return false;
}

// More "+x" items than any feature list has: ranks are kMostFeatures - count.
constexpr int kMostFeatures = 1 << 20;

// How many "+x" items `required` has, or -1 when one is missing from `available`.
int required_features(const char *required, const char *available) {
  int count = 0;
  const char *p = required;
  while (*p) {
    const char *end = p;
    while (*end && *end != ',')
      ++end;
    if (*p == '+') {
      if (available && !has_feature(available, p, size_t(end - p)))
        return -1;
      ++count;
    }
    p = *end ? end + 1 : end;
  }
  return count;
}

// The ELF machine a triple's code must be for (0: unknown triple).
uint16_t machine_for_triple(const char *triple, uint8_t *elf_class) {
  struct Prefix {
    const char *text;
    uint16_t machine;
    uint8_t elf_class;
  };
  static const Prefix kPrefixes[] = {
      {"x86_64-", MOTE_ELF_MACHINE_X86_64, 2}, {"aarch64-", MOTE_ELF_MACHINE_AARCH64, 2},
      {"riscv64-", MOTE_ELF_MACHINE_RISCV, 2}, {"riscv32-", MOTE_ELF_MACHINE_RISCV, 1},
      {"thumb", MOTE_ELF_MACHINE_ARM, 1},      {"arm", MOTE_ELF_MACHINE_ARM, 1}};
  for (const Prefix &prefix : kPrefixes)
    if (starts_with(triple, prefix.text)) {
      *elf_class = prefix.elf_class;
      return prefix.machine;
    }
  return 0;
}

} // namespace

extern "C" {

mote_status mote_package_open(const void *bytes, size_t size, mote_package *out) {
  if (bytes == nullptr || out == nullptr)
    return MOTE_INVALID_ARGUMENT;
  const uint8_t *data = static_cast<const uint8_t *>(bytes);
  if (size < format::kHeaderSize)
    return MOTE_PACKAGE_TRUNCATED;
  if (!bytes_equal(data, format::kMagic, sizeof(format::kMagic)))
    return MOTE_PACKAGE_MALFORMED;
  // The version decides how to read the rest, digest included.
  if (load_le(data + format::kVersionOffset, 4) != MOTE_PACKAGE_FORMAT_VERSION)
    return MOTE_PACKAGE_VERSION;
  uint64_t total = load_le(data + format::kTotalSizeOffset, 8);
  if (load_le(data + format::kHeaderSizeOffset, 4) != format::kHeaderSize ||
      load_le(data + format::kReservedOffset, 8) != 0 || total > format::kMaxTotalSize ||
      total < format::kHeaderSize + 8)
    return MOTE_PACKAGE_MALFORMED;
  if (total > size)
    return MOTE_PACKAGE_TRUNCATED;

  uint8_t digest[mote::kSha256Size];
  mote::Sha256 hash;
  hash.update(data, format::kDigestOffset);
  hash.update(data + format::kHeaderSize, size_t(total) - format::kHeaderSize);
  hash.finish(digest);
  // Not constant-time on purpose: the digest guards integrity, not a secret.
  if (!bytes_equal(digest, data + format::kDigestOffset, sizeof(digest)))
    return MOTE_PACKAGE_DIGEST;

  const uint8_t *buffer = data + format::kHeaderSize;
  uint32_t buffer_size = uint32_t(total - format::kHeaderSize);
  uint32_t root;
  if (mote_status status = mote::package_reader::verify_package_body(buffer, buffer_size, &root))
    return status;
  *out = mote_package{buffer, buffer_size, root};
  return MOTE_OK;
}

const char *mote_package_name(const mote_package *package) {
  Reader reader(nullptr, 0);
  Table root;
  Vector name;
  bool present;
  if (!root_of(package, &reader, &root) ||
      !reader.string(root, reader_fields::kPackageModelName, &name, &present) || !present)
    return "";
  return reinterpret_cast<const char *>(reader.data() + name.data);
}

mote_status mote_package_signature(const mote_package *package, uint32_t *out_arg_count,
                                   uint32_t *out_result_count) {
  Reader reader(nullptr, 0);
  Table root, signature;
  uint32_t pos;
  Vector args, results;
  if (!root_of(package, &reader, &root) || !out_arg_count || !out_result_count)
    return MOTE_INVALID_ARGUMENT;
  if (!reader.offset(root, reader_fields::kPackageSignature, &pos) || pos == 0 ||
      !reader.table(pos, &signature) ||
      !reader.vector(signature, reader_fields::kSignatureArgs, 4, &args) ||
      !reader.vector(signature, reader_fields::kSignatureResults, 4, &results))
    return MOTE_PACKAGE_MALFORMED;
  *out_arg_count = args.count;
  *out_result_count = results.count;
  return MOTE_OK;
}

mote_status mote_package_tensor_info(const mote_package *package, int is_result, uint32_t index,
                                     mote_package_tensor *out) {
  Reader reader(nullptr, 0);
  Table root, signature, tensor;
  uint32_t pos;
  Vector tensors;
  if (!root_of(package, &reader, &root) || out == nullptr)
    return MOTE_INVALID_ARGUMENT;
  unsigned field = is_result ? reader_fields::kSignatureResults : reader_fields::kSignatureArgs;
  if (!reader.offset(root, reader_fields::kPackageSignature, &pos) || pos == 0 ||
      !reader.table(pos, &signature) || !reader.vector(signature, field, 4, &tensors))
    return MOTE_PACKAGE_MALFORMED;
  if (index >= tensors.count)
    return MOTE_INVALID_ARGUMENT;
  if (!reader.vector_table(tensors, index, &tensor))
    return MOTE_PACKAGE_MALFORMED;
  memset(out, 0, sizeof(*out));
  return mote::package_reader::read_tensor(reader, tensor, out);
}

mote_status mote_package_memory_plan(const mote_package *package, uint64_t *out_scratch_size,
                                     uint32_t *out_scratch_alignment) {
  Reader reader(nullptr, 0);
  Table root, memory;
  uint32_t pos;
  uint64_t size, alignment;
  if (!root_of(package, &reader, &root) || !out_scratch_size || !out_scratch_alignment)
    return MOTE_INVALID_ARGUMENT;
  if (!reader.offset(root, reader_fields::kPackageMemory, &pos) || pos == 0 ||
      !reader.table(pos, &memory) ||
      !reader.scalar(memory, reader_fields::kMemoryScratchSize, 8, 0, &size) ||
      !reader.scalar(memory, reader_fields::kMemoryScratchAlignment, 4, 16, &alignment))
    return MOTE_PACKAGE_MALFORMED;
  *out_scratch_size = size;
  *out_scratch_alignment = uint32_t(alignment);
  return MOTE_OK;
}

uint32_t mote_package_code_count(const mote_package *package) {
  Reader reader(nullptr, 0);
  Table root;
  Vector codes;
  if (!root_of(package, &reader, &root) ||
      !reader.vector(root, reader_fields::kPackageCodeObjects, 4, &codes))
    return 0;
  return codes.count;
}

mote_status mote_package_code_info(const mote_package *package, uint32_t index,
                                   mote_package_code *out) {
  Reader reader(nullptr, 0);
  if (out == nullptr)
    return MOTE_INVALID_ARGUMENT;
  return code_table(package, index, &reader, out);
}

mote_status mote_package_select(const mote_package *package, const char *triple,
                                const char *features, uint32_t *out_index) {
  if (package == nullptr || triple == nullptr || out_index == nullptr)
    return MOTE_INVALID_ARGUMENT;
  int best = -1;
  uint32_t count = mote_package_code_count(package);
  for (uint32_t i = 0; i < count; ++i) {
    mote_package_code code;
    if (mote_status status = mote_package_code_info(package, i, &code))
      return status;
    if (!strings_equal(code.triple, triple))
      continue;
    int needed = required_features(code.features, features);
    // Without the machine's features, the least demanding code is the safe one.
    int rank = features == nullptr ? kMostFeatures - needed : needed;
    if (needed >= 0 && rank > best) {
      best = rank;
      *out_index = i;
    }
  }
  return best < 0 ? MOTE_NO_MATCHING_CODE : MOTE_OK;
}

mote_status mote_package_code_memory(const mote_package *package, uint32_t index, size_t *out_size,
                                     size_t *out_alignment) {
  mote_package_code code;
  mote_code_layout layout;
  if (out_size == nullptr || out_alignment == nullptr)
    return MOTE_INVALID_ARGUMENT;
  if (mote_status status = mote_package_code_info(package, index, &code))
    return status;
  if (mote_status status = mote_code_inspect(code.elf, code.elf_size, &layout))
    return status;
  if (layout.image_size > SIZE_MAX)
    return MOTE_CODE_MALFORMED;
  *out_size = size_t(layout.image_size);
  *out_alignment = size_t(layout.image_alignment);
  return MOTE_OK;
}

mote_status mote_package_load(const mote_package *package, uint32_t index, void *memory,
                              size_t memory_size, mote_make_executable_fn make_executable,
                              void *user, mote_model *out) {
  mote_package_code code;
  mote_code_layout layout;
  if (out == nullptr || memory == nullptr)
    return MOTE_INVALID_ARGUMENT;
  if (mote_status status = mote_package_code_info(package, index, &code))
    return status;
  uint8_t elf_class = 0;
  uint16_t machine = machine_for_triple(code.triple, &elf_class);
  if (machine == 0)
    return MOTE_NO_MATCHING_CODE;
  if (mote_status status = mote_code_inspect(code.elf, code.elf_size, &layout))
    return status;
  if (layout.elf_class != elf_class || layout.machine != machine)
    return MOTE_CODE_MALFORMED; // the ELF is not for the triple it claims
  // The descriptor and entry must lie inside the image, the entry in code.
  if (code.descriptor_offset > layout.image_size ||
      layout.image_size - code.descriptor_offset < sizeof(mote_model_desc) ||
      code.descriptor_offset % 8 != 0 || code.entry_offset < layout.exec_begin ||
      code.entry_offset >= layout.exec_end)
    return MOTE_CODE_MALFORMED;
  if (mote_status status = mote_code_load(code.elf, code.elf_size, machine, memory, memory_size))
    return status;
  uint8_t *image = static_cast<uint8_t *>(memory);
  const mote_model_desc *desc =
      reinterpret_cast<const mote_model_desc *>(image + code.descriptor_offset);
  // The descriptor is hostile too: checked within the image's bounds.
  if (mote_status status =
          mote_model_desc_verify(desc, size_t(layout.image_size - code.descriptor_offset)))
    return status;
  // The code must be what the package says it is: its own descriptor names
  // the same triple and the same number of arguments and results.
  uint32_t arg_count, result_count;
  if (mote_status status = mote_package_signature(package, &arg_count, &result_count))
    return status;
  if (!strings_equal(reinterpret_cast<const char *>(desc) + desc->triple_offset, code.triple) ||
      desc->arg_count != arg_count || desc->result_count != result_count ||
      desc->weights_size != code.weights_size)
    return MOTE_CODE_MALFORMED;
  // Weights inside the package are used in place; a weights file comes
  // later, through mote_package_bind_weights.
  const uint8_t *weights = nullptr;
  if (code.weights_size) {
    mote::package_reader::WeightsInfo info;
    if (mote_status status = weights_of(package, &info))
      return status;
    if (info.embedded) {
      weights = info.embedded + code.weights_offset;
      if (reinterpret_cast<uintptr_t>(weights) & (desc->weights_alignment - 1u))
        return MOTE_MISALIGNED; // the package bytes are not aligned as mapped files are
    }
  }
  if (make_executable != nullptr) {
    if (mote_status status = make_executable(user, memory, size_t(layout.image_size)))
      return status;
  }
  uintptr_t entry = reinterpret_cast<uintptr_t>(image + code.entry_offset);
  if (machine == MOTE_ELF_MACHINE_ARM)
    entry |= 1; // Cortex-M runs Thumb only
  out->desc = desc;
  out->entry = reinterpret_cast<mote_entry_fn>(entry);
  out->weights = weights;
  return MOTE_OK;
}

mote_status mote_package_weights(const mote_package *package, mote_package_weights_info *out) {
  mote::package_reader::WeightsInfo info;
  if (out == nullptr)
    return MOTE_INVALID_ARGUMENT;
  if (mote_status status = weights_of(package, &info))
    return status;
  out->size = info.size;
  out->in_package = info.embedded != nullptr;
  out->file = info.file;
  out->digest = info.digest;
  return MOTE_OK;
}

mote_status mote_package_bind_weights(const mote_package *package, uint32_t index,
                                      const void *bytes, uint64_t size, int check_digest,
                                      mote_model *model) {
  mote::package_reader::WeightsInfo info;
  mote_package_code code;
  if (bytes == nullptr || model == nullptr || model->desc == nullptr)
    return MOTE_INVALID_ARGUMENT;
  if (mote_status status = weights_of(package, &info))
    return status;
  if (mote_status status = mote_package_code_info(package, index, &code))
    return status;
  if (info.embedded != nullptr || info.size == 0 || model->desc->weights_size != code.weights_size)
    return MOTE_INVALID_ARGUMENT; // nothing to bind, or another code object's model
  if (size != info.size)
    return MOTE_WEIGHTS_MISMATCH;
  if (check_digest) {
    uint8_t digest[mote::kSha256Size];
    mote::Sha256 hash;
    hash.update(static_cast<const uint8_t *>(bytes), size_t(size));
    hash.finish(digest);
    if (!bytes_equal(digest, info.digest, sizeof(digest)))
      return MOTE_WEIGHTS_MISMATCH;
  }
  return mote_model_set_weights(model, static_cast<const uint8_t *>(bytes) + code.weights_offset,
                                code.weights_size);
}

} // extern "C"
