//===- corruption_test.cpp - Each kind of bad package gets its own status ===//
#include "host_code_memory.h"
#include "mote/code_loader.h"
#include "mote/package.h"
#include "package_builder.h"
#include "package_format.h"
#include "test_files.h"

#include <doctest/doctest.h>

using mote::test::read_file;

namespace {

mote_status open_status(const std::vector<uint8_t> &bytes) {
  mote_package package;
  return mote_package_open(bytes.data(), bytes.size(), &package);
}

/// Opens `bytes` and loads its first code object into scratch memory
/// (never executed); returns the first failing status.
mote_status load_status(const std::vector<uint8_t> &bytes) {
  mote_package package;
  if (mote_status status = mote_package_open(bytes.data(), bytes.size(), &package))
    return status;
  size_t size, alignment;
  if (mote_status status = mote_package_code_memory(&package, 0, &size, &alignment))
    return status;
  std::vector<uint8_t> memory(size + alignment);
  uint8_t *aligned =
      memory.data() +
      (alignment - reinterpret_cast<uintptr_t>(memory.data()) % alignment) % alignment;
  mote_model model;
  return mote_package_load(&package, 0, aligned, size, nullptr, nullptr, &model);
}

/// A package around `elf` whose descriptor and entry offsets reach the
/// loader (offset 0 lies in the image; the entry is the first code byte).
std::vector<uint8_t> package_around(const std::vector<uint8_t> &elf) {
  mote::test::TestCode code;
  code.elf = elf;
  mote_code_layout layout;
  if (mote_code_inspect(elf.data(), elf.size(), &layout) == MOTE_OK)
    code.entry_offset = layout.exec_begin;
  return mote::test::build_package({code});
}

void put_u64(std::vector<uint8_t> &bytes, size_t at, uint64_t value) {
  std::memcpy(&bytes[at], &value, 8);
}

} // namespace

TEST_CASE("a corrupt digest is MOTE_PACKAGE_DIGEST") {
  std::vector<uint8_t> bytes = read_file(MOTE_TEST_MLP_HOST_PACKAGE);
  REQUIRE(open_status(bytes) == MOTE_OK);
  std::vector<uint8_t> body = bytes;
  body[body.size() / 2] ^= 0x40; // a byte in the middle (code or tables)
  CHECK(open_status(body) == MOTE_PACKAGE_DIGEST);
  std::vector<uint8_t> digest = bytes;
  digest[mote::package_format::kDigestOffset + 5] ^= 1;
  CHECK(open_status(digest) == MOTE_PACKAGE_DIGEST);
}

TEST_CASE("a truncated file is MOTE_PACKAGE_TRUNCATED") {
  std::vector<uint8_t> bytes = read_file(MOTE_TEST_MLP_HOST_PACKAGE);
  for (size_t keep :
       {size_t(0), size_t(10), size_t(63), size_t(64), bytes.size() / 2, bytes.size() - 1}) {
    CAPTURE(keep);
    CHECK(mote_package_open(bytes.data(), keep, nullptr) == MOTE_INVALID_ARGUMENT);
    mote_package package;
    CHECK(mote_package_open(bytes.data(), keep, &package) == MOTE_PACKAGE_TRUNCATED);
  }
}

TEST_CASE("wrong magic, version or header fields") {
  std::vector<uint8_t> bytes = read_file(MOTE_TEST_MLP_HOST_PACKAGE);
  std::vector<uint8_t> magic = bytes;
  magic[0] = 'X';
  CHECK(open_status(magic) == MOTE_PACKAGE_MALFORMED);
  for (uint8_t unknown : {uint8_t(0), uint8_t(MOTE_PACKAGE_FORMAT_VERSION + 1)}) {
    std::vector<uint8_t> version = bytes;
    version[mote::package_format::kVersionOffset] = unknown;
    CHECK(open_status(version) == MOTE_PACKAGE_VERSION);
  }
  std::vector<uint8_t> huge = bytes;
  put_u64(huge, mote::package_format::kTotalSizeOffset, uint64_t(1) << 40);
  CHECK(open_status(huge) == MOTE_PACKAGE_MALFORMED);
}

TEST_CASE("a flatbuffer offset out of range is MOTE_PACKAGE_MALFORMED") {
  std::vector<uint8_t> bytes = read_file(MOTE_TEST_MLP_HOST_PACKAGE);
  std::vector<uint8_t> root = bytes; // the root table offset, past the end
  uint32_t far = uint32_t(bytes.size());
  std::memcpy(&root[mote::package_format::kHeaderSize], &far, 4);
  mote::test::sign_package(root);
  CHECK(open_status(root) == MOTE_PACKAGE_MALFORMED);
  std::vector<uint8_t> odd = bytes; // misaligned root table
  odd[mote::package_format::kHeaderSize] += 1;
  mote::test::sign_package(odd);
  CHECK(open_status(odd) == MOTE_PACKAGE_MALFORMED);
}

