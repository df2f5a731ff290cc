//===- package_reader.cc - The .mote flatbuffer, verified field by field --===//
#include "package_reader.h"

namespace mote::package_reader {
namespace {

using flatbuffer::Reader;
using flatbuffer::Table;
using flatbuffer::Vector;

constexpr mote_status kMalformed = MOTE_PACKAGE_MALFORMED;

const char *string_at(const Reader &reader, const Vector &string) {
  return reinterpret_cast<const char *>(reader.data() + string.data);
}

bool read_string(const Reader &reader, const Table &table, unsigned field, const char **out) {
  Vector string;
  bool present;
  if (!reader.string(table, field, &string, &present))
    return false;
  *out = present ? string_at(reader, string) : "";
  return true;
}

bool sub_table(const Reader &reader, const Table &table, unsigned field, Table *out,
               bool *present) {
  uint32_t pos;
  if (!reader.offset(table, field, &pos))
    return false;
  *present = pos != 0;
  return pos == 0 || reader.table(pos, out);
}

mote_status verify_tensors(const Reader &reader, const Table &signature, unsigned field) {
  Vector tensors;
  if (!reader.vector(signature, field, 4, &tensors))
    return kMalformed;
  for (uint32_t i = 0; i < tensors.count; ++i) {
    Table tensor;
    mote_package_tensor info;
    if (!reader.vector_table(tensors, i, &tensor))
      return kMalformed;
    if (mote_status status = read_tensor(reader, tensor, &info))
      return status;
  }
  return MOTE_OK;
}

} // namespace

mote_status read_tensor(const Reader &reader, const Table &tensor, mote_package_tensor *out) {
  uint64_t element_type, byte_size;
  Vector dims, layout;
  if (!read_string(reader, tensor, kTensorName, &out->name) ||
      !reader.scalar(tensor, kTensorElementType, 1, 0, &element_type) ||
      !reader.scalar(tensor, kTensorByteSize, 8, 0, &byte_size) ||
      !reader.vector(tensor, kTensorDims, 8, &dims) ||
      !reader.vector(tensor, kTensorLayout, 1, &layout))
    return kMalformed;
  if (element_type < MOTE_PRED || element_type > MOTE_U2 || dims.count > MOTE_PACKAGE_MAX_RANK ||
      layout.count != dims.count)
    return kMalformed;
  out->element_type = uint8_t(element_type);
  out->rank = uint8_t(dims.count);
  out->byte_size = byte_size;
  uint32_t seen = 0; // the layout must be a permutation of the dimensions
  for (uint32_t d = 0; d < dims.count; ++d) {
    int64_t dim = int64_t(reader.load(dims.data + 8 * d, 8));
    uint8_t minor = reader.data()[layout.data + d];
    if (dim < 0 || minor >= dims.count || (seen & (1u << minor)) != 0)
      return kMalformed;
    seen |= 1u << minor;
    out->dims[d] = dim;
    out->layout[d] = minor;
  }
  return MOTE_OK;
}

mote_status read_code(const Reader &reader, const Table &code, mote_package_code *out) {
  Vector elf;
  if (!read_string(reader, code, kCodeTriple, &out->triple) ||
      !read_string(reader, code, kCodeCpu, &out->cpu) ||
      !read_string(reader, code, kCodeFeatures, &out->features) ||
      !reader.vector(code, kCodeElf, 1, &elf) ||
      !reader.scalar(code, kCodeDescriptorOffset, 8, 0, &out->descriptor_offset) ||
      !reader.scalar(code, kCodeEntryOffset, 8, 0, &out->entry_offset) ||
      !reader.scalar(code, kCodeWeightsOffset, 8, 0, &out->weights_offset) ||
      !reader.scalar(code, kCodeWeightsSize, 8, 0, &out->weights_size))
    return kMalformed;
  if (out->triple[0] == 0 || elf.count == 0)
    return kMalformed;
  out->elf = reader.data() + elf.data;
  out->elf_size = elf.count;
  return MOTE_OK;
}

mote_status read_weights(const Reader &reader, const Table &root, WeightsInfo *out) {
  Vector embedded, digest;
  uint64_t size;
  if (!reader.vector(root, kPackageWeights, 1, &embedded) ||
      !read_string(reader, root, kPackageWeightsFile, &out->file) ||
      !reader.scalar(root, kPackageWeightsSize, 8, 0, &size) ||
      !reader.vector(root, kPackageWeightsDigest, 1, &digest))
    return kMalformed;
  out->size = size;
  out->embedded = embedded.count ? reader.data() + embedded.data : nullptr;
  out->digest = digest.count ? reader.data() + digest.data : nullptr;
  // Weights are either in the package (64-byte aligned within it) or in a
  // named file; either way with a digest.
  const bool in_file = out->file[0] != 0;
  if (size == 0)
    return embedded.count == 0 && !in_file ? MOTE_OK : kMalformed;
  if (digest.count != 32 ||
      (in_file ? embedded.count != 0 : embedded.count != size || (embedded.data & 63u) != 0))
    return kMalformed;
  return MOTE_OK;
}

mote_status verify_package_body(const uint8_t *buffer, uint32_t size, uint32_t *out_root) {
  Reader reader(buffer, size);
  // The schema's file_identifier follows the root offset.
  if (size < 8 || buffer[4] != 'M' || buffer[5] != 'O' || buffer[6] != 'T' || buffer[7] != 'E')
    return kMalformed;
  Table root, signature, memory;
  bool has_signature, has_memory;
  uint64_t version, scratch_size, scratch_alignment;
  const char *name;
  if (!reader.root(&root) || !reader.scalar(root, kPackageFormatVersion, 4, 0, &version) ||
      !read_string(reader, root, kPackageModelName, &name) ||
      !sub_table(reader, root, kPackageSignature, &signature, &has_signature) ||
      !sub_table(reader, root, kPackageMemory, &memory, &has_memory))
    return kMalformed;
  if (version != MOTE_PACKAGE_FORMAT_VERSION || !has_signature || !has_memory)
    return kMalformed;
  if (mote_status status = verify_tensors(reader, signature, kSignatureArgs))
    return status;
  if (mote_status status = verify_tensors(reader, signature, kSignatureResults))
    return status;
  if (!reader.scalar(memory, kMemoryScratchSize, 8, 0, &scratch_size) ||
      !reader.scalar(memory, kMemoryScratchAlignment, 4, 16, &scratch_alignment) ||
      scratch_alignment == 0 || (scratch_alignment & (scratch_alignment - 1)) != 0)
    return kMalformed;
  WeightsInfo weights;
  if (mote_status status = read_weights(reader, root, &weights))
    return status;
  Vector codes;
  if (!reader.vector(root, kPackageCodeObjects, 4, &codes))
    return kMalformed;
  for (uint32_t i = 0; i < codes.count; ++i) {
    Table code;
    mote_package_code info;
    if (!reader.vector_table(codes, i, &code))
      return kMalformed;
    if (mote_status status = read_code(reader, code, &info))
      return status;
    // Each code object's weights lie inside the package's, aligned.
    if (info.weights_size && (info.weights_offset > weights.size ||
                              info.weights_size > weights.size - info.weights_offset ||
                              (info.weights_offset & 63u) != 0))
      return kMalformed;
  }
  *out_root = root.pos;
  return MOTE_OK;
}

} // namespace mote::package_reader
