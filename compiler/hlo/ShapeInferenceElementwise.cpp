//===- ShapeInferenceElementwise.cpp - Elementwise op shapes ---------------===//
//
// Unary, binary and ternary elementwise ops, converts and reduce-precision.
// Operands must have the same dimensions; like XLA, floating-point operands
// of different precisions may meet, and the result takes the more precise.
//
//===----------------------------------------------------------------------===//

#include "hlo/ShapeInferenceRules.h"

namespace mote::hlo::inference {
namespace {

Shape withType(const Shape &shape, PrimitiveType type) {
  Shape result = withoutLayout(shape);
  result.setElementType(type);
  return result;
}

llvm::Error typeError(const OpContext &op, llvm::StringRef expected, const Shape &shape) {
  return op.error("expected " + expected + " element type, got " +
                  primitiveTypeName(shape.elementType()));
}

bool isSignedOrFloat(PrimitiveType type) { return isSignedInteger(type) || isFloatingPoint(type); }

llvm::Expected<Shape> inferUnary(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(1))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  const Shape &x = op.operand(0);
  PrimitiveType type = x.elementType();
  switch (op.instruction().opcode()) {
  case Opcode::Floor:
  case Opcode::Ceil:
  case Opcode::RoundNearestAfz:
  case Opcode::RoundNearestEven:
  case Opcode::Erf:
    if (!isFloatingPoint(type))
      return typeError(op, "a floating-point", x);
    return withoutLayout(x);
  case Opcode::IsFinite:
    if (!isFloatingPoint(type))
      return typeError(op, "a floating-point", x);
    return withType(x, PrimitiveType::Pred);
  case Opcode::Real:
  case Opcode::Imag:
    if (isComplex(type))
      return withType(x, complexComponentType(type));
    if (!isFloatingPoint(type))
      return typeError(op, "a floating-point or complex", x);
    return withoutLayout(x);
  case Opcode::Abs:
    if (isComplex(type))
      return withType(x, complexComponentType(type));
    if (!isSignedOrFloat(type))
      return typeError(op, "a signed integer, floating-point or complex", x);
    return withoutLayout(x);
  case Opcode::Sign:
    if (!isSignedOrFloat(type) && !isComplex(type))
      return typeError(op, "a signed integer, floating-point or complex", x);
    return withoutLayout(x);
  case Opcode::Negate:
    if (!isInteger(type) && !isFloatingPoint(type) && !isComplex(type))
      return typeError(op, "an integer, floating-point or complex", x);
    return withoutLayout(x);
  case Opcode::Clz:
  case Opcode::PopCount:
    if (!isInteger(type))
      return typeError(op, "an integer", x);
    return withoutLayout(x);
  case Opcode::Not:
    if (!isInteger(type) && type != PrimitiveType::Pred)
      return typeError(op, "a pred or integer", x);
    return withoutLayout(x);
  default:
    // Transcendental functions: exp, log, sin, tanh, sqrt, logistic...
    if (!isFloatingPoint(type) && !isComplex(type))
      return typeError(op, "a floating-point or complex", x);
    return withoutLayout(x);
  }
}

llvm::Expected<Shape> inferConvert(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(1))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  auto type = op.requireDeclaredArrayType();
  if (!type)
    return type.takeError();
  return withType(op.operand(0), *type);
}

