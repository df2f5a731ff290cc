//===- ElementalConvert.cpp - convert, bitcast-convert, real/imag/complex -===//
//
// convert follows the reference evaluator: float -> integer truncates toward
// zero and saturates (NaN -> 0, via llvm.fpto[su]i.sat, which every target
// lowers inline; narrower integers clamp explicitly); anything -> pred is
// `x != 0`; conversions into f16/bf16 go through f32 and round to nearest
// even, into f4/f6/f8 once from the source value (integers through f64). A
// real value becomes the real part of a complex one (imaginary part +0);
// complex values convert part by part. bitcast-convert reinterprets the bits
// of same-width real types (HLO has no bitcast between complex and real
// types).
//
//===----------------------------------------------------------------------===//

#include "codegen/ComplexOps.h"
#include "codegen/ElementTypes.h"
#include "codegen/ElementalEmitter.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/TargetParser/Triple.h"

#include <cmath>

namespace mote::codegen {

using hlo::Opcode;
using hlo::PrimitiveType;

llvm::Value *emitConvertOp(llvm::IRBuilderBase &b, PrimitiveType from, PrimitiveType to,
                           llvm::Value *value, bool inRange) {
  if (from == to)
    return value;
  llvm::LLVMContext &context = b.getContext();
  if (hlo::isComplex(to)) {
    PrimitiveType part = hlo::complexComponentType(to);
    if (!hlo::isComplex(from)) {
      llvm::Value *re = emitConvertOp(b, from, part, value);
      return joinComplex(b, {re, llvm::ConstantFP::get(re->getType(), 0.0)});
    }
    Complex z = splitComplex(b, value);
    PrimitiveType fromPart = hlo::complexComponentType(from);
    return joinComplex(
        b, {emitConvertOp(b, fromPart, part, z.re), emitConvertOp(b, fromPart, part, z.im)});
  }
  if (hlo::isComplex(from)) // isElemental refuses complex -> real
    return nullptr;
  if (to == PrimitiveType::Pred) {
    if (hlo::isFloatingPoint(from)) {
      llvm::Value *x = toCompute(b, from, value);
      return b.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));
    }
    return b.CreateICmpNE(value, llvm::Constant::getNullValue(value->getType()));
  }
  const bool fromFloat = hlo::isFloatingPoint(from);
  const bool toFloat = hlo::isFloatingPoint(to);
  if (!fromFloat && !toFloat) {
    // pred and unsigned sources zero-extend, signed ones sign-extend.
    return b.CreateIntCast(value, valueType(context, to), hlo::isSignedInteger(from));
  }
  if (hlo::isF8(to)) {
    // One rounding from the source value: integers through f64 (exact up to
    // 2^53), floats from their own type (f16 and bf16 from f32).
    llvm::Value *x = !fromFloat
                         ? (hlo::isSignedInteger(from) ? b.CreateSIToFP(value, b.getDoubleTy())
                                                       : b.CreateUIToFP(value, b.getDoubleTy()))
                         : toCompute(b, from, value);
    return emitFloatToNarrow(b, to, x);
  }
  if (!fromFloat) {
    llvm::Type *target = computeType(context, to);
    llvm::Value *converted =
        hlo::isSignedInteger(from) ? b.CreateSIToFP(value, target) : b.CreateUIToFP(value, target);
    return fromCompute(b, to, converted);
  }
  llvm::Value *x = toCompute(b, from, value);
  if (toFloat) {
    llvm::Type *target = computeType(context, to);
    if (x->getType() != target)
      x = target->getPrimitiveSizeInBits() > x->getType()->getPrimitiveSizeInBits()
              ? b.CreateFPExt(x, target)
              : b.CreateFPTrunc(x, target);
    return fromCompute(b, to, x);
  }
  llvm::Type *target = valueType(context, to);
  const bool isSigned = hlo::isSignedInteger(to);
  const unsigned bits = target->getPrimitiveSizeInBits();
  if (bits >= 32) {
    auto intrinsic = isSigned ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b.CreateIntrinsic(intrinsic, {target, x->getType()}, {x});
  }
  // Narrower results: clamped into range first (bounds every float type
  // holds exactly), NaN to 0, then a plain conversion through s32. The same
  // values, but vectors of it lower to a conversion instruction a register,
  // where LLVM 16 splits saturating conversions into one per lane (a
  // quantized model's rescale to s8 on x86).
  const double low = isSigned ? -std::ldexp(1.0, int(bits) - 1) : 0.0;
  const double high = std::ldexp(1.0, isSigned ? int(bits) - 1 : int(bits)) - 1.0;
  llvm::Value *clamped = x;
  if (!inRange) {
    llvm::Value *lowValue = llvm::ConstantFP::get(x->getType(), low);
    llvm::Value *highValue = llvm::ConstantFP::get(x->getType(), high);
    clamped = b.CreateSelect(b.CreateFCmpOLT(x, lowValue), lowValue, x);
    clamped = b.CreateSelect(b.CreateFCmpOGT(clamped, highValue), highValue, clamped);
  }
  llvm::Value *word;
  if (inRange && !llvm::Triple(b.GetInsertBlock()->getModule()->getTargetTriple()).isX86()) {
    // A saturating conversion is one instruction outside x86 (NaN to 0
    // included: AArch64's fcvtzs, Arm's vcvt), vectors too.
    word = b.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {b.getInt32Ty(), x->getType()}, {x});
  } else {
    word = b.CreateFPToSI(clamped, b.getInt32Ty());
    word = b.CreateSelect(b.CreateFCmpUNO(x, x), b.getInt32(0), word);
  }
  return b.CreateTrunc(word, target);
}

