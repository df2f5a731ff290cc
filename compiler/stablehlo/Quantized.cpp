//===- Quantized.cpp - Uniform quantized StableHLO to integer HLO ---------===//

#include "stablehlo/Quantized.h"

#include "hlo/Diagnostics.h"

namespace mote::stablehlo {

using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;
using hlo::Shape;

namespace {

/// `values` (one, or one per index of the quantized axis) as an array of
/// `type` shaped like `like`, broadcast along the axis.
Instruction *perAxisConstant(OpContext &context, const QuantizedType &quantized,
                             llvm::ArrayRef<double> values, PrimitiveType type, const Shape &like) {
  if (!quantized.axis || values.size() == 1)
    return context.splat(type, values.front(), like);
  hlo::Literal literal(Shape::array(type, {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i)
    literal.setFromDouble(static_cast<int64_t>(i), values[i]);
  Instruction *vector = context.constant(std::move(literal));
  Instruction *broadcast =
      context.add(Opcode::Broadcast, Shape::array(type, like.dims()), {vector});
  broadcast->mutableAttributes().dimensions = {*quantized.axis};
  broadcast->mutableAttributes().hasDimensions = true;
  return broadcast;
}

std::vector<double> zeroPointsOf(const QuantizedType &quantized) {
  return std::vector<double>(quantized.zeroPoints.begin(), quantized.zeroPoints.end());
}

bool hasZeroPoint(const QuantizedType &quantized) {
  for (int64_t zeroPoint : quantized.zeroPoints)
    if (zeroPoint != 0)
      return true;
  return false;
}

/// The storage integers less the zero point, as s32.
Instruction *centered(OpContext &context, Instruction *q, const QuantizedType &quantized) {
  Instruction *wide = context.convert(q, PrimitiveType::S32);
  if (!hasZeroPoint(quantized))
    return wide;
  return context.binary(Opcode::Subtract, wide,
                        perAxisConstant(context, quantized, zeroPointsOf(quantized),
                                        PrimitiveType::S32, wide->shape()));
}

} // namespace

/// The real values scale * (q - zero_point), in the expressed type.
Instruction *dequantize(OpContext &context, Instruction *q, const QuantizedType &quantized) {
  Instruction *real = context.convert(centered(context, q, quantized), quantized.expressed);
  return context.binary(
      Opcode::Multiply, real,
      perAxisConstant(context, quantized, quantized.scales, quantized.expressed, real->shape()));
}

/// clamp(round_nearest_even(x / scale + zero_point)) as the storage type,
/// in the spec's order: divide, add the zero point, clamp, round.
Instruction *quantize(OpContext &context, Instruction *x, const QuantizedType &quantized) {
  x = context.convert(x, quantized.expressed);
  const Shape &shape = x->shape();
  Instruction *scaled = context.binary(
      Opcode::Divide, x,
      perAxisConstant(context, quantized, quantized.scales, quantized.expressed, shape));
  if (hasZeroPoint(quantized))
    scaled = context.binary(
        Opcode::Add, scaled,
        perAxisConstant(context, quantized, zeroPointsOf(quantized), quantized.expressed, shape));
  Instruction *clamped =
      context.add(Opcode::Clamp, scaled->shape(),
                  {context.splat(quantized.expressed, double(quantized.storageMin), shape), scaled,
                   context.splat(quantized.expressed, double(quantized.storageMax), shape)});
  return context.convert(context.unary(Opcode::RoundNearestEven, clamped), quantized.storage);
}

/// From one quantized type to another through f32, in the form integer
/// kernels fuse after a contraction: convert the (zero-point-free) integers
/// to f32, multiply by the ratio of the scales, add the zero point, round,
/// clamp, convert to the storage type. The zero point is added before
/// rounding, as the spec's quantize does (round(x / scale + zero_point)):
/// at an exact tie with an odd zero point, rounding first would give the
/// other neighbour (2.5 + 1 is 4, round(2.5) + 1 is 3).
Instruction *requantize(OpContext &context, Instruction *q, const QuantizedType &from,
                        const QuantizedType &to) {
  Instruction *real = context.convert(centered(context, q, from), to.expressed);
  const Shape &shape = real->shape();
  std::vector<double> ratios;
  bool perAxis = from.axis || to.axis;
  size_t count = std::max(from.scales.size(), to.scales.size());
  for (size_t i = 0; i < count; ++i)
    ratios.push_back(from.scales[from.scales.size() == 1 ? 0 : i] /
                     to.scales[to.scales.size() == 1 ? 0 : i]);
  QuantizedType axisOwner = from.axis ? from : to;
  Instruction *scaled =
      context.binary(Opcode::Multiply, real,
                     perAxis ? perAxisConstant(context, axisOwner, ratios, to.expressed, shape)
                             : context.splat(to.expressed, ratios.front(), shape));
  if (hasZeroPoint(to))
    scaled = context.binary(Opcode::Add, scaled,
                            perAxisConstant(context, to, zeroPointsOf(to), to.expressed, shape));
  Instruction *rounded = context.unary(Opcode::RoundNearestEven, scaled);
  Instruction *clamped =
      context.add(Opcode::Clamp, rounded->shape(),
                  {context.splat(to.expressed, double(to.storageMin), shape), rounded,
                   context.splat(to.expressed, double(to.storageMax), shape)});
  return context.convert(clamped, to.storage);
}

namespace {

/// Operand `i` as real values: dequantized when quantized.
Instruction *realOperand(OpContext &context, size_t i) {
  if (i < context.op.operandTypes.size() && context.op.operandTypes[i].isQuantized())
    return dequantize(context, context.operands[i], *context.op.operandTypes[i].quantized);
  return context.operands[i];
}

void setResult(OpContext &context, Instruction *real) {
  const Type &result = context.resultType(0);
  if (result.isQuantized())
    context.results = {quantize(context, real, *result.quantized)};
  else
    context.results = {context.convert(real, result.element)};
}

llvm::Error lowerUniformQuantize(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  const Type &result = context.resultType(0);
  if (!result.isQuantized())
    return context.error("the result must be quantized");
  const Type &operand = context.operandType(0);
  if (operand.isQuantized())
    context.results = {
        requantize(context, context.operands[0], *operand.quantized, *result.quantized)};
  else
    context.results = {quantize(context, context.operands[0], *result.quantized)};
  return llvm::Error::success();
}

llvm::Error lowerUniformDequantize(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  const Type &operand = context.operandType(0);
  if (!operand.isQuantized())
    return context.error("the operand must be quantized");
  context.results = {context.convert(dequantize(context, context.operands[0], *operand.quantized),
                                     context.resultType(0).element)};
  return llvm::Error::success();
}

} // namespace

llvm::Error lowerQuantizedElementwise(OpContext &context) {
  if (context.op.operandTypes.size() != context.operands.size() ||
      context.op.resultTypes.size() != 1)
    return context.error("expected a type for each operand and one result");
  std::vector<Instruction *> reals;
  for (size_t i = 0; i < context.operands.size(); ++i)
    reals.push_back(realOperand(context, i));
  llvm::StringRef name = context.op.name;
  Instruction *real;
  if (name == "stablehlo.select") {
    real = context.select(reals[0], reals[1], reals[2]);
  } else {
    std::optional<Opcode> opcode = elementwiseOpcode(name);
    if (!opcode)
      return context.unsupported("quantized operands");
    if (*opcode == Opcode::Clamp) {
      for (size_t i : {size_t(0), size_t(2)})
        if (reals[i]->shape().rank() == 0 && reals[1]->shape().rank() > 0)
          reals[i] = context.broadcastScalar(reals[i], reals[1]->shape());
      real = context.add(Opcode::Clamp, reals[1]->shape(), reals);
    } else if (reals.size() == 1) {
      real = context.unary(*opcode, reals[0]);
    } else {
      real = context.binary(*opcode, reals[0], reals[1]);
    }
  }
  setResult(context, real);
  return llvm::Error::success();
}

llvm::Error lowerQuantizedCompare(OpContext &context) {
  Instruction *lhs = realOperand(context, 0);
  Instruction *rhs = realOperand(context, 1);
  std::string direction = context.enumValue("comparison_direction");
  static const std::pair<const char *, hlo::ComparisonDirection> kDirections[] = {
      {"EQ", hlo::ComparisonDirection::EQ}, {"NE", hlo::ComparisonDirection::NE},
      {"GE", hlo::ComparisonDirection::GE}, {"GT", hlo::ComparisonDirection::GT},
      {"LE", hlo::ComparisonDirection::LE}, {"LT", hlo::ComparisonDirection::LT}};
  for (auto [spelling, value] : kDirections)
    if (direction == spelling) {
      context.results = {context.compare(lhs, rhs, value)};
      return llvm::Error::success();
    }
  return context.error("expected a comparison direction");
}

/// dot_general and convolution: the centered integers contract in s32; a
/// result of another quantized type or a float is rescaled from there.
llvm::Error lowerQuantizedContraction(OpContext &context) {
  if (llvm::Error error = context.expectCounts(2, 1))
    return error;
  const Type &lhsType = context.operandType(0), &rhsType = context.operandType(1);
  const Type &resultType = context.resultType(0);
  bool isDot = context.op.name != "stablehlo.convolution";
  auto contract = [&](Instruction *lhs, Instruction *rhs,
                      PrimitiveType type) -> llvm::Expected<Instruction *> {
    if (!isDot)
      return convolution(context, lhs, rhs, Shape::scalar(type));
    auto dot = dotDimensions(context);
    if (!dot)
      return dot.takeError();
    return context.addInferred(
        Opcode::Dot, {lhs, rhs},
        [&](Instruction &instruction) { instruction.mutableAttributes().dotDimensions = *dot; },
        Shape::scalar(type));
  };
  if (!lhsType.isQuantized() || !rhsType.isQuantized()) {
    // Hybrid: float lhs, quantized weights; the weights are dequantized.
    Instruction *lhs = realOperand(context, 0), *rhs = realOperand(context, 1);
    PrimitiveType type = lhs->shape().elementType();
    auto result = contract(lhs, context.convert(rhs, type), type);
    if (!result)
      return result.takeError();
    setResult(context, *result);
    return llvm::Error::success();
  }
  const QuantizedType &lhsQ = *lhsType.quantized, &rhsQ = *rhsType.quantized;
  if (lhsQ.axis)
    return context.unsupported("per-axis quantized lhs");
  // Without zero points the storage integers contract directly into s32.
  Instruction *lhs =
      hasZeroPoint(lhsQ) ? centered(context, context.operands[0], lhsQ) : context.operands[0];
  Instruction *rhs =
      hasZeroPoint(rhsQ) ? centered(context, context.operands[1], rhsQ) : context.operands[1];
  if (lhs->shape().elementType() != rhs->shape().elementType()) {
    lhs = context.convert(lhs, PrimitiveType::S32);
    rhs = context.convert(rhs, PrimitiveType::S32);
  }
  auto accumulator = contract(lhs, rhs, PrimitiveType::S32);
  if (!accumulator)
    return accumulator.takeError();
  // The accumulator's own quantized type: scale lhs * rhs, no zero point.
  QuantizedType accumulated;
  accumulated.storage = PrimitiveType::S32;
  accumulated.expressed = lhsQ.expressed;
  accumulated.storageMin = INT32_MIN;
  accumulated.storageMax = INT32_MAX;
  accumulated.axis = rhsQ.axis;
  if (rhsQ.axis) {
    // The rhs's per-axis scales follow its output-feature dimension, which
    // lands in the result at a different position.
    return context.unsupported("per-axis quantized weights");
  }
  accumulated.scales = {lhsQ.scales.front() * rhsQ.scales.front()};
  accumulated.zeroPoints = {0};
  if (!resultType.isQuantized()) {
    context.results = {
        context.convert(dequantize(context, *accumulator, accumulated), resultType.element)};
    return llvm::Error::success();
  }
  const QuantizedType &resultQ = *resultType.quantized;
  bool sameAsAccumulator = resultQ.storage == PrimitiveType::S32 && !hasZeroPoint(resultQ) &&
                           !resultQ.axis &&
                           std::abs(resultQ.scales.front() - accumulated.scales.front()) <=
                               1e-6 * accumulated.scales.front();
  context.results = {sameAsAccumulator ? *accumulator
                                       : requantize(context, *accumulator, accumulated, resultQ)};
  return llvm::Error::success();
}

void registerQuantizedLowerings(llvm::StringMap<OpLowering> &table) {
  table["stablehlo.uniform_quantize"] = lowerUniformQuantize;
  table["stablehlo.uniform_dequantize"] = lowerUniformDequantize;
}

} // namespace mote::stablehlo
