//===- RandomTest.cpp - rng-bit-generator and rng --------------------------===//
//
// The block functions are checked against the known-answer vectors published
// with Random123 (kat_vectors: threefry2x32 with 20 rounds, philox4x32 with 10
// rounds); the HLO tests map those vectors through the state layout of XLA's
// RngBitGeneratorExpander, worked out by hand from prng.cc.
//
//===----------------------------------------------------------------------===//

#include "EvaluateText.h"

#include "eval/RandomBits.h"

#include <cmath>

using namespace mote;
using namespace mote::eval::test;
using hlo::PrimitiveType;

namespace {

hlo::Literal state(std::initializer_list<uint64_t> words) {
  return literal<uint64_t>(PrimitiveType::U64, {int64_t(words.size())}, words);
}

hlo::Literal generate(const std::string &shape, const std::string &algorithm,
                      hlo::Literal initial) {
  std::string stateShape = "u64[" + std::to_string(initial.elementCount()) + "]";
  return evaluate("HloModule m\nENTRY e {\n  s = " + stateShape + " parameter(0)\n  ROOT r = (" +
                      stateShape + ", " + shape + ") rng-bit-generator(s)" +
                      (algorithm.empty() ? "" : ", algorithm=" + algorithm) + "\n}\n",
                  {std::move(initial)});
}

} // namespace

