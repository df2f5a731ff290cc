//===- LiteralSummaryTest.cpp - Printing large values ---------------------===//

#include "tools/lib/LiteralSummary.h"

#include <doctest/doctest.h>

using namespace mote;
using hlo::Literal;
using hlo::PrimitiveType;
using hlo::Shape;

static Literal iota(PrimitiveType type, llvm::ArrayRef<int64_t> dims) {
  Literal literal(Shape::array(type, dims));
  for (int64_t i = 0; i < literal.elementCount(); ++i)
    literal.setFromInt64(i, i);
  return literal;
}

TEST_CASE("summary: small values print in full, as Literal::toString does") {
  Literal value = iota(PrimitiveType::S32, {2, 2});
  CHECK(tools::formatLiteral(value) == "s32[2,2] {{0, 1}, {2, 3}}");
  CHECK(tools::formatLiteral(value) == value.toString());
  Literal scalar = Literal::scalar(PrimitiveType::F32, 0.5f);
  CHECK(tools::formatLiteral(scalar) == "f32[] 0.5");
}

TEST_CASE("summary: large arrays keep the edges of each dimension") {
  tools::LiteralPrintOptions options;
  options.threshold = 5;
  options.edgeItems = 2;
  CHECK(tools::formatLiteral(iota(PrimitiveType::S32, {10}), options) ==
        "s32[10] {0, 1, ..., 8, 9} /*10 elements*/");
  // 5 rows of 5: rows 0, 1, 3, 4 and within each the columns 0, 1, 3, 4.
  CHECK(tools::formatLiteral(iota(PrimitiveType::S32, {5, 5}), options) ==
        "s32[5,5] {{0, 1, ..., 3, 4}, {5, 6, ..., 8, 9}, ..., {15, 16, ..., 18, 19}, "
        "{20, 21, ..., 23, 24}} /*25 elements*/");
  // A dimension no longer than 2 * edgeItems is printed whole.
  CHECK(tools::formatLiteral(iota(PrimitiveType::U8, {2, 4}), options) ==
        "u8[2,4] {{0, 1, 2, 3}, {4, 5, 6, 7}} /*8 elements*/");
  options.full = true;
  CHECK(tools::formatLiteral(iota(PrimitiveType::S32, {10}), options) ==
        "s32[10] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}");
}

TEST_CASE("summary: tuples summarise each large leaf") {
  tools::LiteralPrintOptions options;
  options.threshold = 4;
  options.edgeItems = 1;
  Literal tuple =
      Literal::tuple({iota(PrimitiveType::S32, {6}), Literal::scalar(PrimitiveType::Pred, true)});
  CHECK(tools::formatLiteral(tuple, options) ==
        "(s32[6], pred[]) ({0, ..., 5} /*6 elements*/, true)");
}
