//===- package_builder.h - Builds .mote packages around arbitrary ELF bytes ===//
//
// Tests need packages the compiler would never write (hand-made ELFs,
// corrupted fields), so this writes the format independently of motec: the
// flatbuffer through flatbuffers' own builder, then the header and digest.
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_TESTS_PACKAGE_PACKAGE_BUILDER_H
#define MOTE_TESTS_PACKAGE_PACKAGE_BUILDER_H

#include "package_format.h"
#include "package_generated.h"
#include "sha256.h"

#include <cstring>
#include <string>
#include <vector>

namespace mote::test {

struct TestCode {
  std::string triple = "x86_64-linux-gnu";
  std::string cpu = "generic";
  std::string features;
  std::vector<uint8_t> elf;
  uint64_t descriptor_offset = 0;
  uint64_t entry_offset = 0;
};

/// Recomputes the digest of a whole package in place (after a test edits it).
inline void sign_package(std::vector<uint8_t> &bytes) {
  Sha256 hash;
  hash.update(bytes.data(), package_format::kDigestOffset);
  hash.update(bytes.data() + package_format::kHeaderSize,
              bytes.size() - package_format::kHeaderSize);
  hash.finish(bytes.data() + package_format::kDigestOffset);
}

/// Header + flatbuffer `body`, signed.
inline std::vector<uint8_t> wrap_body(const uint8_t *body, size_t size) {
  std::vector<uint8_t> bytes(package_format::kHeaderSize, 0);
  std::memcpy(bytes.data(), package_format::kMagic, sizeof(package_format::kMagic));
  uint32_t version = 1, header = package_format::kHeaderSize;
  uint64_t total = package_format::kHeaderSize + size;
  std::memcpy(&bytes[package_format::kVersionOffset], &version, 4);
  std::memcpy(&bytes[package_format::kHeaderSizeOffset], &header, 4);
  std::memcpy(&bytes[package_format::kTotalSizeOffset], &total, 8);
  bytes.insert(bytes.end(), body, body + size);
  sign_package(bytes);
  return bytes;
}

/// A package with one f32[4] argument and result and the given code objects.
inline std::vector<uint8_t> build_package(const std::vector<TestCode> &codes) {
  flatbuffers::FlatBufferBuilder builder;
  std::vector<int64_t> dims = {4};
  std::vector<uint8_t> layout = {0};
  std::vector<flatbuffers::Offset<mote::package::Tensor>> args = {
      mote::package::CreateTensorDirect(builder, "x", 12, &dims, &layout, 16)};
  std::vector<flatbuffers::Offset<mote::package::Tensor>> results = {
      mote::package::CreateTensorDirect(builder, "y", 12, &dims, &layout, 16)};
  auto signature = mote::package::CreateSignatureDirect(builder, &args, &results);
  auto memory = mote::package::CreateMemoryPlan(builder, 64, 16);
  std::vector<flatbuffers::Offset<mote::package::CodeObject>> objects;
  for (const TestCode &code : codes)
    objects.push_back(mote::package::CreateCodeObjectDirect(
        builder, code.triple.c_str(), code.cpu.c_str(), code.features.c_str(), &code.elf,
        code.descriptor_offset, code.entry_offset));
  auto root = mote::package::CreatePackageDirect(builder, 1, "test", signature, memory, &objects);
  mote::package::FinishPackageBuffer(builder, root);
  return wrap_body(builder.GetBufferPointer(), builder.GetSize());
}

} // namespace mote::test

#endif // MOTE_TESTS_PACKAGE_PACKAGE_BUILDER_H