std::optional<double> scalarConstantValue(const hlo::Instruction &instruction) {
  const hlo::Instruction *value = &instruction;
  if (value->opcode() == Opcode::Broadcast && value->operandCount() == 1)
    value = value->operand(0);
  const hlo::Literal *literal = value->constantValue();
  if (!literal || !value->shape().isArray() || value->shape().elementCount() != 1 ||
      !(hlo::isFloatingPoint(value->shape().elementType()) ||
        hlo::isInteger(value->shape().elementType())))
    return std::nullopt;
  return literal->getAsDouble(0);
}

llvm::Value *ElementalEmitter::emitConvert(const hlo::Instruction &instruction, IndexRef index) {
  const PrimitiveType to = instruction.shape().elementType();
  auto resolve = [&](const hlo::Instruction &value) -> const hlo::Instruction & {
    if (fusion_ && value.opcode() == Opcode::Parameter)
      return *fusion_->operand(size_t(value.attributes().parameterNumber));
    return value;
  };
  if (std::optional<Requantization> match = matchRequantization(instruction, resolve))
    if (roundsInIntegers(llvm::Triple(builder_.GetInsertBlock()->getModule()->getTargetTriple())))
      return emitRequantization(*match, instruction, index);
  // A clamp to bounds the integer type holds leaves nothing to clamp.
  const hlo::Instruction &operand = *instruction.operand(0);
  bool inRange = false;
  if (operand.opcode() == Opcode::Clamp && hlo::isInteger(to) && hlo::bitWidth(to) < 32) {
    const std::optional<double> low = scalarConstantValue(*operand.operand(0));
    const std::optional<double> high = scalarConstantValue(*operand.operand(2));
    const int bits = hlo::bitWidth(to);
    const double min = hlo::isSignedInteger(to) ? -std::ldexp(1.0, bits - 1) : 0.0;
    const double max = std::ldexp(1.0, hlo::isSignedInteger(to) ? bits - 1 : bits) - 1.0;
    inRange = low && high && *low >= min && *high <= max && *low <= *high;
  }
  return emitConvertOp(builder_, operand.shape().elementType(), to,
                       operandAt(instruction, 0, index), inRange);
}

namespace {

/// A (real) value as an integer of its bitcast width.
llvm::Value *toBits(llvm::IRBuilderBase &b, PrimitiveType type, llvm::Value *value) {
  if (type == PrimitiveType::Pred)
    return b.CreateZExt(value, b.getInt8Ty());
  return b.CreateBitCast(value, b.getIntNTy(bitcastWidth(type)));
}

llvm::Value *fromBits(llvm::IRBuilderBase &b, PrimitiveType type, llvm::Value *bits) {
  llvm::LLVMContext &context = b.getContext();
  if (type == PrimitiveType::Pred)
    return b.CreateICmpNE(bits, b.getInt8(0));
  return b.CreateBitCast(bits, valueType(context, type));
}

} // namespace

int bitcastWidth(PrimitiveType type) {
  return type == PrimitiveType::Pred ? 8 : hlo::bitWidth(type);
}

llvm::Value *ElementalEmitter::emitBitcastConvert(const hlo::Instruction &instruction,
                                                  IndexRef index) {
  PrimitiveType from = instruction.operand(0)->shape().elementType();
  PrimitiveType to = instruction.shape().elementType();
  const int fromWidth = bitcastWidth(from), toWidth = bitcastWidth(to);
  if (fromWidth == toWidth)
    return fromBits(builder_, to, toBits(builder_, from, operandAt(instruction, 0, index)));
  // Between widths the narrow side has an extra minor dimension holding the
  // wide value's little-endian pieces: piece j is bits [j * n, (j + 1) * n).
  if (fromWidth > toWidth) {
    IndexRef wideIndex = index.drop_back();
    llvm::Value *wide = toBits(builder_, from, operandAt(instruction, 0, wideIndex));
    llvm::Value *shift =
        builder_.CreateMul(builder_.CreateZExtOrTrunc(index.back(), wide->getType()),
                           llvm::ConstantInt::get(wide->getType(), toWidth));
    llvm::Value *piece =
        builder_.CreateTrunc(builder_.CreateLShr(wide, shift), builder_.getIntNTy(toWidth));
    return fromBits(builder_, to, piece);
  }
  llvm::Type *wideType = builder_.getIntNTy(toWidth);
  llvm::Value *wide = llvm::ConstantInt::get(wideType, 0);
  llvm::SmallVector<llvm::Value *, 6> pieceIndex(index.begin(), index.end());
  pieceIndex.push_back(nullptr);
  for (int piece = 0; piece < toWidth / fromWidth; ++piece) {
    pieceIndex.back() = indexConstant(piece);
    llvm::Value *bits = toBits(builder_, from, operandAt(instruction, 0, pieceIndex));
    wide = builder_.CreateOr(
        wide, builder_.CreateShl(builder_.CreateZExt(bits, wideType), uint64_t(piece) * fromWidth));
  }
  return fromBits(builder_, to, wide);
}

llvm::Value *ElementalEmitter::emitComplexParts(const hlo::Instruction &instruction,
                                                IndexRef index) {
  llvm::Value *value = operandAt(instruction, 0, index);
  PrimitiveType type = instruction.operand(0)->shape().elementType();
  switch (instruction.opcode()) {
  case hlo::Opcode::Complex:
    return joinComplex(builder_, {value, operandAt(instruction, 1, index)});
  case hlo::Opcode::Real:
    return hlo::isComplex(type) ? splitComplex(builder_, value).re : value;
  default: // imag: of a real value, +0 (all-zero bits in every format)
    return hlo::isComplex(type) ? splitComplex(builder_, value).im : zeroValue(builder_, type);
  }
}

} // namespace mote::codegen
