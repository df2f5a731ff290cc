//===- Verifier.h - Structural and shape checks for HLO ---------*- C++ -*-===//
#ifndef MOTE_HLO_VERIFIER_H
#define MOTE_HLO_VERIFIER_H

#include "hlo/Module.h"

#include "llvm/Support/Error.h"

namespace mote::hlo {

/// Checks that `module` is well formed: an entry computation, every computation
/// has a root and parameters numbered 0..N-1 without gaps, operands defined
/// before use in the same computation, operand counts, every instruction's
/// shape equal to inferShape() (ignoring layouts), called computations'
/// signatures (e.g. a reduce's to_apply takes 2N scalars and returns N),
/// every constant holding a value of its shape (or marked elided, `{...}`),
/// each fusion's computation called by that fusion alone, and
/// entry_computation_layout agreeing with the entry's parameters and root.
/// As in XLA's default verifier, floating-point operands of one op share a
/// type (no implicit bf16/f32 mixing) except where the op names its result
/// type (dot, convolution) or only passes values through (tuple, call...).
/// Shapes are checked in the computations the entry reaches; a computation
/// nothing calls only gets the structural checks (it is never compiled or run).
/// Returns the first problem as a LocatedError.
llvm::Error verifyModule(const Module &module);

/// Whether `constant` holds its value: a verified module may carry constants
/// the dumper elided (`constant({...})`), which can be checked and printed
/// but neither compiled nor run. The error is located at the constant.
llvm::Error checkConstantHasValue(const Instruction &constant);

/// checkConstantHasValue for every constant the entry reaches; the first
/// elided one is the error.
llvm::Error checkConstantsHaveValues(const Module &module);

} // namespace mote::hlo

#endif // MOTE_HLO_VERIFIER_H