TEST_CASE("Threefry-2x32 known answers") {
  using eval::threeFry2x32;
  CHECK(threeFry2x32({0, 0}, {0, 0}) == std::array<uint32_t, 2>{0x6b200159, 0x99ba4efe});
  CHECK(threeFry2x32({0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
        std::array<uint32_t, 2>{0x1cb996fc, 0xbb002be7});
  CHECK(threeFry2x32({0x13198a2e, 0x03707344}, {0x243f6a88, 0x85a308d3}) ==
        std::array<uint32_t, 2>{0xc4923a9c, 0x483df7a0});
}

TEST_CASE("Philox-4x32 known answers") {
  using eval::philox4x32;
  CHECK(philox4x32({0, 0}, {0, 0, 0, 0}) ==
        std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(philox4x32({0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}) ==
        std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(philox4x32({0xa4093822, 0x299f31d0}, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}) ==
        std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("rng-bit-generator Threefry: state is [key, counter]") {
  // u64 values are x0 | x1 << 32 of the hash of counter + i (split into
  // 32-bit halves, low first) under the key (likewise).
  hlo::Literal result =
      generate("u64[1]", "rng_three_fry", state({0x0370734413198a2eull, 0x85a308d3243f6a88ull}));
  CHECK(elements<uint64_t>(result.element(0)) ==
        std::vector<uint64_t>{0x0370734413198a2eull, 0x85a308d3243f6a89ull});
  CHECK(elements<uint64_t>(result.element(1)) == std::vector<uint64_t>{0x483df7a0c4923a9cull});
  // u32 values: one hash feeds two neighbours along the first even
  // dimension (dim 1 of [3,2]); row 0 is the hash of counter 0, and the
  // counter advances by the 3 hashes used.
  result = generate("u32[3,2]", "rng_three_fry", state({0, 0}));
  CHECK(elements<uint64_t>(result.element(0)) == std::vector<uint64_t>{0, 3});
  std::vector<uint32_t> bits = elements<uint32_t>(result.element(1));
  CHECK(bits[0] == 0x6b200159u);
  CHECK(bits[1] == 0x99ba4efeu);
  // No even dimension: [3] splits its largest dimension into ceil(3/2) = 2
  // hashes, the first giving elements 0 and 1.
  result = generate("u32[3]", "rng_three_fry", state({0, 0}));
  CHECK(elements<uint64_t>(result.element(0)) == std::vector<uint64_t>{0, 2});
  bits = elements<uint32_t>(result.element(1));
  CHECK(bits[0] == 0x6b200159u);
  CHECK(bits[1] == 0x99ba4efeu);
}

TEST_CASE("rng-bit-generator Philox: 128-bit counters, four words per block") {
  // u64[3] state: [key, counter low, counter high].
  hlo::Literal result =
      generate("u32[4]", "rng_philox",
               state({0x299f31d0a4093822ull, 0x85a308d3243f6a88ull, 0x0370734413198a2eull}));
  CHECK(elements<uint32_t>(result.element(1)) ==
        std::vector<uint32_t>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
  CHECK(elements<uint64_t>(result.element(0)) ==
        std::vector<uint64_t>{0x299f31d0a4093822ull, 0x85a308d3243f6a89ull, 0x0370734413198a2eull});
  // u64[2] state: the counter is (state[1], state[0]); only its low word is
  // written back. rng_default is Philox.
  for (const char *algorithm : {"rng_philox", "rng_default", ""}) {
    CAPTURE(algorithm);
    result = generate("u32[4]", algorithm, state({0, 0}));
    CHECK(elements<uint32_t>(result.element(1)) ==
          std::vector<uint32_t>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
    CHECK(elements<uint64_t>(result.element(0)) == std::vector<uint64_t>{0, 1});
  }
  // 64-bit values pair the words; narrow values keep the low bits.
  result = generate("u64[2]", "rng_philox", state({0, 0, 0}));
  CHECK(elements<uint64_t>(result.element(1)) ==
        std::vector<uint64_t>{0xe169c58d6627e8d5ull, 0x9b00dbd8bc57ac4cull});
  result = generate("u16[3]", "rng_philox", state({0, 0, 0}));
  CHECK(elements<uint16_t>(result.element(1)) == std::vector<uint16_t>{0xe8d5, 0xc58d, 0xac4c});
  CHECK(elements<uint64_t>(result.element(0)) == std::vector<uint64_t>{0, 1, 0});
  // Two blocks from a counter at 2^64 - 1 carry into the high word.
  result = generate("u32[8]", "rng_philox", state({0, ~0ull, 0}));
  CHECK(elements<uint64_t>(result.element(0)) == std::vector<uint64_t>{0, 1, 1});
}

TEST_CASE("rng draws reproducible values in range") {
  auto draw = [](const std::string &type, const std::string &low, const std::string &high,
                 const std::string &distribution, uint64_t seed, int count) {
    eval::EvaluatorOptions options;
    options.rngSeed = seed;
    return evaluate("HloModule m\nENTRY e {\n  a = " + type + "[] constant(" + low +
                        ")\n  b = " + type + "[] constant(" + high + ")\n  ROOT r = " + type + "[" +
                        std::to_string(count) + "] rng(a, b), distribution=" + distribution +
                        "\n}\n",
                    {}, options);
  };
  std::vector<float> uniform = elements<float>(draw("f32", "2", "3", "rng_uniform", 7, 4000));
  double sum = 0;
  for (float value : uniform) {
    CHECK((value >= 2 && value < 3));
    sum += value;
  }
  CHECK(std::abs(sum / uniform.size() - 2.5) < 0.03);
  CHECK(uniform == elements<float>(draw("f32", "2", "3", "rng_uniform", 7, 4000)));
  CHECK(uniform != elements<float>(draw("f32", "2", "3", "rng_uniform", 8, 4000)));
  for (int32_t value : elements<int32_t>(draw("s32", "-3", "5", "rng_uniform", 1, 500)))
    CHECK((value >= -3 && value < 5));
  std::vector<float> normal = elements<float>(draw("f32", "1", "2", "rng_normal", 3, 20000));
  double mean = 0, square = 0;
  for (float value : normal) {
    mean += value;
    square += double(value) * value;
  }
  mean /= normal.size();
  double deviation = std::sqrt(square / normal.size() - mean * mean);
  CHECK(std::abs(mean - 1) < 0.05);
  CHECK(std::abs(deviation - 2) < 0.05);
}
