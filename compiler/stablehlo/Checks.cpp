//===- Checks.cpp - The StableHLO test suites' assertions as HLO ----------===//

#include "stablehlo/Checks.h"

#include "hlo/Diagnostics.h"

namespace mote::stablehlo {

using hlo::ComparisonDirection;
using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;
using hlo::Shape;

namespace {

/// pred[] that is true when every element of `predicates` is.
Instruction *all(OpContext &context, Instruction *predicates) {
  if (predicates->shape().rank() == 0)
    return predicates;
  hlo::DimVector dimensions;
  for (int64_t i = 0; i < predicates->shape().rank(); ++i)
    dimensions.push_back(i);
  Instruction *reduce = context.add(Opcode::Reduce, Shape::scalar(PrimitiveType::Pred),
                                    {predicates, context.scalar(PrimitiveType::Pred, 1)});
  reduce->addCalledComputation(
      context.converter.binaryComputation(Opcode::And, PrimitiveType::Pred));
  reduce->mutableAttributes().dimensions = dimensions;
  reduce->mutableAttributes().hasDimensions = true;
  return reduce;
}

Instruction *logicalNot(OpContext &context, Instruction *x) {
  return context.unary(Opcode::Not, x);
}
Instruction *logicalAnd(OpContext &context, Instruction *a, Instruction *b) {
  return context.binary(Opcode::And, a, b);
}
Instruction *logicalOr(OpContext &context, Instruction *a, Instruction *b) {
  return context.binary(Opcode::Or, a, b);
}

/// Exact equality; a NaN matches a NaN (the test files expect NaN results
/// where XLA gives them, e.g. sorted NaNs, which `==` alone would reject).
Instruction *equalElements(OpContext &context, Instruction *a, Instruction *b) {
  Instruction *equal = context.compare(a, b, ComparisonDirection::EQ);
  PrimitiveType type = a->shape().elementType();
  if (hlo::isComplex(type)) {
    Instruction *real =
        equalElements(context, context.unary(Opcode::Real, a), context.unary(Opcode::Real, b));
    Instruction *imag =
        equalElements(context, context.unary(Opcode::Imag, a), context.unary(Opcode::Imag, b));
    return context.binary(Opcode::And, real, imag);
  }
  if (!hlo::isFloatingPoint(type))
    return equal;
  Instruction *bothNaN = context.binary(Opcode::And, context.compare(a, a, ComparisonDirection::NE),
                                        context.compare(b, b, ComparisonDirection::NE));
  return context.binary(Opcode::Or, equal, bothNaN);
}

/// Elementwise "approximately equal" of two real float arrays.
Instruction *almostEqualReal(OpContext &context, Instruction *f, Instruction *g, double tolerance) {
  const Shape &shape = f->shape();
  f = context.convert(f, PrimitiveType::F64);
  g = context.convert(g, PrimitiveType::F64);
  Instruction *equal = equalElements(context, f, g);
  Instruction *fNaN = context.compare(f, f, ComparisonDirection::NE);
  Instruction *gNaN = context.compare(g, g, ComparisonDirection::NE);
  Instruction *zero = context.splat(PrimitiveType::F64, 0, shape);
  Instruction *fZero = context.compare(f, zero, ComparisonDirection::EQ);
  Instruction *gZero = context.compare(g, zero, ComparisonDirection::EQ);
  Instruction *fRegular =
      logicalAnd(context, context.unary(Opcode::IsFinite, f), logicalNot(context, fZero));
  Instruction *gRegular =
      logicalAnd(context, context.unary(Opcode::IsFinite, g), logicalNot(context, gZero));
  // Infinities (and NaN) only match themselves; zero may be near a small value.
  Instruction *irregular = logicalNot(context, logicalAnd(context, fRegular, gRegular));
  Instruction *neitherZero =
      logicalAnd(context, logicalNot(context, fZero), logicalNot(context, gZero));
  Instruction *rejected = logicalOr(context, logicalOr(context, fNaN, gNaN),
                                    logicalAnd(context, irregular, neitherZero));
  Shape bits = Shape::array(PrimitiveType::S64, shape.dims());
  Instruction *fNegative =
      context.compare(context.add(Opcode::BitcastConvert, bits, {f}),
                      context.splat(PrimitiveType::S64, 0, shape), ComparisonDirection::LT);
  Instruction *gNegative =
      context.compare(context.add(Opcode::BitcastConvert, bits, {g}),
                      context.splat(PrimitiveType::S64, 0, shape), ComparisonDirection::LT);
  Instruction *sameSign = context.compare(fNegative, gNegative, ComparisonDirection::EQ);
  Instruction *close =
      context.compare(context.unary(Opcode::Abs, context.binary(Opcode::Subtract, f, g)),
                      context.splat(PrimitiveType::F64, tolerance, shape), ComparisonDirection::LE);
  Instruction *accepted =
      logicalAnd(context, logicalNot(context, rejected), logicalAnd(context, sameSign, close));
  return logicalOr(context, logicalOr(context, equal, logicalAnd(context, fNaN, gNaN)), accepted);
}

Instruction *almostEqual(OpContext &context, Instruction *f, Instruction *g, double tolerance) {
  PrimitiveType type = f->shape().elementType();
  if (hlo::isComplex(type))
    return logicalAnd(context,
                      almostEqualReal(context, context.unary(Opcode::Real, f),
                                      context.unary(Opcode::Real, g), tolerance),
                      almostEqualReal(context, context.unary(Opcode::Imag, f),
                                      context.unary(Opcode::Imag, g), tolerance));
  if (hlo::isFloatingPoint(type))
    return almostEqualReal(context, f, g, tolerance);
  return equalElements(context, f, g);
}

/// The reference interpreter's ULP distance of two real float arrays, as u64:
/// subnormals count as the nearest of zero and the smallest normal, and
/// values of opposite signs add their distances from zero.
Instruction *ulpDistance(OpContext &context, Instruction *f, Instruction *g) {
  PrimitiveType type = f->shape().elementType();
  int width = hlo::bitWidth(type);
  PrimitiveType unsignedType = width == 16   ? PrimitiveType::U16
                               : width == 32 ? PrimitiveType::U32
                                             : PrimitiveType::U64;
  uint64_t smallestNormal = type == PrimitiveType::F16    ? 0x0400
                            : type == PrimitiveType::BF16 ? 0x0080
                            : type == PrimitiveType::F32  ? 0x00800000
                                                          : 0x0010000000000000;
  const Shape &shape = f->shape();
  Shape unsignedShape = Shape::array(unsignedType, shape.dims());
  auto u64 = [&](double value) { return context.splat(PrimitiveType::U64, value, shape); };
  auto magnitudeBits = [&](Instruction *x) {
    Instruction *bits = context.add(Opcode::BitcastConvert, unsignedShape, {x});
    Instruction *wide = context.convert(bits, PrimitiveType::U64);
    uint64_t mask = width == 64 ? ~(uint64_t(1) << 63) : (uint64_t(1) << (width - 1)) - 1;
    hlo::Literal literal(Shape::scalar(PrimitiveType::U64));
    literal.set<uint64_t>(0, mask);
    return context.binary(Opcode::And, wide,
                          context.broadcastScalar(context.constant(std::move(literal)), shape));
  };
  Instruction *a = magnitudeBits(f);
  Instruction *b = magnitudeBits(g);
  Instruction *z = u64(static_cast<double>(smallestNormal - 1));
  auto adjust = [&](Instruction *x) {
    // z < x ? x - z : (2x < z ? 0 : 1)
    Instruction *above = context.compare(z, x, ComparisonDirection::LT);
    Instruction *twice = context.binary(Opcode::Add, x, x);
    Instruction *small =
        context.select(context.compare(twice, z, ComparisonDirection::LT), u64(0), u64(1));
    return context.select(above, context.binary(Opcode::Subtract, x, z), small);
  };
  auto absoluteDifference = [&](Instruction *x, Instruction *y) {
    return context.select(context.compare(x, y, ComparisonDirection::GT),
                          context.binary(Opcode::Subtract, x, y),
                          context.binary(Opcode::Subtract, y, x));
  };
  Instruction *finite =
      logicalAnd(context, context.unary(Opcode::IsFinite, f), context.unary(Opcode::IsFinite, g));
  Instruction *adjustedA = adjust(a);
  Instruction *adjustedB = adjust(b);
  Shape signedShape = Shape::array(width == 16   ? PrimitiveType::S16
                                   : width == 32 ? PrimitiveType::S32
                                                 : PrimitiveType::S64,
                                   shape.dims());
  auto negative = [&](Instruction *x) {
    Instruction *bits = context.add(Opcode::BitcastConvert, signedShape, {x});
    return context.compare(bits, context.splat(signedShape.elementType(), 0, shape),
                           ComparisonDirection::LT);
  };
  Instruction *opposite = context.compare(negative(f), negative(g), ComparisonDirection::NE);
  Instruction *finiteDistance =
      context.select(opposite, context.binary(Opcode::Add, adjustedA, adjustedB),
                     absoluteDifference(adjustedA, adjustedB));
  return context.select(finite, finiteDistance, absoluteDifference(a, b));
}

/// Whether each distance lies in [minUlp, maxUlp].
Instruction *withinUlps(OpContext &context, Instruction *distance, uint64_t minUlp,
                        uint64_t maxUlp) {
  const Shape &shape = distance->shape();
  return logicalAnd(
      context,
      context.compare(distance, context.splat(PrimitiveType::U64, double(minUlp), shape),
                      ComparisonDirection::GE),
      context.compare(distance, context.splat(PrimitiveType::U64, double(maxUlp), shape),
                      ComparisonDirection::LE));
}

Instruction *closeElements(OpContext &context, Instruction *actual, Instruction *expected,
                           uint64_t minUlp, uint64_t maxUlp) {
  PrimitiveType type = actual->shape().elementType();
  if (hlo::isComplex(type)) {
    Instruction *real = ulpDistance(context, context.unary(Opcode::Real, actual),
                                    context.unary(Opcode::Real, expected));
    Instruction *imag = ulpDistance(context, context.unary(Opcode::Imag, actual),
                                    context.unary(Opcode::Imag, expected));
    return withinUlps(context, context.binary(Opcode::Maximum, real, imag), minUlp, maxUlp);
  }
  // The narrow floats (f4, f6, f8) have no ULP distance here: exact match.
  if (!hlo::isFloatingPoint(type) || hlo::isF8(type))
    return equalElements(context, actual, expected);
  // NaNs are close whatever their payloads and signs, which IEEE leaves open.
  Instruction *bothNaN =
      context.binary(Opcode::And, context.compare(actual, actual, ComparisonDirection::NE),
                     context.compare(expected, expected, ComparisonDirection::NE));
  return context.binary(
      Opcode::Or, bothNaN,
      withinUlps(context, ulpDistance(context, actual, expected), minUlp, maxUlp));
}

llvm::Error record(OpContext &context, llvm::StringRef kind, Instruction *elementwise) {
  if (!context.converter.isEntryScope(context.scope))
    return context.unsupported("checks outside the entry function's body");
  Instruction *verdict = all(context, elementwise);
  context.converter.addCheck({kind.str(), context.location()}, verdict);
  if (!context.op.resultTypes.empty())
    context.results = {verdict};
  return llvm::Error::success();
}

llvm::Error checkOperands(OpContext &context, size_t count) {
  if (context.operands.size() != count)
    return context.error("expected " + llvm::Twine(count) + " operands");
  if (count == 2 && !context.operands[0]->shape().compatible(context.operands[1]->shape()))
    return context.error(
        "the operands' shapes differ: " + context.operands[0]->shape().toString(false) + " and " +
        context.operands[1]->shape().toString(false));
  return llvm::Error::success();
}

double toleranceOf(const OpContext &context, double fallback) {
  const Attribute *tolerance = context.attribute("tolerance");
  if (!tolerance)
    return fallback;
  return tolerance->kind == Attribute::Kind::Integer ? double(tolerance->integer)
                                                     : tolerance->number;
}

/// The expected value of a `_const` check.
llvm::Expected<Instruction *> expectedConstant(OpContext &context) {
  const Attribute *value = context.attribute("value");
  if (!value || !value->type)
    return context.error("expected the expected value");
  auto literal = denseLiteral(*value, shapeOf(*value->type), context.converter);
  if (!literal)
    return literal.takeError();
  return context.constant(std::move(*literal));
}

llvm::Error lowerCheckOp(OpContext &context) {
  llvm::StringRef name = context.op.name;
  // The StableHLO interpreter's probes write .npy files in its
  // --probe-output-dir, and this check reads them back: a test of that
  // tool's file output, which compiled code and the evaluator do not have.
  if (name == "check.expect_serialized_eq")
    return context.unsupported("reads back the .npy file interpreter.probe writes in the StableHLO "
                               "interpreter's --probe-output-dir; Mote writes no probe files");
  bool isConst = name.ends_with("_const");
  if (llvm::Error error = checkOperands(context, isConst ? 1 : 2))
    return error;
  Instruction *actual = context.operands[0];
  Instruction *expected;
  if (isConst) {
    auto constant = expectedConstant(context);
    if (!constant)
      return constant.takeError();
    expected = *constant;
    if (!actual->shape().compatible(expected->shape()))
      return context.error("the value is " + actual->shape().toString(false) +
                           " but the expected constant " + expected->shape().toString(false));
  } else {
    expected = context.operands[1];
  }
  if (name == "check.expect_eq" || name == "check.expect_eq_const")
    return record(context, name, equalElements(context, actual, expected));
  if (name == "check.expect_almost_eq" || name == "check.expect_almost_eq_const")
    return record(context, name,
                  almostEqual(context, actual, expected, toleranceOf(context, 0.0001)));
  if (name == "check.expect_close") {
    uint64_t maxUlp =
        static_cast<uint64_t>(context.optionalInteger("max_ulp_difference").value_or(3));
    uint64_t minUlp =
        static_cast<uint64_t>(context.optionalInteger("min_ulp_difference").value_or(0));
    return record(context, name, closeElements(context, actual, expected, minUlp, maxUlp));
  }
  return context.unsupported("unknown check");
}

} // namespace

llvm::Error lowerCheckCustomCall(OpContext &context, llvm::StringRef target) {
  if (llvm::Error error = checkOperands(context, 2))
    return error;
  Instruction *actual = context.operands[0];
  Instruction *expected = context.operands[1];
  PrimitiveType type = expected->shape().elementType();
  if (target == "check.eq") {
    bool exact = hlo::isInteger(type) || type == PrimitiveType::Pred;
    return record(context, target,
                  exact ? equalElements(context, actual, expected)
                        : almostEqual(context, actual, expected, 0.0001));
  }
  if (target == "check.expect_eq")
    return record(context, target, equalElements(context, actual, expected));
  if (target == "check.expect_almost_eq")
    return record(context, target, almostEqual(context, actual, expected, 0.001));
  if (target == "check.expect_close")
    return record(context, target, closeElements(context, actual, expected, 0, 3));
  return context.unsupported("unknown check '" + target + "'");
}

void registerCheckLowerings(llvm::StringMap<OpLowering> &table) {
  for (const char *name :
       {"check.expect_eq", "check.expect_eq_const", "check.expect_almost_eq",
        "check.expect_almost_eq_const", "check.expect_close", "check.expect_serialized_eq"})
    table[name] = lowerCheckOp;
}

} // namespace mote::stablehlo