llvm::Expected<Shape> inferBitcastConvert(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(1))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  auto type = op.requireDeclaredArrayType();
  if (!type)
    return type.takeError();
  const Shape &x = op.operand(0);
  PrimitiveType from = x.elementType();
  if (isComplex(from) != isComplex(*type))
    return op.error("cannot bitcast between complex and real types (" + primitiveTypeName(from) +
                    " to " + primitiveTypeName(*type) + ")");
  int fromBits = bitWidth(from), toBits = bitWidth(*type);
  if (std::max(fromBits, toBits) % std::min(fromBits, toBits) != 0)
    return op.error("cannot bitcast " + primitiveTypeName(from) + " to " +
                    primitiveTypeName(*type) + ": bit widths " + llvm::Twine(fromBits) + " and " +
                    llvm::Twine(toBits) + " do not divide");
  Shape result = withType(x, *type);
  DimVector dims(x.dims().begin(), x.dims().end());
  if (fromBits > toBits) {
    // Each element splits into a new minor dimension.
    dims.push_back(fromBits / toBits);
    result.setDims(dims);
  } else if (fromBits < toBits) {
    int64_t ratio = toBits / fromBits;
    if (dims.empty() || dims.back() != ratio)
      return op.error("bitcast from " + primitiveTypeName(from) + " to " +
                      primitiveTypeName(*type) + " needs a last dimension of size " +
                      llvm::Twine(ratio) + ", got " + x.toString(false));
    dims.pop_back();
    result.setDims(dims);
  }
  return result;
}

llvm::Expected<Shape> inferStochasticConvert(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(2))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  if (llvm::Error error = op.expectArray(1, "the random operand"))
    return std::move(error);
  const Shape &x = op.operand(0), &random = op.operand(1);
  if (!isFloatingPoint(x.elementType()))
    return typeError(op, "a floating-point operand", x);
  if (!isUnsignedInteger(random.elementType()))
    return op.error("expected unsigned random bits, got " + random.toString(false));
  if (bitWidth(random.elementType()) != bitWidth(x.elementType()))
    return op.error("random bits " + random.toString(false) + " must be as wide as the operand " +
                    x.toString(false));
  if (!sameDims(x, random))
    return op.error("operand " + x.toString(false) + " and random bits " + random.toString(false) +
                    " must have the same dimensions");
  auto type = op.requireDeclaredArrayType();
  if (!type)
    return type.takeError();
  return withType(x, *type);
}

llvm::Expected<Shape> inferReducePrecision(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(1))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  const Shape &x = op.operand(0);
  if (!isFloatingPoint(x.elementType()))
    return typeError(op, "a floating-point", x);
  if (op.attributes().exponentBits < 1)
    return op.error("expected exponent_bits >= 1, got " +
                    llvm::Twine(op.attributes().exponentBits));
  if (op.attributes().mantissaBits < 0)
    return op.error("expected mantissa_bits >= 0, got " +
                    llvm::Twine(op.attributes().mantissaBits));
  return withoutLayout(x);
}

/// An explicit `type=` must suit the operands: FLOAT or TOTALORDER for
/// floating-point and complex, SIGNED for signed and UNSIGNED for unsigned
/// integers and pred.
llvm::Error checkComparisonType(const OpContext &op, PrimitiveType type) {
  ComparisonType comparison = op.attributes().comparisonType;
  bool valid = true;
  switch (comparison) {
  case ComparisonType::Default:
    return llvm::Error::success();
  case ComparisonType::Float:
  case ComparisonType::TotalOrder:
    valid = isFloatingPoint(type) || isComplex(type);
    break;
  case ComparisonType::Signed:
    valid = isSignedInteger(type);
    break;
  case ComparisonType::Unsigned:
    valid = isUnsignedInteger(type) || type == PrimitiveType::Pred;
    break;
  }
  if (valid)
    return llvm::Error::success();
  return op.error("type=" + comparisonTypeName(comparison) + " cannot compare " +
                  primitiveTypeName(type) + " operands");
}

