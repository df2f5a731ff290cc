//===- LowerElementwise.cpp - Elementwise StableHLO ops to HLO ------------===//

#include "stablehlo/Converter.h"
#include "stablehlo/Quantized.h"

#include "llvm/ADT/StringSwitch.h"

namespace mote::stablehlo {

using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;
using hlo::Shape;

std::optional<Opcode> elementwiseOpcode(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Opcode>>(name)
      .Case("stablehlo.abs", Opcode::Abs)
      .Case("stablehlo.cbrt", Opcode::Cbrt)
      .Case("stablehlo.ceil", Opcode::Ceil)
      .Case("stablehlo.cosine", Opcode::Cos)
      .Case("stablehlo.count_leading_zeros", Opcode::Clz)
      .Case("stablehlo.exponential", Opcode::Exp)
      .Case("stablehlo.exponential_minus_one", Opcode::Expm1)
      .Case("stablehlo.floor", Opcode::Floor)
      .Case("stablehlo.imag", Opcode::Imag)
      .Case("stablehlo.is_finite", Opcode::IsFinite)
      .Case("stablehlo.log", Opcode::Log)
      .Case("stablehlo.log_plus_one", Opcode::Log1p)
      .Case("stablehlo.logistic", Opcode::Logistic)
      .Case("stablehlo.negate", Opcode::Negate)
      .Case("stablehlo.not", Opcode::Not)
      .Case("stablehlo.popcnt", Opcode::PopCount)
      .Case("stablehlo.real", Opcode::Real)
      .Case("stablehlo.round_nearest_afz", Opcode::RoundNearestAfz)
      .Case("stablehlo.round_nearest_even", Opcode::RoundNearestEven)
      .Case("stablehlo.rsqrt", Opcode::Rsqrt)
      .Case("stablehlo.sign", Opcode::Sign)
      .Case("stablehlo.sine", Opcode::Sin)
      .Case("stablehlo.sqrt", Opcode::Sqrt)
      .Case("stablehlo.tan", Opcode::Tan)
      .Case("stablehlo.tanh", Opcode::Tanh)
      .Case("stablehlo.add", Opcode::Add)
      .Case("stablehlo.and", Opcode::And)
      .Case("stablehlo.atan2", Opcode::Atan2)
      .Case("stablehlo.complex", Opcode::Complex)
      .Case("stablehlo.divide", Opcode::Divide)
      .Case("stablehlo.maximum", Opcode::Maximum)
      .Case("stablehlo.minimum", Opcode::Minimum)
      .Case("stablehlo.multiply", Opcode::Multiply)
      .Case("stablehlo.or", Opcode::Or)
      .Case("stablehlo.power", Opcode::Power)
      .Case("stablehlo.remainder", Opcode::Remainder)
      .Case("stablehlo.shift_left", Opcode::ShiftLeft)
      .Case("stablehlo.shift_right_arithmetic", Opcode::ShiftRightArithmetic)
      .Case("stablehlo.shift_right_logical", Opcode::ShiftRightLogical)
      .Case("stablehlo.subtract", Opcode::Subtract)
      .Case("stablehlo.xor", Opcode::Xor)
      .Case("stablehlo.clamp", Opcode::Clamp)
      .Default(std::nullopt);
}

namespace {

bool isBinary(Opcode opcode) {
  switch (opcode) {
  case Opcode::Add:
  case Opcode::And:
  case Opcode::Atan2:
  case Opcode::Complex:
  case Opcode::Divide:
  case Opcode::Maximum:
  case Opcode::Minimum:
  case Opcode::Multiply:
  case Opcode::Or:
  case Opcode::Power:
  case Opcode::Remainder:
  case Opcode::ShiftLeft:
  case Opcode::ShiftRightArithmetic:
  case Opcode::ShiftRightLogical:
  case Opcode::Subtract:
  case Opcode::Xor:
    return true;
  default:
    return false;
  }
}

bool anyQuantized(const OpContext &context) {
  for (const Type &type : context.op.operandTypes)
    if (type.isQuantized())
      return true;
  for (const Type &type : context.op.resultTypes)
    if (type.isQuantized())
      return true;
  return false;
}

/// The result shape: the result type's element type on the first operand's
/// dimensions (which refines a `?` in the written type).
Shape elementwiseShape(const OpContext &context, Instruction *like) {
  Shape shape = like->shape();
  shape.setLayout(std::nullopt);
  if (!context.op.resultTypes.empty())
    shape.setElementType(context.op.resultTypes.front().element);
  return shape;
}

llvm::Error lowerElementwise(OpContext &context) {
  if (anyQuantized(context))
    return lowerQuantizedElementwise(context);
  Opcode opcode = *elementwiseOpcode(context.op.name);
  bool ternary = opcode == Opcode::Clamp;
  size_t expected = ternary ? 3 : isBinary(opcode) ? 2 : 1;
  if (llvm::Error error = context.expectCounts(expected, 1))
    return error;
  std::vector<Instruction *> operands = context.operands;
  if (ternary) {
    // clamp's bounds may be scalars.
    Instruction *x = operands[1];
    for (size_t i : {size_t(0), size_t(2)})
      if (operands[i]->shape().rank() == 0 && x->shape().rank() > 0)
        operands[i] = context.broadcastScalar(operands[i], x->shape());
    context.results = {context.add(Opcode::Clamp, elementwiseShape(context, x), operands)};
    return llvm::Error::success();
  }
  PrimitiveType type = operands.front()->shape().elementType();
  // Complex maximum and minimum order lexicographically: real part, then imaginary.
  if (hlo::isComplex(type) && (opcode == Opcode::Maximum || opcode == Opcode::Minimum)) {
    Instruction *a = operands[0], *b = operands[1];
    Instruction *realA = context.unary(Opcode::Real, a), *realB = context.unary(Opcode::Real, b);
    hlo::ComparisonDirection direction =
        opcode == Opcode::Maximum ? hlo::ComparisonDirection::GT : hlo::ComparisonDirection::LT;
    Instruction *byImag =
        context.compare(context.unary(Opcode::Imag, a), context.unary(Opcode::Imag, b), direction);
    Instruction *takeA = context.select(context.compare(realA, realB, hlo::ComparisonDirection::EQ),
                                        byImag, context.compare(realA, realB, direction));
    // Equal values: either; ties keep the first operand.
    Instruction *equal = context.binary(
        Opcode::And, context.compare(realA, realB, hlo::ComparisonDirection::EQ),
        context.compare(context.unary(Opcode::Imag, a), context.unary(Opcode::Imag, b),
                        hlo::ComparisonDirection::EQ));
    context.results = {context.select(context.binary(Opcode::Or, takeA, equal), a, b)};
    return llvm::Error::success();
  }
  // On booleans StableHLO's add is `or` and multiply is `and`.
  if (type == PrimitiveType::Pred && opcode == Opcode::Add)
    opcode = Opcode::Or;
  if (type == PrimitiveType::Pred && opcode == Opcode::Multiply)
    opcode = Opcode::And;
  Shape shape = elementwiseShape(context, operands.front());
  context.results = {context.add(opcode, shape, operands)};
  return llvm::Error::success();
}

hlo::ComparisonDirection directionNamed(llvm::StringRef name, bool &ok) {
  ok = true;
  if (name == "EQ")
    return hlo::ComparisonDirection::EQ;
  if (name == "NE")
    return hlo::ComparisonDirection::NE;
  if (name == "GE")
    return hlo::ComparisonDirection::GE;
  if (name == "GT")
    return hlo::ComparisonDirection::GT;
  if (name == "LE")
    return hlo::ComparisonDirection::LE;
  if (name == "LT")
    return hlo::ComparisonDirection::LT;
  ok = false;
  return hlo::ComparisonDirection::EQ;
}

llvm::Error lowerCompare(OpContext &context) {
  if (anyQuantized(context))
    return lowerQuantizedCompare(context);
  if (llvm::Error error = context.expectCounts(2, 1))
    return error;
  bool ok;
  hlo::ComparisonDirection direction =
      directionNamed(context.enumValue("comparison_direction"), ok);
  if (!ok)
    return context.error("expected a comparison direction (EQ, NE, GE, GT, LE, LT)");
  Instruction *compare = context.compare(context.operands[0], context.operands[1], direction);
  std::string type = context.enumValue("compare_type");
  hlo::ComparisonType comparisonType = hlo::ComparisonType::Default;
  if (type == "FLOAT")
    comparisonType = hlo::ComparisonType::Float;
  else if (type == "TOTALORDER")
    comparisonType = hlo::ComparisonType::TotalOrder;
  else if (type == "SIGNED")
    comparisonType = hlo::ComparisonType::Signed;
  else if (type == "UNSIGNED")
    comparisonType = hlo::ComparisonType::Unsigned;
  // Booleans compare as unsigned whatever the text says.
  if (context.operands[0]->shape().elementType() == PrimitiveType::Pred ||
      (comparisonType == hlo::ComparisonType::Signed &&
       hlo::isUnsignedInteger(context.operands[0]->shape().elementType())))
    comparisonType = hlo::ComparisonType::Default;
  compare->mutableAttributes().comparisonType = comparisonType;
  context.results = {compare};
  return llvm::Error::success();
}

llvm::Error lowerSelect(OpContext &context) {
  if (anyQuantized(context))
    return lowerQuantizedElementwise(context);
  if (llvm::Error error = context.expectCounts(3, 1))
    return error;
  context.results = {context.select(context.operands[0], context.operands[1], context.operands[2])};
  return llvm::Error::success();
}

llvm::Error lowerConvert(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  Instruction *x = context.operands[0];
  PrimitiveType to = context.resultType(0).element;
  // complex to real keeps the real part.
  if (hlo::isComplex(x->shape().elementType()) && !hlo::isComplex(to))
    x = context.unary(Opcode::Real, x);
  context.results = {context.convert(x, to)};
  return llvm::Error::success();
}

/// bitcast_convert between i1[..., N] and an N-bit type: element i of the
/// minor dimension is bit i (from the least significant), which neither the
/// evaluator nor code generation lays out for pred, so it is built from
/// shifts.
llvm::Expected<Instruction *> bitcastPred(OpContext &context, Instruction *operand,
                                          const Shape &result) {
  bool fromPred = operand->shape().elementType() == PrimitiveType::Pred;
  const Shape &wide = fromPred ? result : operand->shape();
  const Shape &bits = fromPred ? operand->shape() : result;
  int width = hlo::bitWidth(wide.elementType());
  if (bits.rank() != wide.rank() + 1 || bits.dim(bits.rank() - 1) != width)
    return context.error("bitcast_convert of i1 needs a minor dimension of the other type's width");
  PrimitiveType unsignedType = width == 8    ? PrimitiveType::U8
                               : width == 16 ? PrimitiveType::U16
                               : width == 32 ? PrimitiveType::U32
                                             : PrimitiveType::U64;
  Shape unsignedBits = Shape::array(unsignedType, bits.dims());
  Instruction *positions = context.add(Opcode::Iota, unsignedBits, {});
  positions->mutableAttributes().iotaDimension = bits.rank() - 1;
  if (fromPred) {
    Instruction *shifted =
        context.binary(Opcode::ShiftLeft, context.convert(operand, unsignedType), positions);
    Instruction *word = context.add(Opcode::Reduce, Shape::array(unsignedType, wide.dims()),
                                    {shifted, context.scalar(unsignedType, 0)});
    word->addCalledComputation(context.converter.binaryComputation(Opcode::Or, unsignedType));
    word->mutableAttributes().dimensions = {bits.rank() - 1};
    word->mutableAttributes().hasDimensions = true;
    if (unsignedType == result.elementType())
      return word;
    return context.add(Opcode::BitcastConvert, result, {word});
  }
  Instruction *word = operand;
  if (operand->shape().elementType() != unsignedType)
    word = context.add(Opcode::BitcastConvert, Shape::array(unsignedType, wide.dims()), {operand});
  hlo::DimVector kept;
  for (int64_t i = 0; i < wide.rank(); ++i)
    kept.push_back(i);
  Instruction *spread = context.add(Opcode::Broadcast, unsignedBits, {word});
  spread->mutableAttributes().dimensions = kept;
  spread->mutableAttributes().hasDimensions = true;
  Instruction *bit =
      context.binary(Opcode::And, context.binary(Opcode::ShiftRightLogical, spread, positions),
                     context.splat(unsignedType, 1, unsignedBits));
  return context.compare(bit, context.splat(unsignedType, 0, unsignedBits),
                         hlo::ComparisonDirection::NE);
}

llvm::Error lowerBitcastConvert(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  Shape shape = context.resultShape(0);
  if (shape.hasUnboundedDims())
    return context.unsupported("dynamic result shape");
  // To its own type it is the identity (and needs no bit layout of pred or complex).
  if (shape.compatible(context.operands[0]->shape())) {
    context.results = {context.operands[0]};
    return llvm::Error::success();
  }
  Instruction *operand = context.operands[0];
  if (operand->shape().elementType() == PrimitiveType::Pred ||
      shape.elementType() == PrimitiveType::Pred)
    return context.setResult(bitcastPred(context, operand, shape));
  context.results = {context.add(Opcode::BitcastConvert, shape, context.operands)};
  return llvm::Error::success();
}

llvm::Error lowerReducePrecision(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  auto exponent = context.integer("exponent_bits");
  if (!exponent)
    return exponent.takeError();
  auto mantissa = context.integer("mantissa_bits");
  if (!mantissa)
    return mantissa.takeError();
  Instruction *x = context.operands[0];
  Instruction *reduced = context.add(Opcode::ReducePrecision, elementwiseShape(context, x), {x});
  reduced->mutableAttributes().exponentBits = *exponent;
  reduced->mutableAttributes().mantissaBits = *mantissa;
  context.results = {reduced};
  return llvm::Error::success();
}

} // namespace

void registerElementwiseLowerings(llvm::StringMap<OpLowering> &table) {
  for (const char *name : {"stablehlo.abs",
                           "stablehlo.cbrt",
                           "stablehlo.ceil",
                           "stablehlo.cosine",
                           "stablehlo.count_leading_zeros",
                           "stablehlo.exponential",
                           "stablehlo.exponential_minus_one",
                           "stablehlo.floor",
                           "stablehlo.imag",
                           "stablehlo.is_finite",
                           "stablehlo.log",
                           "stablehlo.log_plus_one",
                           "stablehlo.logistic",
                           "stablehlo.negate",
                           "stablehlo.not",
                           "stablehlo.popcnt",
                           "stablehlo.real",
                           "stablehlo.round_nearest_afz",
                           "stablehlo.round_nearest_even",
                           "stablehlo.rsqrt",
                           "stablehlo.sign",
                           "stablehlo.sine",
                           "stablehlo.sqrt",
                           "stablehlo.tan",
                           "stablehlo.tanh",
                           "stablehlo.add",
                           "stablehlo.and",
                           "stablehlo.atan2",
                           "stablehlo.complex",
                           "stablehlo.divide",
                           "stablehlo.maximum",
                           "stablehlo.minimum",
                           "stablehlo.multiply",
                           "stablehlo.or",
                           "stablehlo.power",
                           "stablehlo.remainder",
                           "stablehlo.shift_left",
                           "stablehlo.shift_right_arithmetic",
                           "stablehlo.shift_right_logical",
                           "stablehlo.subtract",
                           "stablehlo.xor",
                           "stablehlo.clamp"})
    table[name] = lowerElementwise;
  table["stablehlo.compare"] = lowerCompare;
  table["stablehlo.select"] = lowerSelect;
  table["stablehlo.convert"] = lowerConvert;
  table["stablehlo.bitcast_convert"] = lowerBitcastConvert;
  table["stablehlo.reduce_precision"] = lowerReducePrecision;
}

} // namespace mote::stablehlo
