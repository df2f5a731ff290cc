//===- Chlo.cpp - CHLO ops JAX leaves in, as HLO --------------------------===//
///
/// \file
/// The CHLO ops with an HLO opcode of their own (acos ... tan, erf, top_k)
/// map to it (complex asin excepted: ChloComplexAsin.cpp); the broadcasting binary ops broadcast
/// numpy-style, then apply the HLO op; is_inf, next_after, constant_like and mulhi are a few HLO
/// ops each. The special functions (lgamma, digamma, erf_inv, ...) are in
/// ChloSpecial.cpp.
///
//===----------------------------------------------------------------------===//

#include "stablehlo/Chlo.h"

#include "hlo/Diagnostics.h"

#include "llvm/ADT/StringSwitch.h"

#include <limits>

namespace mote::stablehlo {

using hlo::ComparisonDirection;
using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;
using hlo::Shape;

namespace {

std::optional<Opcode> directOpcode(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Opcode>>(name)
      .Case("chlo.acos", Opcode::Acos)
      .Case("chlo.asin", Opcode::Asin)
      .Case("chlo.atan", Opcode::Atan)
      .Case("chlo.acosh", Opcode::Acosh)
      .Case("chlo.asinh", Opcode::Asinh)
      .Case("chlo.atanh", Opcode::Atanh)
      .Case("chlo.tan", Opcode::Tan)
      .Case("chlo.erf", Opcode::Erf)
      .Default(std::nullopt);
}

llvm::Error lowerDirect(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  context.results = {context.unary(*directOpcode(context.op.name), context.operands[0])};
  return llvm::Error::success();
}

llvm::Error lowerIsInf(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  Instruction *x = context.operands[0];
  const Shape &shape = x->shape();
  PrimitiveType type = shape.elementType();
  double infinity = std::numeric_limits<double>::infinity();
  llvm::StringRef name = context.op.name;
  if (name == "chlo.is_inf")
    context.results = {context.compare(context.unary(Opcode::Abs, x),
                                       context.splat(type, infinity, shape),
                                       ComparisonDirection::EQ)};
  else
    context.results = {context.compare(
        x, context.splat(type, name == "chlo.is_pos_inf" ? infinity : -infinity, shape),
        ComparisonDirection::EQ)};
  return llvm::Error::success();
}

/// The next representable value after x towards y (IEEE nextafter).
llvm::Error lowerNextAfter(OpContext &context) {
  if (llvm::Error error = context.expectCounts(2, 1))
    return error;
  Instruction *x = context.operands[0], *y = context.operands[1];
  const Shape &shape = x->shape();
  PrimitiveType type = shape.elementType();
  int width = hlo::bitWidth(type);
  PrimitiveType intType = width == 16   ? PrimitiveType::S16
                          : width == 32 ? PrimitiveType::S32
                                        : PrimitiveType::S64;
  Shape intShape = Shape::array(intType, shape.dims());
  Instruction *bits = context.add(Opcode::BitcastConvert, intShape, {x});
  Instruction *zero = context.splat(type, 0, shape);
  Instruction *up =
      context.compare(context.compare(x, y, ComparisonDirection::LT),
                      context.compare(x, zero, ComparisonDirection::GT), ComparisonDirection::EQ);
  Instruction *stepped =
      context.select(up, context.binary(Opcode::Add, bits, context.splat(intType, 1, shape)),
                     context.binary(Opcode::Subtract, bits, context.splat(intType, 1, shape)));
  Instruction *result = context.add(Opcode::BitcastConvert, shape, {stepped});
  // From zero, the smallest subnormal with y's sign: bits 1, with y's sign bit.
  Instruction *yBits = context.add(Opcode::BitcastConvert, intShape, {y});
  Instruction *yNegative =
      context.compare(yBits, context.splat(intType, 0, shape), ComparisonDirection::LT);
  hlo::Literal signBit(Shape::scalar(intType));
  signBit.setFromInt64(0, width == 64 ? INT64_MIN : -(int64_t(1) << (width - 1)));
  Instruction *sign = context.broadcastScalar(context.constant(std::move(signBit)), shape);
  Instruction *tiny = context.add(
      Opcode::BitcastConvert, shape,
      {context.binary(Opcode::Or, context.select(yNegative, sign, context.splat(intType, 0, shape)),
                      context.splat(intType, 1, shape))});
  result = context.select(context.compare(x, zero, ComparisonDirection::EQ), tiny, result);
  result = context.select(context.compare(x, y, ComparisonDirection::EQ), y, result);
  Instruction *nan = context.splat(type, std::numeric_limits<double>::quiet_NaN(), shape);
  Instruction *anyNaN = context.binary(Opcode::Or, context.compare(x, x, ComparisonDirection::NE),
                                       context.compare(y, y, ComparisonDirection::NE));
  context.results = {context.select(anyNaN, nan, result)};
  return llvm::Error::success();
}

llvm::Error lowerTopK(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 2))
    return error;
  auto k = context.integer("k");
  if (!k)
    return k.takeError();
  Shape shape = Shape::tuple({context.resultShape(0), context.resultShape(1)});
  Instruction *topK = context.add(Opcode::TopK, shape, context.operands);
  topK->mutableAttributes().k = *k;
  topK->mutableAttributes().largest = true;
  context.results = {context.getTupleElement(topK, 0), context.getTupleElement(topK, 1)};
  return llvm::Error::success();
}

