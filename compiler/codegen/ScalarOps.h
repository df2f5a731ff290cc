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

/// The module flag that says the target rounds floats to nearest even in
/// one instruction (AArch64's frintn, x86's roundps with SSE4.1), so
/// emitRound uses llvm.roundeven rather than the
/// arithmetic that needs no such instruction (llvm.roundeven would become a
/// call to libm elsewhere).
inline constexpr const char *kNativeRoundEvenFlag = "mote.native-roundeven";

/// x != x.
llvm::Value *emitIsNan(llvm::IRBuilderBase &builder, llvm::Value *x);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_SCALAROPS_H