TEST_CASE("a bad ELF header is MOTE_CODE_MALFORMED") {
  std::vector<uint8_t> elf = read_file(MOTE_TEST_RELATIVE_ELF);
  // Intact, it loads; only the model descriptor check fails (it has none).
  REQUIRE(load_status(package_around(elf)) == MOTE_BAD_DESCRIPTOR);
  std::vector<uint8_t> magic = elf;
  magic[1] = 'X';
  CHECK(load_status(package_around(magic)) == MOTE_CODE_MALFORMED);
  std::vector<uint8_t> machine = elf; // e_machine: SPARC
  machine[18] = 2;
  machine[19] = 0;
  CHECK(load_status(package_around(machine)) == MOTE_CODE_MALFORMED);
  std::vector<uint8_t> phoff = elf; // program headers past the end
  put_u64(phoff, 32, elf.size());
  CHECK(load_status(package_around(phoff)) == MOTE_CODE_MALFORMED);
  mote::test::TestCode code;
  code.triple = "aarch64-linux-gnu";
  code.elf = elf;
  CHECK(load_status(mote::test::build_package({code})) == MOTE_CODE_MALFORMED);
  std::vector<uint8_t> cut(elf.begin(), elf.begin() + 40);
  CHECK(load_status(package_around(cut)) == MOTE_CODE_MALFORMED);
}

TEST_CASE("a relocation outside the image is MOTE_CODE_RELOCATION") {
  std::vector<uint8_t> elf = read_file(MOTE_TEST_RELATIVE_ELF);
  size_t rela = mote::test::elf64_first_rela(elf);
  REQUIRE(rela != 0);
  std::vector<uint8_t> target = elf; // r_offset far outside
  put_u64(target, rela, 0x100000);
  CHECK(load_status(package_around(target)) == MOTE_CODE_RELOCATION);
  std::vector<uint8_t> addend = elf; // points far outside
  put_u64(addend, rela + 16, 0x7fffffff);
  CHECK(load_status(package_around(addend)) == MOTE_CODE_RELOCATION);
  std::vector<uint8_t> kind = elf; // R_X86_64_PC32: not a kind the loader applies
  put_u64(kind, rela + 8, 2);
  CHECK(load_status(package_around(kind)) == MOTE_CODE_RELOCATION);
}

TEST_CASE("an import is MOTE_CODE_IMPORTS") {
  std::vector<uint8_t> elf = read_file(MOTE_TEST_IMPORT_ELF);
  CHECK(load_status(package_around(elf)) == MOTE_CODE_IMPORTS);
  std::vector<uint8_t> relative = read_file(MOTE_TEST_RELATIVE_ELF);
  size_t rela = mote::test::elf64_first_rela(relative);
  put_u64(relative, rela + 8, (uint64_t(1) << 32) | 8); // RELATIVE naming symbol 1
  CHECK(load_status(package_around(relative)) == MOTE_CODE_IMPORTS);
}

TEST_CASE("a hand-made code object with relative relocations loads and runs") {
  std::vector<uint8_t> elf = read_file(MOTE_TEST_RELATIVE_ELF);
  mote_code_layout layout;
  REQUIRE(mote_code_inspect(elf.data(), elf.size(), &layout) == MOTE_OK);
  void *memory;
  REQUIRE(mote_host_code_alloc(layout.image_size, &memory) == MOTE_OK);
  CHECK(mote_code_load(elf.data(), elf.size(), MOTE_ELF_MACHINE_AARCH64, memory,
                       layout.image_size) == MOTE_CODE_MALFORMED);
  CHECK(mote_code_load(elf.data(), elf.size(), 0, memory, layout.image_size - 1) ==
        MOTE_BUFFER_TOO_SMALL);
  REQUIRE(mote_code_load(elf.data(), elf.size(), MOTE_ELF_MACHINE_X86_64, memory,
                         layout.image_size) == MOTE_OK);
  REQUIRE(mote_host_code_make_executable(nullptr, memory, layout.image_size) == MOTE_OK);
  uint64_t read_entry = mote::test::elf64_symbol(elf, "read_entry");
  REQUIRE(read_entry != 0);
  auto *function = reinterpret_cast<int (*)(int)>(static_cast<uint8_t *>(memory) + read_entry);
  CHECK(function(0) == 10);
  CHECK(function(2) == 30);
  mote_host_code_free(memory, layout.image_size);
}
