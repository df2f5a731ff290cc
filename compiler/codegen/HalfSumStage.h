//===- HalfSumStage.h - f32 sums handed to a half epilogue -------*- C++ -*-===//
///
/// \file
/// An f16 or bf16 dot or convolution sums in f32 and rounds each sum once
/// to the result's type. With an output fusion after it (a layer's bias add
/// and relu), the tiles of a bf16 result (and of an f16 one where f16
/// converts in integer code) do not round: they store their f32 sums into
/// a stage, a stack buffer of one strip of tile rows, and the epilogue's
/// read of the contraction rounds each sum, so nothing is stored as half,
/// read back and widened before the bias add. The rounding is the one the
/// tile would have done (ElementTypes' fromCompute), so the bits are the
/// same; bf16's rounding builds the rounded value as f32 bits, which the
/// bias add reads as they are. x86-64-v3, callgrind, instructions per
/// inference: DS-CNN bf16 1.074 M -> 1.058 M, the MobileNetV2 block bf16
/// 12.16 M -> 11.20 M (f32 0.829 M and 8.51 M).
///
/// The stage holds every row of a tile strip, as wide as a strip (the
/// epilogue runs once the strip is stored); the strips are narrowed to fit
/// the stage's bytes (16 KiB on 64-bit targets, 1 KiB on 32-bit ones, as
/// the integer kernels' s32 stage).
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_HALFSUMSTAGE_H
#define MOTE_CODEGEN_HALFSUMSTAGE_H

#include "codegen/ContractionKernel.h"
#include "codegen/ContractionTiling.h"

namespace mote::codegen {

/// Whether `plan` sums in f32 for a bf16 result, or an f16 one on a target
/// that converts f16 in integer code (`hardwareF16` false), so an epilogue
/// after it reads staged f32 sums. Where f16 converts with instructions
/// the tile's rounding stores its result and the epilogue's widening loads
/// it (x86-64: vcvtps2ph to memory, vcvtph2ps from memory), so the stage
/// would only add a store and a load: DS-CNN f16 884 K -> 900 K
/// instructions per inference, the MobileNetV2 block 8.82 M -> 8.96 M
/// (x86-64-v3, callgrind).
bool stagesHalfSumsFor(const ContractionPlan &plan, bool hardwareF16);

struct HalfSumStage {
  int64_t stripColumns; ///< columns a strip of tiles covers (whole main tiles)
  int64_t width;        ///< f32 sums a row of the stage holds
};

/// The stage for `plan` tiled as `tiling`, strips at most `columnBlock`
/// columns wide.
HalfSumStage halfSumStage(const ContractionPlan &plan, const ContractionTiling &tiling,
                          int64_t columnBlock, const llvm::Triple &triple);

/// The staged f32 sum at `address` rounded to `type` (f16 or bf16), as the
/// tile would have stored it.
llvm::Value *readStagedHalfSum(llvm::IRBuilderBase &builder, hlo::PrimitiveType type,
                               llvm::Value *address);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_HALFSUMSTAGE_H
