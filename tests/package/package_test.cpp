//===- package_test.cpp - Packages from motec: open, select, load, run ----===//
#include "host_code_memory.h"
#include "mote/code_loader.h"
#include "mote/package.h"
#include "package_builder.h"
#include "test_files.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

using mote::test::read_file;

namespace {

/// A package opened from a file, with its bytes kept alive.
struct OpenedPackage {
  std::vector<uint8_t> bytes;
  mote_package package{};
  mote_status status = MOTE_INVALID_ARGUMENT;
  explicit OpenedPackage(const std::string &path) : bytes(read_file(path)) {
    status = mote_package_open(bytes.data(), bytes.size(), &package);
  }
};

/// Loads code object `index` into fresh host code memory; frees it at the end.
struct LoadedCode {
  void *memory = nullptr;
  size_t size = 0;
  mote_model model{};
  mote_status status = MOTE_INVALID_ARGUMENT;
  LoadedCode(const mote_package &package, uint32_t index, bool executable) {
    size_t alignment;
    status = mote_package_code_memory(&package, index, &size, &alignment);
    if (status != MOTE_OK)
      return;
    REQUIRE(alignment <= 4096);
    REQUIRE(mote_host_code_alloc(size, &memory) == MOTE_OK);
    status =
        mote_package_load(&package, index, memory, size,
                          executable ? mote_host_code_make_executable : nullptr, nullptr, &model);
  }
  ~LoadedCode() { mote_host_code_free(memory, size); }
};

} // namespace

TEST_CASE("a motec package runs on the host and matches the expected output") {
  OpenedPackage opened(MOTE_TEST_MLP_HOST_PACKAGE);
  REQUIRE(opened.status == MOTE_OK);
  CHECK(std::string(mote_package_name(&opened.package)) == "mlp");

  uint32_t args = 0, results = 0;
  REQUIRE(mote_package_signature(&opened.package, &args, &results) == MOTE_OK);
  CHECK(args == 1);
  CHECK(results == 1);
  mote_package_tensor x, y;
  REQUIRE(mote_package_tensor_info(&opened.package, 0, 0, &x) == MOTE_OK);
  REQUIRE(mote_package_tensor_info(&opened.package, 1, 0, &y) == MOTE_OK);
  CHECK(x.element_type == MOTE_F32);
  CHECK(x.rank == 2);
  CHECK(x.dims[0] == 2);
  CHECK(x.dims[1] == 16);
  CHECK(y.byte_size == 2 * 10 * 4);
  CHECK(mote_package_tensor_info(&opened.package, 0, 1, &x) == MOTE_INVALID_ARGUMENT);

  uint32_t index = 99;
  REQUIRE(mote_package_select(&opened.package, "x86_64-linux-gnu", nullptr, &index) == MOTE_OK);
  LoadedCode code(opened.package, index, /*executable=*/true);
  REQUIRE(code.status == MOTE_OK);
  // The weights are read in place from the package bytes, not copied.
  REQUIRE(code.model.desc->weights_size > 0);
  const uint8_t *weights = static_cast<const uint8_t *>(code.model.weights);
  CHECK(weights >= opened.bytes.data());
  CHECK(weights + code.model.desc->weights_size <= opened.bytes.data() + opened.bytes.size());
  CHECK(code.model.desc->arg_count == 1);
  CHECK(code.model.desc->result_count == 1);

  uint64_t scratch_size;
  uint32_t scratch_alignment;
  REQUIRE(mote_package_memory_plan(&opened.package, &scratch_size, &scratch_alignment) == MOTE_OK);
  CHECK(scratch_size >= code.model.desc->scratch_size);
  std::vector<float> input = mote::test::read_npy_f32(MOTE_TEST_MLP_INPUT);
  std::vector<float> expected = mote::test::read_npy_f32(MOTE_TEST_MLP_EXPECTED);
  REQUIRE(input.size() == 32);
  REQUIRE(expected.size() == 20);
  std::vector<float> output(20, -1.0f);
  alignas(64) static uint8_t scratch[1 << 16];
  REQUIRE(scratch_size <= sizeof(scratch));
  const void *arg_pointers[] = {input.data()};
  void *result_pointers[] = {output.data()};
  mote_call call{arg_pointers, result_pointers, scratch, nullptr, code.model.weights};
  REQUIRE(code.model.entry(&call) == MOTE_CALL_OK);
  for (size_t i = 0; i < expected.size(); ++i)
    CHECK(std::fabs(output[i] - expected[i]) <= 1e-5f + 1e-4f * std::fabs(expected[i]));
}

