//===- load_test.cpp - A package to a runnable model in one call ----------===//
//
// mote_package_load_file (the host port) and mote_package_load_memory pick
// the code object for this machine themselves, say how much arena a session
// needs, and leave nothing behind when they fail.
//
//===----------------------------------------------------------------------===//
#include "host_code_memory.h"
#include "mote/machine.h"
#include "mote/mote.hpp"
#include "mote/package.h"
#include "mote_host.hpp"
#include "mote_port.h"
#include "test_files.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

/// Runs the mlp (f32[2,16] -> f32[2,10]) on examples/mlp's input in
/// `arena_size` bytes and compares with its expected output.
void run_mlp(const mote::Model &model, size_t arena_size) {
  std::vector<unsigned char> memory(arena_size);
  mote::Session session;
  REQUIRE(session.init(model, memory).ok());
  std::vector<float> input = mote::test::read_npy_f32(MOTE_TEST_MLP_INPUT);
  std::vector<float> expected = mote::test::read_npy_f32(MOTE_TEST_MLP_EXPECTED);
  std::vector<float> output(20, -1.0f);
  REQUIRE(session.set_input(0, input).ok());
  REQUIRE(session.set_output(0, output).ok());
  REQUIRE(session.run().ok());
  for (size_t i = 0; i < expected.size(); ++i)
    CHECK(std::fabs(output[i] - expected[i]) <= 1e-5f + 1e-4f * std::fabs(expected[i]));
}

std::string write_temp(const std::vector<uint8_t> &bytes) {
  char path[] = "/tmp/mote-load-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  FILE *file = fdopen(fd, "wb");
  REQUIRE(file != nullptr);
  REQUIRE(fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size());
  fclose(file);
  return path;
}

} // namespace

TEST_CASE("a fat package file loads this machine's code and runs in one call") {
  mote_host_package package;
  REQUIRE(mote_package_load_file(MOTE_TEST_MLP_FAT_PACKAGE, &package) == MOTE_OK);
  mote_package_code code;
  REQUIRE(mote_package_code_info(&package.loaded.package, package.loaded.code_index, &code) ==
          MOTE_OK);
  CHECK(std::string(code.triple) == mote_machine_triple());
  CHECK(package.loaded.arena_size == mote_session_arena_size(&package.loaded.model, 16));
  run_mlp(mote::Model(package.loaded.model), package.loaded.arena_size);
  mote_package_unload(&package);
  CHECK(package.file == nullptr);
  CHECK(package.code == nullptr);
  mote_package_unload(&package); // twice is harmless
}

TEST_CASE("PackageFile: the same in C++, released by its destructor") {
  mote::PackageFile package;
  REQUIRE(package.load(MOTE_TEST_MLP_HOST_PACKAGE).ok());
  CHECK(package.model().arg_count() == 1);
  run_mlp(package.model(), package.arena_size());
  // Loading again releases the first.
  REQUIRE(package.load(MOTE_TEST_MLP_FAT_PACKAGE).ok());
  run_mlp(package.model(), package.arena_size());
}

TEST_CASE("a missing or damaged package file is an error with nothing to release") {
  mote_host_package package;
  CHECK(mote_package_load_file("/nonexistent/model.mote", &package) == MOTE_FILE_ERROR);
  CHECK(mote_package_load_file("/tmp", &package) == MOTE_FILE_ERROR);
  CHECK(package.file == nullptr);
  std::vector<uint8_t> bytes = mote::test::read_file(MOTE_TEST_MLP_HOST_PACKAGE);
  REQUIRE(bytes.size() > 100);
  std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + bytes.size() / 2);
  std::string path = write_temp(truncated);
  CHECK(mote_package_load_file(path.c_str(), &package) == MOTE_PACKAGE_TRUNCATED);
  CHECK(package.file == nullptr);
  CHECK(package.code == nullptr);
  bytes[bytes.size() - 1] ^= 0x40; // a byte the digest covers
  std::string damaged = write_temp(bytes);
  CHECK(mote_package_load_file(damaged.c_str(), &package) == MOTE_PACKAGE_DIGEST);
  std::remove(path.c_str());
  std::remove(damaged.c_str());
  mote::PackageFile cxx;
  CHECK(cxx.load("/nonexistent/model.mote").code() == MOTE_FILE_ERROR);
  CHECK(cxx.model().get()->desc == nullptr);
}

TEST_CASE("from memory: requirements first, then one call, checked") {
  std::vector<uint8_t> bytes = mote::test::read_file(MOTE_TEST_MLP_FAT_PACKAGE);
  mote_package_requirements need;
  REQUIRE(mote_package_requirements_for(bytes.data(), bytes.size(), &need) == MOTE_OK);
  REQUIRE(need.code_alignment <= 4096);
  // Code memory the port can make executable.
  void *code = nullptr;
  REQUIRE(mote_host_code_alloc(need.code_size, &code) == MOTE_OK);
  mote_loaded_package loaded;
  CHECK(mote_package_load_memory(bytes.data(), bytes.size(), code, need.code_size - 1,
                                 mote_port_make_executable, nullptr,
                                 &loaded) == MOTE_BUFFER_TOO_SMALL);
  CHECK(mote_package_load_memory(bytes.data(), bytes.size(), static_cast<char *>(code) + 1,
                                 need.code_size, mote_port_make_executable, nullptr,
                                 &loaded) == MOTE_MISALIGNED);
  mote::Package package;
  REQUIRE(package
              .load(bytes,
                    mote::Span<unsigned char>(static_cast<unsigned char *>(code), need.code_size),
                    mote_port_make_executable)
              .ok());
  run_mlp(package.model(), package.arena_size());
  mote_host_code_free(code, need.code_size);

  std::vector<uint8_t> garbage(64, 0x55);
  CHECK(mote_package_requirements_for(garbage.data(), garbage.size(), &need) != MOTE_OK);
}
