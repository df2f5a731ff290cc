//===- IrEmitter.h - A scheduled, buffer-assigned module to LLVM IR -*- C++ -*-===//
///
/// \file
/// Emits the entry function `int32_t <name>_entry(const mote_call *)` of a
/// model: instructions run in schedule order, each reading and writing the
/// memory buffer assignment gave it. Elemental ops become one loop nest over
/// their result; dynamic-update-slice writes in place; while and conditional
/// become LLVM control flow over their computations' buffers.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_IREMITTER_H
#define MOTE_CODEGEN_IREMITTER_H

#include "codegen/WeightsBlob.h"
#include "eval/Evaluator.h"
#include "passes/BufferAssignment.h"
#include "passes/Schedule.h"
#include "target/Target.h"

#include "hlo/Module.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mote::codegen {

/// Checks that every instruction the module runs can be compiled; the error
/// names the first one that cannot, at its source location.
llvm::Error checkCodegenSupport(const hlo::Module &module, const passes::Schedule &schedule);

/// Adds `<prefix>_entry` to `module` (whose data layout and triple are set).
/// `target`, when given, lets kernels use the CPU's vector registers beyond
/// the triple's baseline (e.g. AVX2, RVV); the code is correct either way.
/// Dots and convolutions add their products as `contraction` says, which
/// must be what the target can do (contractionArithmetic(*target)): a fused
/// multiply-add the target lacks would become a call to libm's fma.
/// With `weights`, large constants go there (the code reads them through
/// mote_call.weights) and the arena starts `weightsReserve` bytes into the
/// scratch, after the word that holds the weights pointer. With
/// `nativeHalfSums`, f16 dots and convolutions sum in f16 on targets that
/// multiply and add f16 vectors (not bit-exact with the evaluator: within
/// K * 2^-11 * sum |a * b| of the exact sum of K products). With
/// `rhsPanels`, a constant rhs of a tiled contraction is stored in the
/// panels its tiles read (PrepackedWeights.h), which depend on the target's
/// tile width.
llvm::Error emitEntryFunction(const hlo::Module &hloModule, const passes::Schedule &schedule,
                              const passes::BufferAssignment &assignment, llvm::StringRef prefix,
                              llvm::Module &module, const target::TargetSpec *target = nullptr,
                              eval::ContractionArithmetic contraction = {},
                              WeightsBlob *weights = nullptr, uint64_t weightsReserve = 0,
                              bool nativeHalfSums = false, bool rhsPanels = true);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_IREMITTER_H
