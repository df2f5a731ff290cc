//===- ElementalConvert.cpp - convert and same-width bitcast-convert ------===//
//
// convert follows the reference evaluator: float -> integer truncates toward
// zero and saturates (NaN -> 0, via llvm.fpto[su]i.sat, which every target
// lowers inline); anything -> pred is `x != 0`; conversions into f16/bf16 go
// through f32 and round to nearest even.
//
//===----------------------------------------------------------------------===//

#include "codegen/ElementTypes.h"
#include "codegen/ElementalEmitter.h"

#include "llvm/IR/Intrinsics.h"

namespace mote::codegen {

using hlo::PrimitiveType;

llvm::Value *emitConvertOp(llvm::IRBuilderBase &b, PrimitiveType from, PrimitiveType to,
                           llvm::Value *value) {
  if (from == to)
    return value;
  llvm::LLVMContext &context = b.getContext();
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
  auto intrinsic =
      hlo::isSignedInteger(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
  return b.CreateIntrinsic(intrinsic, {target, x->getType()}, {x});
}

llvm::Value *ElementalEmitter::emitConvert(const hlo::Instruction &instruction, IndexRef index) {
  return emitConvertOp(builder_, instruction.operand(0)->shape().elementType(),
                       instruction.shape().elementType(), operandAt(instruction, 0, index));
}

llvm::Value *ElementalEmitter::emitBitcastConvert(const hlo::Instruction &instruction,
                                                  IndexRef index) {
  PrimitiveType from = instruction.operand(0)->shape().elementType();
  PrimitiveType to = instruction.shape().elementType();
  llvm::LLVMContext &context = builder_.getContext();
  llvm::Value *value = operandAt(instruction, 0, index);
  // Through the storage types, which have the same width here.
  if (from == PrimitiveType::Pred)
    value = builder_.CreateZExt(value, builder_.getInt8Ty());
  value = builder_.CreateBitCast(value, storageType(context, to));
  if (to == PrimitiveType::Pred)
    value = builder_.CreateICmpNE(value, builder_.getInt8(0));
  return value;
}

} // namespace mote::codegen
