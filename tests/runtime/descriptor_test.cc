// ===- tests/runtime/descriptor_test.cc - Hostile descriptors are refused -===
#include <doctest/doctest.h>

#include "descriptor_builder.h"
#include "mote/mote.h"

using mote_test::DescriptorImage;
using mote_test::TensorSpec;

namespace {

int32_t never_called(const mote_call *) { return 99; }

DescriptorImage valid_image() {
  return DescriptorImage(
      {{"x", MOTE_F32, {2, 3}, {1, 0}, 24}, {"n", MOTE_S8, {}, {}, 1}},
      {{"y", MOTE_F64, {3, 2, 4}, {0, 2, 1}, 192}, {"empty", MOTE_U16, {0, 5}, {0, 1}, 0}}, 128,
      32);
}

mote_status verify(DescriptorImage &image) {
  return mote_model_desc_verify(image.desc(), image.size());
}

} // namespace

TEST_CASE("a well-formed descriptor verifies and decodes") {
  DescriptorImage image = valid_image();
  REQUIRE(verify(image) == MOTE_OK);
  mote_model model;
  REQUIRE(mote_model_init(image.desc(), never_called, &model) == MOTE_OK);
  CHECK(std::string(mote_model_name(&model)) == "model");
  CHECK(std::string(mote_model_triple(&model)) == "x86_64-linux-gnu");
  CHECK(std::string(mote_model_cpu_features(&model)) == "");
  CHECK(mote_model_arg_count(&model) == 2);
  CHECK(mote_model_result_count(&model) == 2);
  CHECK(mote_model_scratch_size(&model) == 128);
  CHECK(mote_model_scratch_alignment(&model) == 32);

  mote_tensor_info info;
  REQUIRE(mote_model_result_info(&model, 0, &info) == MOTE_OK);
  CHECK(std::string(info.name) == "y");
  CHECK(info.element_type == MOTE_F64);
  CHECK(info.rank == 3);
  CHECK(info.dims[0] == 3);
  CHECK(info.dims[1] == 2);
  CHECK(info.dims[2] == 4);
  CHECK(info.minor_to_major[0] == 0);
  CHECK(info.minor_to_major[1] == 2);
  CHECK(info.minor_to_major[2] == 1);
  CHECK(info.element_count == 24);
  CHECK(info.byte_size == 192);
  REQUIRE(mote_model_arg_info(&model, 1, &info) == MOTE_OK);
  CHECK(info.rank == 0);
  CHECK(info.element_count == 1);
  REQUIRE(mote_model_result_info(&model, 1, &info) == MOTE_OK);
  CHECK(info.element_count == 0);
  CHECK(mote_model_arg_info(&model, 2, &info) == MOTE_INVALID_ARGUMENT);
  CHECK(mote_model_result_info(&model, 2, &info) == MOTE_INVALID_ARGUMENT);
}

TEST_CASE("header fields: magic, version, sizes, strings, scratch alignment") {
  struct Case {
    const char *what;
    void (*corrupt)(mote_model_desc *);
    mote_status expected;
  };
  const Case cases[] = {
      {"magic", [](mote_model_desc *d) { d->magic ^= 1; }, MOTE_BAD_DESCRIPTOR},
      {"abi version", [](mote_model_desc *d) { d->abi_version = MOTE_ABI_VERSION + 1; },
       MOTE_ABI_MISMATCH},
      {"total_size below header", [](mote_model_desc *d) { d->total_size = 8; },
       MOTE_BAD_DESCRIPTOR},
      {"total_size beyond the bytes", [](mote_model_desc *d) { d->total_size += 8; },
       MOTE_BAD_DESCRIPTOR},
      {"name offset outside", [](mote_model_desc *d) { d->name_offset = d->total_size; },
       MOTE_BAD_DESCRIPTOR},
      {"triple offset huge", [](mote_model_desc *d) { d->triple_offset = 0xffffffffu; },
       MOTE_BAD_DESCRIPTOR},
      {"features string unterminated",
       [](mote_model_desc *d) {
         reinterpret_cast<uint8_t *>(d)[d->total_size - 1] = 'x'; // was padding
         d->cpu_features_offset = d->total_size - 1;
       },
       MOTE_BAD_DESCRIPTOR},
      {"args array outside", [](mote_model_desc *d) { d->args_offset = d->total_size - 8; },
       MOTE_BAD_DESCRIPTOR},
      {"args array misaligned", [](mote_model_desc *d) { d->args_offset += 4; },
       MOTE_BAD_DESCRIPTOR},
      {"arg count wraps", [](mote_model_desc *d) { d->arg_count = 0x08000001u; },
       MOTE_BAD_DESCRIPTOR},
      {"results array outside", [](mote_model_desc *d) { d->results_offset = 0xfffffff8u; },
       MOTE_BAD_DESCRIPTOR},
      {"result count too big", [](mote_model_desc *d) { d->result_count = 1000; },
       MOTE_BAD_DESCRIPTOR},
      {"scratch alignment zero", [](mote_model_desc *d) { d->scratch_alignment = 0; },
       MOTE_BAD_DESCRIPTOR},
      {"scratch alignment 24", [](mote_model_desc *d) { d->scratch_alignment = 24; },
       MOTE_BAD_DESCRIPTOR},
  };
  for (const Case &c : cases) {
    CAPTURE(std::string(c.what));
    DescriptorImage image = valid_image();
    c.corrupt(image.desc());
    CHECK(verify(image) == c.expected);
    if (std::string(c.what) == "total_size beyond the bytes")
      continue; // init trusts total_size: only verify knows the bytes available
    mote_model model = {image.desc(), never_called};
    CHECK(mote_model_init(image.desc(), never_called, &model) == c.expected);
    CHECK(model.desc == nullptr); // a refused model cannot be run by mistake
  }
}

