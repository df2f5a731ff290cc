//===- CoreTypesTest.cpp - Element types, shapes, 16-bit floats, literals -===//

#include "hlo/FloatTypes.h"
#include "hlo/Literal.h"
#include "hlo/PrimitiveType.h"
#include "hlo/Shape.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace mote::hlo;

TEST_CASE("primitive type spellings round-trip") {
  for (const char *name : {"pred", "s4", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
                           "f16", "bf16", "f32", "f64", "c64", "c128", "token", "f8e4m3fn"}) {
    auto type = parsePrimitiveType(name);
    REQUIRE(type.has_value());
    CHECK(primitiveTypeName(*type) == name);
  }
  CHECK_FALSE(parsePrimitiveType("f31").has_value());
  CHECK_FALSE(parsePrimitiveType("invalid").has_value());
  CHECK(bitWidth(PrimitiveType::Pred) == 1);
  CHECK(storageBytes(PrimitiveType::S4) == 1);
  CHECK(storageBytes(PrimitiveType::C128) == 16);
  CHECK(isFloatingPoint(PrimitiveType::BF16));
  CHECK_FALSE(isInteger(PrimitiveType::Pred));
}

TEST_CASE("shapes print like XLA") {
  Shape matrix = Shape::array(PrimitiveType::F32, {2, 3});
  CHECK(matrix.toString() == "f32[2,3]");
  matrix.setLayout(Layout{{0, 1}, ""});
  CHECK(matrix.toString() == "f32[2,3]{0,1}");
  CHECK(matrix.toString(false) == "f32[2,3]");
  CHECK_FALSE(matrix.hasDefaultLayout());
  CHECK(matrix.elementCount() == 6);

  Shape tiled = Shape::array(PrimitiveType::BF16, {8, 128});
  tiled.setLayout(Layout{{1, 0}, "T(8,128)(2,1)"});
  CHECK(tiled.toString() == "bf16[8,128]{1,0:T(8,128)(2,1)}");
  CHECK(tiled.hasDefaultLayout());

  Shape dynamic = Shape::array(PrimitiveType::S32, {10, 4});
  dynamic.setDynamicDim(0, true);
  CHECK(dynamic.toString() == "s32[<=10,4]");

  Shape tuple = Shape::tuple({Shape::scalar(PrimitiveType::S32), Shape::token(),
                              Shape::tuple({Shape::array(PrimitiveType::Pred, {0})})});
  CHECK(tuple.toString() == "(s32[], token[], (pred[0]))");
  llvm::SmallVector<const Shape *> leaves;
  tuple.collectLeaves(leaves);
  CHECK(leaves.size() == 3);
  CHECK(leaves[2]->elementCount() == 0);
}

TEST_CASE("shape equality ignores missing layouts but not differing ones") {
  Shape a = Shape::array(PrimitiveType::F32, {2, 3});
  Shape b = a;
  b.setLayout(Layout{{1, 0}, ""});
  CHECK(a == b);
  Shape c = a;
  c.setLayout(Layout{{0, 1}, ""});
  CHECK(b != c);
  CHECK(b.compatible(c));
  CHECK_FALSE(a.compatible(Shape::array(PrimitiveType::F32, {3, 2})));
}

