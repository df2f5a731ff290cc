//===- BackendWorkarounds.h - IR rewrites around LLVM backend bugs -*- C++ -*-===//
///
/// \file
/// Rewrites applied to optimised IR just before code generation, each
/// steering one LLVM 16 backend bug or missed instruction onto a form that
/// backend lowers right.
/// Every rewrite is an exact equivalence and fires only on the targets whose
/// backend has the bug or lacks the pattern.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_OUTPUT_BACKENDWORKAROUNDS_H
#define MOTE_OUTPUT_BACKENDWORKAROUNDS_H

#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace mote::output {

/// MVE (Armv8.1-M with mve.fp): vector float compares against a splat whose
/// LLVM 16 lowering is wrong for NaN are split into compares it lowers right
/// plus an integer NaN test. Returns the number of compares rewritten.
unsigned legalizeMveFloatCompares(llvm::Module &module, const llvm::TargetMachine &machine);

/// x86-64 with F16C but without AVX512-FP16: arithmetic, compares and
/// exact intrinsics on vectors of half (InstCombine's narrowing of widened
/// f16 code) restated on f32 vectors with one rounding, the same values,
/// which LLVM 16 otherwise splits lane by lane (HalfVectorWidening.cpp).
/// Returns the number of operations rewritten.
unsigned widenHalfVectorArithmetic(llvm::Module &module, const llvm::TargetMachine &machine);

/// AArch64: a float rounded to nearest even and converted to an integer of
/// its width with saturation, fptosi.sat(roundeven(x)), as the one
/// instruction fcvtns (LLVM 16 selects frintn and fcvtzs), the same values
/// (RoundingConversions.cpp). Returns the number of conversions rewritten.
unsigned selectRoundingConversions(llvm::Module &module, const llvm::TargetMachine &machine);

/// x86-64 with AVX512-BW: the top halves of 32 lanes of 32 bits (a bf16
/// result's narrowing, trunc(lshr(x, 16))) picked as the odd words of the
/// two registers by one vpermi2w, where LLVM 16 selects two shifts, two
/// vpmovdw and an insert (HighHalfNarrowing.cpp). Returns the number of
/// narrowings rewritten.
unsigned narrowHighHalvesWithPermutes(llvm::Module &module, const llvm::TargetMachine &machine);

/// x86-64 with AVX-512: a vector f32 -> bf16 rounding's tie-to-even term,
/// x + 0x7fff + ((x >> 16) & 1), as a mask test and a merged add,
/// select((x & 0x10000) != 0, x + 0x8000, x + 0x7fff) (RoundingMasks.cpp).
/// Returns the number of roundings rewritten.
unsigned selectBf16RoundingWithMasks(llvm::Module &module, const llvm::TargetMachine &machine);

/// x86-64 with AVX-512: a vector f32 -> bf16 rounding's NaN case,
/// select(x unordered, bits | 0x400000, rounded), as one vfixupimmps that
/// keeps the rounded lane unless x is NaN and gives x quieted where it is;
/// a relu after it whose readers take the top half, as zeroed lanes of the
/// same fixup (NanFixups.cpp). Returns the number of selects rewritten.
unsigned quietBf16NansWithFixups(llvm::Module &module, const llvm::TargetMachine &machine);

} // namespace mote::output

#endif // MOTE_OUTPUT_BACKENDWORKAROUNDS_H
