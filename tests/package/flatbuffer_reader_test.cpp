//===- flatbuffer_reader_test.cpp - The runtime's verifier vs flatbuffers' ===//
//
// The runtime reads packages with its own small verifier. Whatever it
// accepts, flatbuffers' own Verifier must accept too, on valid packages and
// on many mutated ones; and it must still accept every valid package.
//
//===----------------------------------------------------------------------===//
#include "package_builder.h"
#include "package_reader.h"
#include "test_files.h"

#include <doctest/doctest.h>

#include <random>

namespace {

bool flatbuffers_accepts(const std::vector<uint8_t> &body) {
  flatbuffers::Verifier verifier(body.data(), body.size());
  return mote::package::VerifyPackageBuffer(verifier);
}

bool runtime_accepts(const std::vector<uint8_t> &body) {
  uint32_t root;
  return mote::package_reader::verify_package_body(body.data(), uint32_t(body.size()), &root) ==
         MOTE_OK;
}

std::vector<uint8_t> body_of(const std::vector<uint8_t> &package) {
  return std::vector<uint8_t>(package.begin() + mote::package_format::kHeaderSize, package.end());
}

} // namespace

TEST_CASE("the runtime verifier accepts only what flatbuffers' Verifier accepts") {
  std::vector<std::vector<uint8_t>> seeds = {
      body_of(mote::test::read_file(MOTE_TEST_MLP_HOST_PACKAGE)),
      body_of(mote::test::read_file(MOTE_TEST_MLP_FAT_PACKAGE)),
      body_of(mote::test::build_package(
          {mote::test::TestCode{"x86_64-linux-gnu", "generic", "+avx2", {1, 2, 3, 4}, 0, 0}}))};
  for (const auto &seed : seeds) {
    REQUIRE(flatbuffers_accepts(seed));
    REQUIRE(runtime_accepts(seed));
  }
  std::mt19937 random(1234);
  int both_reject = 0, both_accept = 0, only_flatbuffers = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<uint8_t> body = seeds[round % seeds.size()];
    // Mutations aimed at the tables: the start of the buffer holds the root
    // and vtables; the code bytes are opaque to both verifiers.
    int edits = 1 + random() % 4;
    for (int e = 0; e < edits; ++e) {
      size_t limit = random() % 2 ? std::min<size_t>(body.size(), 256) : body.size();
      size_t at = random() % limit;
      switch (random() % 3) {
      case 0:
        body[at] ^= uint8_t(1u << (random() % 8));
        break;
      case 1:
        body[at] = uint8_t(random());
        break;
      default:
        body.resize(at + 1);
        break;
      }
    }
    bool ours = runtime_accepts(body), theirs = flatbuffers_accepts(body);
    CAPTURE(round);
    REQUIRE((!ours || theirs));
    both_reject += !ours && !theirs;
    both_accept += ours && theirs;
    only_flatbuffers += theirs && !ours;
  }
  MESSAGE("both accept " << both_accept << ", both reject " << both_reject
                         << ", only flatbuffers accepts " << only_flatbuffers);
  CHECK(both_reject > 1000);
  CHECK(both_accept > 1000);
}