TEST_CASE("f16 conversion rounds to nearest even") {
  CHECK(Float16(1.0f).bits == 0x3c00);
  CHECK(Float16(65504.0f).bits == 0x7bff);
  CHECK(Float16(65520.0f).bits == 0x7c00);              // halfway to 2^16: rounds to inf
  CHECK(Float16(std::ldexp(1.0f, -24)).bits == 0x0001);   // smallest subnormal
  CHECK(Float16(std::ldexp(1.0f, -25)).bits == 0x0000);   // tie between 0 and 1 ulp -> even
  CHECK(Float16(3 * std::ldexp(1.0f, -25)).bits == 0x0002); // tie between 1 and 2 ulps -> even
  CHECK(Float16(1.0f + std::ldexp(1.0f, -11)).bits == 0x3c00);
  CHECK(Float16(1.0f + 3 * std::ldexp(1.0f, -11)).bits == 0x3c02);
  CHECK(Float16(-2.0f).bits == 0xc000);
  CHECK(Float16(std::ldexp(1.0f, -14)).bits == 0x0400); // smallest normal
  CHECK((Float16(std::numeric_limits<float>::quiet_NaN()).bits & 0x7e00) == 0x7e00);
  CHECK(static_cast<float>(Float16::fromBits(0x0001)) == std::ldexp(1.0f, -24));
  CHECK(static_cast<float>(Float16::fromBits(0x7bff)) == 65504.0f);
  CHECK(std::isinf(static_cast<float>(Float16::fromBits(0xfc00))));
}

TEST_CASE("bf16 conversion rounds to nearest even") {
  CHECK(BFloat16(1.0f).bits == 0x3f80);
  CHECK(BFloat16(1.0f + std::ldexp(1.0f, -8)).bits == 0x3f80);     // tie -> even
  CHECK(BFloat16(1.0f + 3 * std::ldexp(1.0f, -8)).bits == 0x3f82); // tie -> even (up)
  CHECK(BFloat16(std::numeric_limits<float>::max()).bits == 0x7f80);
  CHECK(BFloat16(-0.0f).bits == 0x8000);
  CHECK(std::isnan(static_cast<float>(BFloat16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST_CASE("literals hold row-major values and print shortest round-trip text") {
  Literal matrix(Shape::array(PrimitiveType::F32, {2, 2}));
  matrix.set<float>(0, 1.0f);
  matrix.set<float>(1, 0.1f);
  matrix.set<float>(2, -std::numeric_limits<float>::infinity());
  matrix.set<float>(3, std::numeric_limits<float>::quiet_NaN());
  CHECK(matrix.toString() == "f32[2,2] {{1, 0.1}, {-inf, nan}}");
  CHECK(matrix.linearIndex({1, 0}) == 2);

  Literal half = Literal::scalar(PrimitiveType::BF16, BFloat16(0.1f));
  CHECK(half.valueToString() == "0.1");
  Literal big = Literal::scalar(PrimitiveType::F64, 1e300);
  CHECK(big.valueToString() == "1e+300");
  CHECK(Literal::scalar(PrimitiveType::F32, 10.0f).valueToString() == "10");
  CHECK(Literal::scalar(PrimitiveType::F32, 1e10f).valueToString() == "1e+10");
  CHECK(Literal::scalar(PrimitiveType::F16, Float16(-65504.0f)).valueToString() == "-65504");
  CHECK(Literal::scalar(PrimitiveType::F64, 0.1).valueToString() == "0.1");
  Literal payload = Literal::scalar(PrimitiveType::F32, floatFromBits(0x7fc00001u));
  CHECK(payload.valueToString() == "nan(0x400001)");

  Literal tuple = Literal::tuple({Literal::scalar(PrimitiveType::S8, int8_t(-3)),
                                  Literal::scalar(PrimitiveType::Pred, true)});
  CHECK(tuple.toString() == "(s8[], pred[]) (-3, true)");
  CHECK(Literal(Shape::array(PrimitiveType::S32, {0, 3})).valueToString() == "{}");
}

TEST_CASE("literal element conversions") {
  Literal ints(Shape::array(PrimitiveType::U8, {3}));
  ints.setFromInt64(0, 255);
  ints.setFromDouble(1, 7.9);
  CHECK(ints.getAsInt64(0) == 255);
  CHECK(ints.getAsInt64(1) == 7);
  CHECK(ints.getAsDouble(2) == 0.0);
  Literal copy = ints;
  CHECK(copy.bitwiseEqual(ints));
  copy.setFromInt64(2, 1);
  CHECK_FALSE(copy.bitwiseEqual(ints));
}
