//===- package_fuzz.cpp - libFuzzer target for the package reader and loader ===//
//
// Each input is treated as a package twice: as is (so the header and digest
// checks are fuzzed) and re-signed (so mutations get past the digest and
// reach the flatbuffer verifier, the ELF checks and the relocations). Whatever
// opens is queried and every code object loaded into scratch memory, never
// run. Inputs that are bare ELF files go straight to the code loader. Any
// crash, sanitizer report or leak is a bug.
//
//===----------------------------------------------------------------------===//
#include "mote/code_loader.h"
#include "mote/package.h"
#include "package_format.h"
#include "sha256.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

void exercise(const uint8_t *data, size_t size) {
  mote_package package;
  if (mote_package_open(data, size, &package) != MOTE_OK)
    return;
  (void)mote_package_name(&package);
  uint32_t args = 0, results = 0;
  if (mote_package_signature(&package, &args, &results) == MOTE_OK) {
    mote_package_tensor tensor;
    for (uint32_t i = 0; i < args; ++i)
      (void)mote_package_tensor_info(&package, 0, i, &tensor);
    for (uint32_t i = 0; i < results; ++i)
      (void)mote_package_tensor_info(&package, 1, i, &tensor);
  }
  uint64_t scratch;
  uint32_t alignment32;
  (void)mote_package_memory_plan(&package, &scratch, &alignment32);
  uint32_t index;
  (void)mote_package_select(&package, "x86_64-linux-gnu", "+sse2,+avx", &index);
  uint32_t count = mote_package_code_count(&package);
  for (uint32_t i = 0; i < count && i < 8; ++i) {
    size_t image_size, alignment;
    if (mote_package_code_memory(&package, i, &image_size, &alignment) != MOTE_OK ||
        image_size > (1u << 22))
      continue;
    size_t rounded = (image_size + alignment - 1) / alignment * alignment;
    void *memory = std::aligned_alloc(alignment, rounded);
    mote_model model;
    (void)mote_package_load(&package, i, memory, image_size, nullptr, nullptr, &model);
    std::free(memory);
  }
}

/// A bare code object (the ELF seeds): straight to the loader.
void exercise_code(const uint8_t *data, size_t size) {
  mote_code_layout layout;
  if (mote_code_inspect(data, size, &layout) != MOTE_OK || layout.image_size > (1u << 22))
    return;
  size_t alignment = size_t(layout.image_alignment);
  size_t rounded = (size_t(layout.image_size) + alignment - 1) / alignment * alignment;
  void *memory = std::aligned_alloc(alignment, rounded);
  (void)mote_code_load(data, size, 0, memory, size_t(layout.image_size));
  std::free(memory);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 4 && data[0] == 0x7f && data[1] == 'E' && data[2] == 'L' && data[3] == 'F') {
    exercise_code(data, size);
    return 0;
  }
  exercise(data, size);
  namespace format = mote::package_format;
  if (size < format::kHeaderSize)
    return 0;
  std::vector<uint8_t> signed_copy(data, data + size);
  uint64_t total;
  std::memcpy(&total, &signed_copy[format::kTotalSizeOffset], 8);
  if (total < format::kHeaderSize || total > size)
    total = size; // sign what is there; the size checks still run
  mote::Sha256 hash;
  hash.update(signed_copy.data(), format::kDigestOffset);
  hash.update(signed_copy.data() + format::kHeaderSize, size_t(total) - format::kHeaderSize);
  hash.finish(&signed_copy[format::kDigestOffset]);
  exercise(signed_copy.data(), signed_copy.size());
  return 0;
}