llvm::Expected<Shape> inferBinary(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(2))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "lhs"))
    return std::move(error);
  if (llvm::Error error = op.expectArray(1, "rhs"))
    return std::move(error);
  const Shape &lhs = op.operand(0), &rhs = op.operand(1);
  PrimitiveType lt = lhs.elementType(), rt = rhs.elementType();
  if (!sameTypeIgnoringFpPrecision(lt, rt))
    return op.error("operands have different element types: " + lhs.toString(false) + " and " +
                    rhs.toString(false));
  if (!sameDims(lhs, rhs))
    return op.error("operands must have the same dimensions, got " + lhs.toString(false) + " and " +
                    rhs.toString(false));
  PrimitiveType type = higherPrecisionType(lt, rt);
  switch (op.instruction().opcode()) {
  case Opcode::Subtract:
  case Opcode::Atan2:
  case Opcode::Power:
  case Opcode::Divide:
  case Opcode::Remainder:
  case Opcode::ShiftLeft:
  case Opcode::ShiftRightArithmetic:
  case Opcode::ShiftRightLogical:
    if (type == PrimitiveType::Pred)
      return typeError(op, "an arithmetic", lhs);
    break;
  case Opcode::And:
  case Opcode::Or:
  case Opcode::Xor:
    if (type != PrimitiveType::Pred && !isInteger(type))
      return typeError(op, "a pred or integer", lhs);
    break;
  case Opcode::Compare:
    if (llvm::Error error = checkComparisonType(op, type))
      return std::move(error);
    return withType(lhs, PrimitiveType::Pred);
  case Opcode::Complex:
    if (lt == PrimitiveType::F32 && rt == PrimitiveType::F32)
      return withType(lhs, PrimitiveType::C64);
    if (lt == PrimitiveType::F64 && rt == PrimitiveType::F64)
      return withType(lhs, PrimitiveType::C128);
    return op.error("expected two f32 or two f64 operands, got " + lhs.toString(false) + " and " +
                    rhs.toString(false));
  default:
    break;
  }
  return withType(lhs, type);
}

llvm::Expected<Shape> inferSelect(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(3))
    return std::move(error);
  for (size_t i = 0; i < 3; ++i)
    if (llvm::Error error = op.expectArray(i, i == 0 ? "the predicate" : "the operands"))
      return std::move(error);
  const Shape &pred = op.operand(0), &onTrue = op.operand(1), &onFalse = op.operand(2);
  if (!compatibleIgnoringFpPrecision(onTrue, onFalse))
    return op.error("on-true " + onTrue.toString(false) + " and on-false " +
                    onFalse.toString(false) + " must have the same shape");
  if (pred.elementType() != PrimitiveType::Pred)
    return op.error("expected a pred predicate, got " + pred.toString(false));
  if (!pred.isScalar() && !sameDims(pred, onTrue))
    return op.error("predicate " + pred.toString(false) +
                    " must be a scalar or have the dimensions of " + onTrue.toString(false));
  return withType(onTrue, higherPrecisionType(onTrue.elementType(), onFalse.elementType()));
}

llvm::Expected<Shape> inferClamp(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(3))
    return std::move(error);
  for (size_t i = 0; i < 3; ++i)
    if (llvm::Error error = op.expectArray(i, i == 0 ? "min" : i == 1 ? "the operand" : "max"))
      return std::move(error);
  const Shape &x = op.operand(1);
  for (size_t i : {0u, 2u}) {
    const Shape &bound = op.operand(i);
    llvm::StringRef name = i == 0 ? "min" : "max";
    if (!sameTypeIgnoringFpPrecision(bound.elementType(), x.elementType()))
      return op.error(name + " " + bound.toString(false) + " and operand " + x.toString(false) +
                      " have different element types");
    if (!bound.isScalar() && !sameDims(bound, x))
      return op.error(name + " " + bound.toString(false) +
                      " must be a scalar or have the dimensions of the operand " +
                      x.toString(false));
  }
  return withoutLayout(x);
}

} // namespace

llvm::Expected<Shape> inferElementwise(const OpContext &op) {
  switch (op.instruction().opcode()) {
  case Opcode::Convert:
    return inferConvert(op);
  case Opcode::BitcastConvert:
    return inferBitcastConvert(op);
  case Opcode::StochasticConvert:
    return inferStochasticConvert(op);
  case Opcode::ReducePrecision:
    return inferReducePrecision(op);
  case Opcode::Select:
    return inferSelect(op);
  case Opcode::Clamp:
    return inferClamp(op);
  default:
    break;
  }
  if (isElementwiseUnary(op.instruction().opcode()))
    return inferUnary(op);
  if (isElementwiseBinary(op.instruction().opcode()))
    return inferBinary(op);
  return op.error("shape inference does not know this op");
}

} // namespace mote::hlo::inference