TEST_CASE("a fat package holds code objects for every target, each loadable") {
  OpenedPackage opened(MOTE_TEST_MLP_FAT_PACKAGE);
  REQUIRE(opened.status == MOTE_OK);
  const char *triples[] = {"x86_64-linux-gnu", "aarch64-linux-gnu", "riscv64-linux-gnu",
                           "thumbv7em-none-eabihf", "riscv32-unknown-elf"};
  const uint16_t machines[] = {MOTE_ELF_MACHINE_X86_64, MOTE_ELF_MACHINE_AARCH64,
                               MOTE_ELF_MACHINE_RISCV, MOTE_ELF_MACHINE_ARM,
                               MOTE_ELF_MACHINE_RISCV};
  // Three feature levels for x86-64, aarch64 and riscv64, one for each
  // bare-metal triple.
  CHECK(mote_package_code_count(&opened.package) == 11);
  for (int t = 0; t < 5; ++t) {
    CAPTURE(triples[t]);
    uint32_t index = 99;
    REQUIRE(mote_package_select(&opened.package, triples[t], nullptr, &index) == MOTE_OK);
    mote_package_code info;
    REQUIRE(mote_package_code_info(&opened.package, index, &info) == MOTE_OK);
    CHECK(std::string(info.triple) == triples[t]);
    mote_code_layout layout;
    REQUIRE(mote_code_inspect(info.elf, info.elf_size, &layout) == MOTE_OK);
    CHECK(layout.machine == machines[t]);
    // Relocating foreign code is fine as long as nothing runs it.
    LoadedCode code(opened.package, index, /*executable=*/false);
    REQUIRE(code.status == MOTE_OK);
    CHECK(std::string(reinterpret_cast<const char *>(code.model.desc) +
                      code.model.desc->triple_offset) == triples[t]);
    bool thumb = machines[t] == MOTE_ELF_MACHINE_ARM;
    CHECK(((reinterpret_cast<uintptr_t>(code.model.entry) & 1) != 0) == thumb);
  }
}

TEST_CASE("no code object for another triple or missing CPU features") {
  OpenedPackage opened(MOTE_TEST_MLP_FAT_PACKAGE);
  REQUIRE(opened.status == MOTE_OK);
  uint32_t index;
  CHECK(mote_package_select(&opened.package, "mips-linux-gnu", nullptr, &index) ==
        MOTE_NO_MATCHING_CODE);
  CHECK(mote_package_select(&opened.package, "x86_64", nullptr, &index) == MOTE_NO_MATCHING_CODE);
  mote_package_code info;
  REQUIRE(mote_package_select(&opened.package, "aarch64-linux-gnu", nullptr, &index) == MOTE_OK);
  REQUIRE(mote_package_code_info(&opened.package, index, &info) == MOTE_OK);
  if (info.features[0] == '+') { // the default aarch64 features include +neon
    CHECK(mote_package_select(&opened.package, "aarch64-linux-gnu", "", &index) ==
          MOTE_NO_MATCHING_CODE);
    CHECK(mote_package_select(&opened.package, "aarch64-linux-gnu", info.features, &index) ==
          MOTE_OK);
  }
}

TEST_CASE("selection prefers the code object needing the most available features") {
  mote::test::TestCode plain, vector, other;
  plain.triple = vector.triple = "riscv64-linux-gnu";
  other.triple = "aarch64-linux-gnu";
  vector.features = "+m,+v";
  plain.features = "+m";
  plain.elf = vector.elf = other.elf = {0x7f, 'E', 'L', 'F'};
  std::vector<uint8_t> bytes = mote::test::build_package({other, plain, vector});
  mote_package package;
  REQUIRE(mote_package_open(bytes.data(), bytes.size(), &package) == MOTE_OK);
  uint32_t index = 99;
  REQUIRE(mote_package_select(&package, "riscv64-linux-gnu", "+a,+m,+v", &index) == MOTE_OK);
  CHECK(index == 2);
  REQUIRE(mote_package_select(&package, "riscv64-linux-gnu", "+m", &index) == MOTE_OK);
  CHECK(index == 1);
  CHECK(mote_package_select(&package, "riscv64-linux-gnu", "+v", &index) == MOTE_NO_MATCHING_CODE);
  // Without the machine's features, the least demanding code object.
  REQUIRE(mote_package_select(&package, "riscv64-linux-gnu", nullptr, &index) == MOTE_OK);
  CHECK(index == 1);
  // A four-byte "ELF" is no code object: found, but not loadable.
  size_t size, alignment;
  CHECK(mote_package_code_memory(&package, 0, &size, &alignment) == MOTE_CODE_MALFORMED);
}

