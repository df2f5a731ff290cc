//===- RoundedBounds.h - f16 maximum and minimum of a rounded value -*- C++ -*-===//
#ifndef MOTE_CODEGEN_ROUNDEDBOUNDS_H
#define MOTE_CODEGEN_ROUNDEDBOUNDS_H

#include "hlo/Opcode.h"

#include "llvm/IR/IRBuilder.h"

namespace mote::codegen {

/// maximum or minimum of f16 bits `lhs`, which the target's conversion just
/// rounded from an f32 value s, and a constant `rhs` that is a finite
/// number: s bounded by the f32 edge of `rhs`'s rounding interval, then
/// rounded once (RoundedBounds.cpp). Null for any other operands.
llvm::Value *emitRoundedBound(llvm::IRBuilderBase &builder, hlo::Opcode opcode, llvm::Value *lhs,
                              llvm::Value *rhs);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_ROUNDEDBOUNDS_H
