//===- test_files.h - Files and .npy arrays for the package tests ---------===//
#ifndef MOTE_TESTS_PACKAGE_TEST_FILES_H
#define MOTE_TESTS_PACKAGE_TEST_FILES_H

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace mote::test {

inline std::vector<uint8_t> read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

/// The float32 data of a little-endian .npy file (format 1.x or 2.x).
inline std::vector<float> read_npy_f32(const std::string &path) {
  std::vector<uint8_t> bytes = read_file(path);
  if (bytes.size() < 12 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    return {};
  size_t header = bytes[6] == 1 ? 10 + (bytes[8] | bytes[9] << 8)
                                : 12 + (bytes[8] | bytes[9] << 8 | bytes[10] << 16);
  std::vector<float> data((bytes.size() - header) / 4);
  std::memcpy(data.data(), bytes.data() + header, data.size() * 4);
  return data;
}

/// Address of symbol `name` in an ELF64 file's .symtab or .dynsym (0: none).
uint64_t elf64_symbol(const std::vector<uint8_t> &elf, const char *name);
/// File offset of the first RELA relocation of an ELF64 shared object (0: none).
size_t elf64_first_rela(const std::vector<uint8_t> &elf);

} // namespace mote::test

#endif // MOTE_TESTS_PACKAGE_TEST_FILES_H
