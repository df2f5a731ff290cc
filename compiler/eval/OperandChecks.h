//===- OperandChecks.h - Guards shared by the op evaluators -----*- C++ -*-===//
///
/// \file
/// The evaluator also runs on modules that were never verified (tests, the
/// constant folder), so every op checks the operands it indexes and the
/// result shape it writes; these helpers turn a mismatch into an error at the
/// instruction instead of an out-of-bounds access.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_EVAL_OPERANDCHECKS_H
#define MOTE_EVAL_OPERANDCHECKS_H

#include "eval/OpEvaluators.h"
#include "hlo/Diagnostics.h"

namespace mote::eval {

/// Exactly `count` operands, each an array.
llvm::Error expectArrayOperands(const hlo::Instruction &instruction, Operands operands,
                                size_t count);

/// A zero-filled result for `instruction` after checking that its shape is an
/// array of `type` with dimensions `dims` (the literal keeps the
/// instruction's layout).
llvm::Expected<hlo::Literal> makeArrayResult(const hlo::Instruction &instruction,
                                             hlo::PrimitiveType type, llvm::ArrayRef<int64_t> dims);

/// "<op> does not support element type <type>".
llvm::Error unsupportedElementType(const hlo::Instruction &instruction, hlo::PrimitiveType type);

/// Whether `type` is an integer kept in a byte but narrower than one (s2, s4, u2, u4).
bool isSubByteInteger(hlo::PrimitiveType type);

/// Brings sub-byte integers back into their range (two's complement wrap)
/// after arithmetic done on the byte that stores them. No-op for other types.
void wrapSubByteIntegers(hlo::Literal &literal);

} // namespace mote::eval

#endif // MOTE_EVAL_OPERANDCHECKS_H