namespace {

/// The flatbuffer behind a package file's header.
const mote::package::Package *packageBody(const std::vector<uint8_t> &bytes) {
  return mote::package::GetPackage(bytes.data() + mote::package_format::kHeaderSize);
}

/// Overwrites scalar field `field` of code object `index` in place (the
/// field must be present) and signs the package again.
template <typename T>
void patchCodeField(std::vector<uint8_t> &bytes, uint32_t index, uint16_t field, T value) {
  // A table starts with the offset back to its vtable, which holds each
  // field's offset in the table after two 16-bit sizes (field ids 4, 6...).
  auto *table = const_cast<uint8_t *>(
      reinterpret_cast<const uint8_t *>(packageBody(bytes)->code_objects()->Get(index)));
  int32_t back;
  std::memcpy(&back, table, sizeof back);
  const uint8_t *vtable = table - back;
  uint16_t vtableSize, offset = 0;
  std::memcpy(&vtableSize, vtable, sizeof vtableSize);
  if (field < vtableSize)
    std::memcpy(&offset, vtable + field, sizeof offset);
  REQUIRE(offset != 0);
  std::memcpy(table + offset, &value, sizeof value);
  mote::test::sign_package(bytes);
}

} // namespace

TEST_CASE("a package stores each distinct range of its code objects' weights once") {
  // mlp-host.mote: x86-64 baseline, v3 and v4, from the same module.
  OpenedPackage opened(MOTE_TEST_MLP_HOST_PACKAGE);
  REQUIRE(opened.status == MOTE_OK);
  const mote::package::Package *body = packageBody(opened.bytes);
  REQUIRE(body->code_objects()->size() == 3);
  REQUIRE(body->weights() != nullptr);
  REQUIRE(body->weights_size() > 0);
  // Embedded, 64-byte aligned in the file, for a loader that maps it.
  CHECK(body->weights()->size() == body->weights_size());
  CHECK((body->weights()->data() - opened.bytes.data()) % 64 == 0);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (uint32_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    const auto *code = body->code_objects()->Get(i);
    REQUIRE(code->weights_size() > 0);
    CHECK(code->weights_offset() + code->weights_size() <= body->weights_size());
    const std::pair<uint64_t, uint64_t> range{code->weights_offset(), code->weights_size()};
    if (std::find(ranges.begin(), ranges.end(), range) == ranges.end())
      ranges.push_back(range);
    // The code object holds no copy of its weights.
    const std::string elf(code->elf()->begin(), code->elf()->end());
    const uint8_t *first = body->weights()->data() + code->weights_offset();
    CHECK(elf.find(std::string(first, first + 256)) == std::string::npos);
  }
  uint64_t distinct = 0;
  for (const auto &range : ranges)
    distinct += range.second;
  CHECK(body->weights_size() == distinct);
}

// Panels of constant weights (PrepackedWeights.h) follow each level's tile
// width (SSE, AVX2, AVX-512 differ), so a package with several levels of a
// triple reads its weights in place instead, and every level shares them.
TEST_CASE("the feature levels of a package share one copy of the weights") {
  OpenedPackage opened(MOTE_TEST_MLP_HOST_PACKAGE);
  REQUIRE(opened.status == MOTE_OK);
  const mote::package::Package *body = packageBody(opened.bytes);
  REQUIRE(body->code_objects()->size() == 3);
  for (uint32_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    const auto *code = body->code_objects()->Get(i);
    CHECK(code->weights_offset() == 0);
    CHECK(code->weights_size() == body->weights_size());
  }
}

TEST_CASE("a code object's weights outside the package's are refused") {
  std::vector<uint8_t> bytes = read_file(MOTE_TEST_MLP_HOST_PACKAGE);
  const uint64_t total = packageBody(bytes)->weights_size();
  for (uint64_t size : {total + 64, uint64_t(1) << 40}) {
    CAPTURE(size);
    std::vector<uint8_t> patched = bytes;
    patchCodeField<uint64_t>(patched, 0, mote::package::CodeObject::VT_WEIGHTS_SIZE, size);
    mote_package package;
    CHECK(mote_package_open(patched.data(), patched.size(), &package) == MOTE_PACKAGE_MALFORMED);
  }
}