TEST_CASE("tensor fields: names, types, ranks, dims, layouts, byte sizes") {
  struct Case {
    const char *what;
    void (*corrupt)(DescriptorImage &);
  };
  const Case cases[] = {
      {"name offset outside",
       [](DescriptorImage &i) { i.arg(0)->name_offset = i.desc()->total_size; }},
      {"unknown element type", [](DescriptorImage &i) { i.arg(0)->element_type = 0; }},
      {"element type past the last",
       [](DescriptorImage &i) { i.result(0)->element_type = MOTE_U2 + 1; }},
      {"rank beyond MOTE_MAX_RANK", [](DescriptorImage &i) { i.arg(1)->rank = MOTE_MAX_RANK + 1; }},
      {"dims outside", [](DescriptorImage &i) { i.result(0)->dims_offset = 0xfffffff8u; }},
      {"dims misaligned", [](DescriptorImage &i) { i.result(0)->dims_offset += 4; }},
      {"layout outside",
       [](DescriptorImage &i) { i.result(0)->layout_offset = i.desc()->total_size - 1; }},
      {"layout not a permutation",
       [](DescriptorImage &i) { i.data()[i.result(0)->layout_offset + 1] = 0; }},
      {"layout entry out of range",
       [](DescriptorImage &i) { i.data()[i.arg(0)->layout_offset] = 2; }},
      {"negative dim",
       [](DescriptorImage &i) {
         reinterpret_cast<int64_t *>(i.data() + i.arg(0)->dims_offset)[1] = -3;
       }},
      {"dims overflow",
       [](DescriptorImage &i) {
         int64_t *dims = reinterpret_cast<int64_t *>(i.data() + i.arg(0)->dims_offset);
         dims[0] = int64_t{1} << 40;
         dims[1] = int64_t{1} << 40;
       }},
      {"byte size too small", [](DescriptorImage &i) { i.arg(0)->byte_size = 23; }},
      {"byte size too large", [](DescriptorImage &i) { i.result(0)->byte_size = 193; }},
      {"byte size of an empty tensor", [](DescriptorImage &i) { i.result(1)->byte_size = 2; }},
  };
  for (const Case &c : cases) {
    CAPTURE(std::string(c.what));
    DescriptorImage image = valid_image();
    c.corrupt(image);
    CHECK(verify(image) == MOTE_BAD_DESCRIPTOR);
  }
}

TEST_CASE("the bytes available bound every read") {
  DescriptorImage image = valid_image();
  CHECK(mote_model_desc_verify(image.desc(), image.size()) == MOTE_OK);
  CHECK(mote_model_desc_verify(image.desc(), image.size() - 1) == MOTE_BAD_DESCRIPTOR);
  CHECK(mote_model_desc_verify(image.desc(), sizeof(mote_model_desc) - 1) == MOTE_BAD_DESCRIPTOR);
  CHECK(mote_model_desc_verify(nullptr, 100) == MOTE_INVALID_ARGUMENT);
  // A descriptor must sit at an 8-byte boundary (its fields are read in place).
  std::vector<uint64_t> shifted(image.size() / 8 + 1);
  uint8_t *odd = reinterpret_cast<uint8_t *>(shifted.data()) + 4;
  memcpy(odd, image.data(), image.size());
  CHECK(mote_model_desc_verify(reinterpret_cast<const mote_model_desc *>(odd), image.size()) ==
        MOTE_BAD_DESCRIPTOR);
}

TEST_CASE("every truncation of a valid descriptor is refused without reading past it") {
  DescriptorImage image = valid_image();
  // Copy each prefix into a buffer exactly that long, so ASan catches any
  // read beyond the bytes verify was told about.
  for (size_t n = 0; n < image.size(); n += 8) {
    CAPTURE(n);
    std::vector<uint64_t> prefix(n / 8 + (n == 0));
    memcpy(prefix.data(), image.data(), n);
    CHECK(mote_model_desc_verify(reinterpret_cast<const mote_model_desc *>(prefix.data()), n) ==
          MOTE_BAD_DESCRIPTOR);
  }
}

TEST_CASE("init and queries reject null and uninitialized models") {
  DescriptorImage image = valid_image();
  mote_model model;
  CHECK(mote_model_init(nullptr, never_called, &model) == MOTE_INVALID_ARGUMENT);
  CHECK(mote_model_init(image.desc(), nullptr, &model) == MOTE_INVALID_ARGUMENT);
  CHECK(mote_model_init(image.desc(), never_called, nullptr) == MOTE_INVALID_ARGUMENT);
  mote_model none = {nullptr, nullptr};
  CHECK(mote_model_arg_count(&none) == 0);
  CHECK(mote_model_result_count(nullptr) == 0);
  CHECK(std::string(mote_model_name(&none)) == "");
  mote_tensor_info info;
  CHECK(mote_model_arg_info(&none, 0, &info) == MOTE_INVALID_ARGUMENT);
  CHECK(mote_model_run(&none, nullptr, nullptr, nullptr, 0, nullptr) == MOTE_INVALID_ARGUMENT);
}
