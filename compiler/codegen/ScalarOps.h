//===- ScalarOps.h - Small IR helpers shared by the scalar emitters -*- C++ -*-===//
#ifndef MOTE_CODEGEN_SCALAROPS_H
#define MOTE_CODEGEN_SCALAROPS_H

#include "llvm/IR/IRBuilder.h"

namespace mote::codegen {

/// |x|, copysign(magnitude, sign), without any libcall.
llvm::Value *emitFabs(llvm::IRBuilderBase &builder, llvm::Value *x);
llvm::Value *emitCopysign(llvm::IRBuilderBase &builder, llvm::Value *magnitude, llvm::Value *sign);

/// The rounding functions of C (floor, ceil, trunc, round, nearbyint), built
/// from the add-and-subtract-2^p trick, so no target needs a libcall.
enum class RoundingMode { Floor, Ceil, Trunc, HalfAwayFromZero, HalfToEven };
llvm::Value *emitRound(llvm::IRBuilderBase &builder, llvm::Value *x, RoundingMode mode);

/// x != x.
llvm::Value *emitIsNan(llvm::IRBuilderBase &builder, llvm::Value *x);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_SCALAROPS_H
