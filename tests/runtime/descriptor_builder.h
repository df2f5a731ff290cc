// ===- tests/runtime/descriptor_builder.h - Hand-made model descriptors ---===
//
// Writes a mote_model_desc byte by byte, the way the compiler lays it out,
// so tests can corrupt any one field and expect the matching status.
#ifndef MOTE_TESTS_RUNTIME_DESCRIPTOR_BUILDER_H
#define MOTE_TESTS_RUNTIME_DESCRIPTOR_BUILDER_H

#include <stddef.h>
#include <string.h>

#include <string>
#include <vector>

#include "mote/abi.h"

namespace mote_test {

struct TensorSpec {
  std::string name;
  uint8_t element_type;
  std::vector<int64_t> dims;
  std::vector<uint8_t> minor_to_major;
  uint64_t byte_size;
};

// An 8-byte aligned descriptor image plus where each tensor record sits.
class DescriptorImage {
public:
  DescriptorImage(const std::vector<TensorSpec> &args, const std::vector<TensorSpec> &results,
                  uint64_t scratch_size = 0, uint32_t scratch_alignment = 16) {
    size_t header = reserve(sizeof(mote_model_desc));
    args_at = reserve(sizeof(mote_tensor_desc) * args.size());
    results_at = reserve(sizeof(mote_tensor_desc) * results.size());
    for (size_t i = 0; i < args.size(); ++i)
      write_tensor(args_at + i * sizeof(mote_tensor_desc), args[i]);
    for (size_t i = 0; i < results.size(); ++i)
      write_tensor(results_at + i * sizeof(mote_tensor_desc), results[i]);
    uint32_t name = append_string("model");
    uint32_t triple = append_string("x86_64-linux-gnu");
    uint32_t features = append_string("");
    align(8);
    mote_model_desc desc = {};
    desc.magic = MOTE_MODEL_MAGIC;
    desc.abi_version = MOTE_ABI_VERSION;
    desc.total_size = static_cast<uint32_t>(bytes_.size() * 8);
    desc.name_offset = name;
    desc.triple_offset = triple;
    desc.cpu_features_offset = features;
    desc.arg_count = static_cast<uint32_t>(args.size());
    desc.result_count = static_cast<uint32_t>(results.size());
    desc.args_offset = static_cast<uint32_t>(args_at);
    desc.results_offset = static_cast<uint32_t>(results_at);
    desc.scratch_size = scratch_size;
    desc.scratch_alignment = scratch_alignment;
    memcpy(data() + header, &desc, sizeof desc);
  }

  uint8_t *data() { return reinterpret_cast<uint8_t *>(bytes_.data()); }
  size_t size() const { return bytes_.size() * 8; }
  mote_model_desc *desc() { return reinterpret_cast<mote_model_desc *>(data()); }
  mote_tensor_desc *arg(size_t i) {
    return reinterpret_cast<mote_tensor_desc *>(data() + args_at) + i;
  }
  mote_tensor_desc *result(size_t i) {
    return reinterpret_cast<mote_tensor_desc *>(data() + results_at) + i;
  }

  size_t args_at = 0, results_at = 0;

private:
  // uint64_t storage keeps the image 8-byte aligned; sizes count bytes_ * 8.
  size_t used_ = 0;
  std::vector<uint64_t> bytes_;

  void grow(size_t to) {
    used_ = to;
    bytes_.resize((to + 7) / 8, 0);
  }
  void align(size_t a) { grow((used_ + a - 1) / a * a); }
  size_t reserve(size_t n) {
    align(8);
    size_t at = used_;
    grow(used_ + n);
    return at;
  }
  uint32_t append_string(const std::string &s) {
    size_t at = used_;
    grow(used_ + s.size() + 1);
    memcpy(data() + at, s.c_str(), s.size() + 1);
    return static_cast<uint32_t>(at);
  }
  void write_tensor(size_t at, const TensorSpec &t) {
    size_t dims = reserve(8 * t.dims.size());
    if (!t.dims.empty())
      memcpy(data() + dims, t.dims.data(), 8 * t.dims.size());
    size_t layout = used_;
    grow(used_ + t.minor_to_major.size());
    if (!t.minor_to_major.empty())
      memcpy(data() + layout, t.minor_to_major.data(), t.minor_to_major.size());
    uint32_t name = append_string(t.name);
    mote_tensor_desc d = {};
    d.name_offset = name;
    d.dims_offset = static_cast<uint32_t>(dims);
    d.layout_offset = static_cast<uint32_t>(layout);
    d.element_type = t.element_type;
    d.rank = static_cast<uint8_t>(t.dims.size());
    d.byte_size = t.byte_size;
    memcpy(data() + at, &d, sizeof d);
  }
};

// Verifies `rounds` randomly corrupted copies of the `size`-byte descriptor
// at `valid` (descriptor_mutation_test.cc): every answer is a status, and
// every accepted copy decodes inside its bytes.
void mutate_descriptor(const uint8_t *valid, size_t size, uint64_t seed, int rounds);

} // namespace mote_test

#endif // MOTE_TESTS_RUNTIME_DESCRIPTOR_BUILDER_H
