//===- InputGeneratorTest.cpp - Seeded inputs -----------------------------===//

#include "tools/lib/InputGenerator.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace mote;
using hlo::Literal;
using hlo::PrimitiveType;
using hlo::Shape;

static Literal generate(const Shape &shape, uint64_t seed, uint64_t parameter) {
  auto value = tools::generateInput(shape, seed, parameter);
  REQUIRE(value);
  return std::move(*value);
}

TEST_CASE("inputs: the same seed gives the same values, others differ") {
  Shape shape = Shape::array(PrimitiveType::F32, {4, 5});
  Literal a = generate(shape, 1, 0);
  CHECK(a.bitwiseEqual(generate(shape, 1, 0)));
  CHECK_FALSE(a.bitwiseEqual(generate(shape, 2, 0)));
  CHECK_FALSE(a.bitwiseEqual(generate(shape, 1, 1)));
}

TEST_CASE("inputs: the stream is pinned (same values on every host)") {
  // Worked out with an independent Python model of SplitMix64 as documented:
  // stream seed = splitmix(seed).next() ^ (parameter * 0xd1b54a32d192ed03),
  // one value skipped, floats = (next >> 40) * 2^-23 - 1, integers = next % 8.
  Literal floats = generate(Shape::array(PrimitiveType::F32, {3}), 1, 0);
  CHECK(floats.get<float>(0) == 0.8871283531188965f);
  CHECK(floats.get<float>(1) == -0.9094860553741455f);
  CHECK(floats.get<float>(2) == 0.5548738241195679f);
  Literal ints = generate(Shape::array(PrimitiveType::S32, {5}), 7, 2);
  int expected[] = {0, 0, 6, 0, 4};
  for (int i = 0; i < 5; ++i)
    CHECK(ints.get<int32_t>(i) == expected[i]);
}

TEST_CASE("inputs: documented ranges") {
  constexpr int64_t n = 20000;
  SUBCASE("floats in [-1, 1) with mean near 0") {
    for (PrimitiveType type :
         {PrimitiveType::F32, PrimitiveType::F64, PrimitiveType::BF16, PrimitiveType::F16}) {
      Literal value = generate(Shape::array(type, {n}), 3, 0);
      double sum = 0, low = 2, high = -2;
      for (int64_t i = 0; i < n; ++i) {
        double x = value.getAsDouble(i);
        sum += x;
        low = std::min(low, x);
        high = std::max(high, x);
      }
      CAPTURE(hlo::primitiveTypeName(type).str());
      CHECK(low >= -1.0);
      CHECK(high <= 1.0); // bf16/f16 may round up to exactly 1
      CHECK(low < -0.99);
      CHECK(high > 0.99);
      CHECK(std::fabs(sum / n) < 0.03);
    }
  }
  SUBCASE("integers in [0, 8), every value drawn") {
    for (PrimitiveType type : {PrimitiveType::S8, PrimitiveType::U8, PrimitiveType::S16,
                               PrimitiveType::U32, PrimitiveType::S64, PrimitiveType::U64}) {
      Literal value = generate(Shape::array(type, {n}), 5, 1);
      int counts[8] = {};
      for (int64_t i = 0; i < n; ++i) {
        int64_t x = value.getAsInt64(i);
        REQUIRE(x >= 0);
        REQUIRE(x < 8);
        ++counts[x];
      }
      for (int count : counts)
        CHECK(count > n / 8 - n / 40);
    }
  }
  SUBCASE("pred: both values, about half each") {
    Literal value = generate(Shape::array(PrimitiveType::Pred, {n}), 9, 0);
    int64_t trues = 0;
    for (int64_t i = 0; i < n; ++i) {
      REQUIRE(value.bytes()[i] <= 1);
      trues += value.bytes()[i];
    }
    CHECK(trues > n * 45 / 100);
    CHECK(trues < n * 55 / 100);
  }
  SUBCASE("complex: both parts drawn") {
    Literal value = generate(Shape::array(PrimitiveType::C64, {64}), 1, 0);
    bool imaginary = false;
    for (int64_t i = 0; i < 64; ++i) {
      auto x = value.get<std::complex<float>>(i);
      CHECK(std::fabs(x.real()) <= 1.0f);
      imaginary |= x.imag() != 0;
    }
    CHECK(imaginary);
  }
}

TEST_CASE("inputs: tuples and tokens work, f8 is refused") {
  Shape tuple = Shape::tuple({Shape::array(PrimitiveType::S32, {2}),
                              Shape::tuple({Shape::scalar(PrimitiveType::F32), Shape::token()})});
  Literal value = generate(tuple, 1, 0);
  REQUIRE(value.tupleSize() == 2);
  CHECK(value.element(1).element(1).shape().isToken());
  CHECK(value.bitwiseEqual(generate(tuple, 1, 0)));

  auto f8 = tools::generateInput(Shape::array(PrimitiveType::F8E5M2, {2}), 1, 0);
  REQUIRE_FALSE(f8);
  CHECK(llvm::toString(f8.takeError()).find("f8e5m2") != std::string::npos);
}