llvm::Error lowerConstantLike(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  const Attribute *value = context.attribute("value");
  if (!value)
    return context.error("expected a value");
  Shape shape = context.operands[0]->shape();
  PrimitiveType type = context.resultType(0).element;
  double number = value->kind == Attribute::Kind::Integer ? double(value->integer)
                  : value->kind == Attribute::Kind::Bool  ? double(value->boolean)
                                                          : value->number;
  context.results = {context.splat(type, number, shape)};
  return llvm::Error::success();
}

/// The high 64 bits of the 128-bit product of two u64 arrays, from their
/// 32-bit halves (Hacker's Delight, mulhu).
Instruction *mulhiU64(OpContext &context, Instruction *a, Instruction *b) {
  const Shape &shape = a->shape();
  auto u64 = [&](double value) { return context.splat(PrimitiveType::U64, value, shape); };
  Instruction *mask = u64(4294967295.0), *shift = u64(32);
  auto low = [&](Instruction *x) { return context.binary(Opcode::And, x, mask); };
  auto high = [&](Instruction *x) { return context.binary(Opcode::ShiftRightLogical, x, shift); };
  auto mul = [&](Instruction *x, Instruction *y) { return context.binary(Opcode::Multiply, x, y); };
  auto add = [&](Instruction *x, Instruction *y) { return context.binary(Opcode::Add, x, y); };
  Instruction *aLow = low(a), *aHigh = high(a), *bLow = low(b), *bHigh = high(b);
  Instruction *t = add(mul(aHigh, bLow), high(mul(aLow, bLow)));
  Instruction *w1 = add(mul(aLow, bHigh), low(t));
  return add(add(mul(aHigh, bHigh), high(t)), high(w1));
}

/// The high half of the product of two integers of the same width.
llvm::Error lowerMulhi(OpContext &context) {
  if (llvm::Error error = context.expectCounts(2, 1))
    return error;
  Instruction *a = context.operands[0], *b = context.operands[1];
  PrimitiveType type = a->shape().elementType();
  int width = hlo::bitWidth(type);
  bool isSigned = hlo::isSignedInteger(type);
  if (width == 64) {
    // Unsigned, then less b where a is negative and a where b is (two's complement).
    Shape unsignedShape = Shape::array(PrimitiveType::U64, a->shape().dims());
    Instruction *ua = isSigned ? context.add(Opcode::BitcastConvert, unsignedShape, {a}) : a;
    Instruction *ub = isSigned ? context.add(Opcode::BitcastConvert, unsignedShape, {b}) : b;
    Instruction *high = mulhiU64(context, ua, ub);
    if (isSigned) {
      Instruction *zero = context.splat(PrimitiveType::U64, 0, unsignedShape);
      Instruction *signedZero = context.splat(type, 0, a->shape());
      high = context.binary(
          Opcode::Subtract, high,
          context.select(context.compare(a, signedZero, ComparisonDirection::LT), ub, zero));
      high = context.binary(
          Opcode::Subtract, high,
          context.select(context.compare(b, signedZero, ComparisonDirection::LT), ua, zero));
      high = context.add(Opcode::BitcastConvert, a->shape(), {high});
    }
    context.results = {high};
    return llvm::Error::success();
  }
  PrimitiveType wide = isSigned ? PrimitiveType::S64 : PrimitiveType::U64;
  Instruction *product =
      context.binary(Opcode::Multiply, context.convert(a, wide), context.convert(b, wide));
  Instruction *high =
      context.binary(isSigned ? Opcode::ShiftRightArithmetic : Opcode::ShiftRightLogical, product,
                     context.splat(wide, width, product->shape()));
  context.results = {context.convert(high, type)};
  return llvm::Error::success();
}

} // namespace

