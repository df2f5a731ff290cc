//===- ScalarOps.cpp - Small IR helpers shared by the scalar emitters -----===//

#include "codegen/ScalarOps.h"

#include "llvm/IR/Intrinsics.h"

namespace mote::codegen {

llvm::Value *emitFabs(llvm::IRBuilderBase &builder, llvm::Value *x) {
  return builder.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
}

llvm::Value *emitCopysign(llvm::IRBuilderBase &builder, llvm::Value *magnitude, llvm::Value *sign) {
  return builder.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, sign);
}

llvm::Value *emitIsNan(llvm::IRBuilderBase &builder, llvm::Value *x) {
  return builder.CreateFCmpUNO(x, x);
}

llvm::Value *emitRound(llvm::IRBuilderBase &builder, llvm::Value *x, RoundingMode mode) {
  llvm::Type *type = x->getType();
  // One instruction where the target has it (kNativeRoundEvenFlag), scalar
  // or vector, with the same result for every input (a quantized model
  // rounds each output so).
  const llvm::Module *module = builder.GetInsertBlock()->getModule();
  if (mode == RoundingMode::HalfToEven && module->getModuleFlag(kNativeRoundEvenFlag))
    return builder.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x);
  const bool isDouble = type->getScalarType()->isDoubleTy();
  // Every float of magnitude >= 2^p is an integer; below it, adding and
  // subtracting 2^p rounds to an integer (to nearest even, the default mode).
  llvm::Value *big = llvm::ConstantFP::get(type, isDouble ? 0x1p52 : 0x1p23);
  llvm::Value *one = llvm::ConstantFP::get(type, 1.0);
  llvm::Value *half = llvm::ConstantFP::get(type, 0.5);
  llvm::Value *magnitude = emitFabs(builder, x);
  llvm::Value *nearest = builder.CreateFSub(builder.CreateFAdd(magnitude, big), big);
  // trunc(|x|): nearest rounded up past |x| means one too many.
  llvm::Value *truncated = builder.CreateSelect(builder.CreateFCmpOGT(nearest, magnitude),
                                                builder.CreateFSub(nearest, one), nearest);
  llvm::Value *hasFraction = builder.CreateFCmpOLT(truncated, magnitude);
  llvm::Value *negative = builder.CreateFCmpOLT(x, llvm::ConstantFP::get(type, 0.0));
  llvm::Value *rounded = nullptr; // magnitude of the result
  switch (mode) {
  case RoundingMode::Trunc:
    rounded = truncated;
    break;
  case RoundingMode::HalfToEven:
    rounded = nearest;
    break;
  case RoundingMode::HalfAwayFromZero:
    rounded =
        builder.CreateSelect(builder.CreateFCmpOGE(builder.CreateFSub(magnitude, truncated), half),
                             builder.CreateFAdd(truncated, one), truncated);
    break;
  case RoundingMode::Floor:
  case RoundingMode::Ceil: {
    // Away from zero when there is a fraction and x lies on the rounding side.
    llvm::Value *awaySide = mode == RoundingMode::Floor ? negative : builder.CreateNot(negative);
    rounded = builder.CreateSelect(builder.CreateAnd(hasFraction, awaySide),
                                   builder.CreateFAdd(truncated, one), truncated);
    break;
  }
  }
  llvm::Value *result = emitCopysign(builder, rounded, x);
  // NaN, infinities and large values are their own rounding.
  return builder.CreateSelect(builder.CreateFCmpOLT(magnitude, big), result, x);
}

} // namespace mote::codegen
