//===- HalfLoopWidth.h - Vector widths for loops over half values -*- C++ -*-===//
///
/// \file
/// The loop vectorizer's width for a loop that computes f16 values on x86,
/// or bf16 values from staged f32 sums: an output fusion's epilogue, and the
/// fold of a half reduce that keeps the innermost dimension (its operand an
/// epilogue's bias add and relu). For a run of known length it is the width
/// that leaves the least scalar remainder, up to two f32 registers a step;
/// else one register (a run shorter than the width would be all scalar
/// remainder: MobileNetV2 block f16 went from 0.55 to 0.75 ms on x86-64-v4
/// with 32 lanes for its runs of 24).
///
/// Left to itself, LLVM 16's cost model takes 4 lanes once such a loop
/// rounds the result of a select (a relu bounding the bias add's f32 sum),
/// though 16 (AVX2) and 32 (AVX-512) convert a register an instruction; for
/// bf16 from staged sums it takes one register, where two share the
/// narrowing's pack and the loop's count (DS-CNN bf16 1.064 M -> 1.038 M
/// instructions per inference, MobileNetV2 block 11.31 M -> 10.96 M,
/// x86-64-v3). 0 (no hint) elsewhere: bf16 rewritten in place does better
/// with the cost model's choice (MobileNetV2 block bf16 11.6 M -> 12.3 M
/// with the hint).
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_HALFLOOPWIDTH_H
#define MOTE_CODEGEN_HALFLOOPWIDTH_H

#include "hlo/PrimitiveType.h"
#include "target/Target.h"

#include "llvm/IR/Value.h"

#include <optional>

namespace llvm {
class Module;
} // namespace llvm

namespace mote::codegen {

/// Elements a step for a loop of `count` iterations (a constant when the
/// run's length is known, else any value or null) computing `type` values,
/// `staged` when they are rounded from f32 sums (HalfSumStage.h); 0 leaves
/// the width to the cost model.
unsigned halfLoopWidth(const llvm::Module &module, const target::TargetSpec *spec,
                       hlo::PrimitiveType type, llvm::Value *count, bool staged);

/// A run of known length as two loops: a head of whole widest steps (two
/// registers), then the tail at its own width.
struct HalfLoopSplit {
  uint64_t head = 0;      ///< elements the head covers, a multiple of headWidth
  unsigned headWidth = 0; ///< two f32 registers of lanes
  unsigned tailWidth = 0; ///< halfLoopWidth of the tail's length
};

/// The split of a loop halfLoopWidth would give a width, when two loops
/// take fewer steps than one: MobileNetV2's 144 channels are 4 steps of 32
/// and one of 16 on AVX-512, where one loop takes 9 steps of 16 (a step of
/// 32 also narrows its two registers' results with one permute). None when
/// the widest width divides the run, or no whole step of it fits.
std::optional<HalfLoopSplit> splitHalfLoop(const llvm::Module &module,
                                           const target::TargetSpec *spec, hlo::PrimitiveType type,
                                           llvm::Value *count, bool staged);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_HALFLOOPWIDTH_H