/// `x` broadcast numpy-style to `result`: its dimensions go to the trailing
/// ones, or to `broadcast_dimensions` when the op gives them.
llvm::Expected<Instruction *> broadcastTo(OpContext &context, Instruction *x, const Shape &result) {
  const Shape &shape = x->shape();
  if (shape.dims() == result.dims())
    return x;
  llvm::SmallVector<int64_t, 4> dimensions;
  if (llvm::Error error = context.integers("broadcast_dimensions", dimensions, true))
    return std::move(error);
  if (dimensions.size() != static_cast<size_t>(shape.rank())) {
    dimensions.clear();
    for (int64_t i = 0; i < shape.rank(); ++i)
      dimensions.push_back(result.rank() - shape.rank() + i);
  }
  return broadcastInDim(context, x, Shape::array(shape.elementType(), result.dims()), dimensions);
}

namespace {

llvm::Error lowerBroadcastBinary(OpContext &context) {
  if (llvm::Error error = context.expectCounts(context.operands.size(), 1))
    return error;
  Shape result = context.resultShape(0);
  if (result.hasUnboundedDims())
    return context.unsupported("dynamic result shape");
  std::vector<Instruction *> operands;
  for (Instruction *operand : context.operands) {
    auto broadcast = broadcastTo(context, operand, result);
    if (!broadcast)
      return broadcast.takeError();
    operands.push_back(*broadcast);
  }
  context.operands = operands;
  llvm::StringRef base = llvm::StringRef(context.op.name).drop_front(strlen("chlo.broadcast_"));
  std::string equivalent = ("stablehlo." + base).str();
  if (base == "next_after" || base == "polygamma" || base == "zeta")
    equivalent = ("chlo." + base).str();
  if (base == "select")
    equivalent = "stablehlo.select";
  Operation rewritten = context.op;
  rewritten.name = equivalent;
  OpContext inner(context.converter, rewritten, context.scope, operands);
  OpLowering lowering = findLowering(equivalent);
  if (!lowering)
    return context.unsupported("no lowering for " + equivalent);
  if (llvm::Error error = lowering(inner))
    return error;
  context.results = inner.results;
  return llvm::Error::success();
}

} // namespace

void registerChloLowerings(llvm::StringMap<OpLowering> &table) {
  for (const char *name : {"chlo.acos", "chlo.asin", "chlo.atan", "chlo.acosh", "chlo.asinh",
                           "chlo.atanh", "chlo.tan", "chlo.erf"})
    table[name] = lowerDirect;
  table["chlo.is_inf"] = lowerIsInf;
  table["chlo.is_pos_inf"] = lowerIsInf;
  table["chlo.is_neg_inf"] = lowerIsInf;
  table["chlo.next_after"] = lowerNextAfter;
  table["chlo.top_k"] = lowerTopK;
  table["chlo.constant_like"] = lowerConstantLike;
  table["chlo.mulhi"] = lowerMulhi;
  for (const char *name : {"chlo.broadcast_add",
                           "chlo.broadcast_and",
                           "chlo.broadcast_atan2",
                           "chlo.broadcast_compare",
                           "chlo.broadcast_complex",
                           "chlo.broadcast_divide",
                           "chlo.broadcast_maximum",
                           "chlo.broadcast_minimum",
                           "chlo.broadcast_multiply",
                           "chlo.broadcast_next_after",
                           "chlo.broadcast_or",
                           "chlo.broadcast_polygamma",
                           "chlo.broadcast_power",
                           "chlo.broadcast_remainder",
                           "chlo.broadcast_select",
                           "chlo.broadcast_shift_left",
                           "chlo.broadcast_shift_right_arithmetic",
                           "chlo.broadcast_shift_right_logical",
                           "chlo.broadcast_subtract",
                           "chlo.broadcast_xor",
                           "chlo.broadcast_zeta"})
    table[name] = lowerBroadcastBinary;
  registerChloSpecialLowerings(table);
  registerChloAsinLowering(table);
  registerChloRaggedDotLowering(table);
  registerChloScanLowering(table);
}

} // namespace mote::stablehlo
