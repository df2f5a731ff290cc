//===- ContractionKernel.h - Register-tiled strided contractions -*- C++ -*-===//
///
/// \file
/// Internal to code generation: the loop nest that dot and convolution share.
/// A contraction is described by strides alone: every result element at
/// (outer..., row, column) is the sum over the contracting index space of
/// lhs[...] * rhs[...], each operand and the result addressed as a base plus
/// one stride per direction. A dot, a convolution without padding (windows
/// as overlapping strides), a grouped or depthwise convolution are all such
/// contractions.
///
/// The kernel keeps a tile of MR rows x NR columns of the result in vector
/// registers while the contracting loops run, so each operand element loaded
/// feeds many multiplies. Every result element still sees exactly the
/// reference evaluator's arithmetic: it starts at +0 and, for the
/// contracting indices in row-major order, adds one product at a time, as a
/// rounded multiply and a rounded add or as one fused multiply-add where the
/// target has it (eval::ContractionArithmetic). Only which elements are
/// computed together changes, so results stay bit-identical to the
/// elemental path.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_CONTRACTIONKERNEL_H
#define MOTE_CODEGEN_CONTRACTIONKERNEL_H

#include "eval/Evaluator.h"
#include "hlo/Literal.h"
#include "hlo/PrimitiveType.h"
#include "passes/ContractionTypes.h"
#include "target/Target.h"

#include "llvm/ADT/SmallVector.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/TargetParser/Triple.h"
#include <optional>

namespace mote::codegen {

/// Where each direction of the loop space moves in one array (in elements;
/// 0 when the array does not vary along it), and where it starts.
struct OperandStrides {
  int64_t base = 0;
  llvm::SmallVector<int64_t, 4> outer; ///< per outer result dimension
  int64_t row = 0, column = 0;
  llvm::SmallVector<int64_t, 4> contracting; ///< per contracting dimension
};

/// A contraction as MR x NR tiles over (outer, rows, columns) with a
/// contracting loop nest (outermost first).
struct ContractionPlan {
  /// The sums: f32 or f64; f16 only for f16 arrays on targets with f16
  /// vector multiply-adds, when native half sums are asked for; s32 for an
  /// integer contraction (IntegerContraction.h).
  hlo::PrimitiveType type = hlo::PrimitiveType::F32;
  /// What lhs, rhs and the result hold: `type` itself, f16/bf16 when `type`
  /// is f32 (half values are widened in registers as they are loaded, which
  /// is exact, and the result rounds once, as it is stored), or an integer
  /// contraction's own types.
  hlo::PrimitiveType lhsType = hlo::PrimitiveType::F32, rhsType = hlo::PrimitiveType::F32,
                     resultType = hlo::PrimitiveType::F32;
  /// The rhs's values when it is a constant (weights): an integer kernel
  /// lays them out for its instructions at compile time.
  const hlo::Literal *rhsValues = nullptr;
  /// Integer contractions: s32 values, one per column, the sums start from
  /// (an output fusion's bias, added in the kernel instead of after it).
  const hlo::Literal *columnBias = nullptr;
  /// Integer contractions in the widening form (a depthwise convolution):
  /// instead of columnBias, the s32 values the sums start from, computed
  /// at run time (a pointer to one per column).
  llvm::Value *columnStarts = nullptr;
  bool fused = false; ///< products added by fused multiply-adds
  /// Vector registers the kernel's arithmetic holds besides the tile's
  /// sums and operands (an integer form's constants and temporaries).
  unsigned extraRegisters = 0;
  llvm::SmallVector<int64_t, 4> outerDims;
  int64_t rows = 1, columns = 1;
  llvm::SmallVector<int64_t, 4> contractingDims;
  OperandStrides operand[2]; ///< lhs, rhs
  /// The result's strides (contracting unused). Columns must be contiguous
  /// (column == 1) so tiles store as vectors.
  OperandStrides result;
  /// The rhs is stored in panels of the main tile's width (PrepackedWeights.h):
  /// its strides address the panel a column is in, and the column within it.
  bool rhsInPanels = false;
  /// The output fusion's epilogue reads staged f32 sums in pair order
  /// (StagedPairs), so the tiles may leave deinterleaved bf16 pairs so.
  bool epilogueReadsPairs = false;
  /// Native bf16 sums (--native-half-sums on AArch64 with +bf16): bf16 lhs
  /// and rhs, f32 sums that take two contracting steps a BFDOT. Not the
  /// evaluator's arithmetic: BFDOT adds the pair's products and then the
  /// sum with round-to-odd, and flushes subnormals (Bf16Dots.h).
  bool bf16Dots = false;
};

/// Whether the result holds the sums exactly (it is stored in their type),
/// so partial sums may go through it between blocks of the contracting loop.
inline bool resultHoldsSums(const ContractionPlan &plan) { return plan.resultType == plan.type; }

/// The element type of array `side`: 0 the lhs, 1 the rhs, 2 the result.
inline hlo::PrimitiveType arrayType(const ContractionPlan &plan, int side) {
  return side == 0 ? plan.lhsType : side == 1 ? plan.rhsType : plan.resultType;
}

/// Where a contraction's result lives when not in an array of its own: the
/// stride of each result dimension and the offset of element 0 (in
/// elements). An output fusion ending in a pad writes the interior of the
/// padded array.
struct ResultPlacement {
  llvm::SmallVector<int64_t, 4> strides;
  int64_t base = 0;
};

/// The target's arithmetic for dot and convolution sums: fused for each
/// float width the target has a fused multiply-add instruction for.
eval::ContractionArithmetic contractionArithmetic(const target::TargetSpec &spec);

/// Whether sums in `type` (the accumulation type) are fused under `arithmetic`.
bool isFused(eval::ContractionArithmetic arithmetic, hlo::PrimitiveType type);

/// sum + x * y: one fused multiply-add (llvm.fma) or a rounded multiply and
/// a rounded add, never left for LLVM to choose.
llvm::Value *emitMultiplyAdd(llvm::IRBuilderBase &builder, llvm::Value *sum, llvm::Value *x,
                             llvm::Value *y, bool fused);

/// Sets the plan's element types for a contraction of `lhs` and `rhs` into
/// `result`, one of those passes::isTiledContractionType accepts.
void setContractionTypes(ContractionPlan &plan, hlo::PrimitiveType result, hlo::PrimitiveType lhs,
                         hlo::PrimitiveType rhs);

/// Drops outer dimensions of size 1, and merges the innermost outer
/// dimension into the rows while every array steps over it exactly as a
/// further run of rows would (a 1x1 convolution's output rows, a dot's lhs
/// free dimensions): longer rows fill more register tiles. The same
/// elements are computed the same way.
void coalesceRows(ContractionPlan &plan);

/// Strides of a row-major array of `dims`.
llvm::SmallVector<int64_t, 4> rowMajorStrides(llvm::ArrayRef<int64_t> dims);

/// Arithmetic operations of `plan` (a multiply and an add per product).
double contractionWork(const ContractionPlan &plan);

/// The extent of the loop that tasks share out (the first outer dimension,
/// else the row tiles): emitContraction with [begin, end) of it computes
/// exactly that part of the result.
int64_t contractionSplitExtent(const ContractionPlan &plan, const llvm::Triple &triple,
                               const target::TargetSpec *spec);

/// What the first `splits` iterations of the split loop (contractionSplitExtent)
/// touch, for running ops depth-first: one past the last element of the
/// result they write, and of the lhs they read, counted from the arrays'
/// pointers. Only for contractions whose split iterations write the result
/// in increasing, contiguous runs of its outermost rows (so the elements
/// below the end are exactly those written, apart from holes nothing
/// writes), and read the lhs at increasing offsets; otherwise nullopt
/// (packed units, reversed strides).
struct ContractionFootprint {
  int64_t resultEnd = 0;
  int64_t lhsEnd = 0;
};
std::optional<ContractionFootprint> contractionFootprint(const ContractionPlan &plan,
                                                         const llvm::Triple &triple,
                                                         const target::TargetSpec *spec,
                                                         int64_t splits);

/// Output fusion: called once a run of `count` finished result elements
/// starting at element `offset` of `out` (contiguous, along the columns) is
/// stored, while it is still in the first-level cache, to emit code that
/// rewrites them in place; or, when `staged` is not null, once the run's
/// sums are stored at `staged` (an integer kernel's s32 tile, or the f32
/// sums of a bf16 result: HalfSumStage.h), to emit code that writes the
/// result from them.
///
/// With `pairs.lanes` set, the staged sums of a run's first
/// (count / pairs.tileColumns) * pairs.tileColumns columns are in pair
/// order (Bf16Pairs.h): each block of 2 * lanes columns holds the sums of
/// its even columns, then those of its odd ones.
struct StagedPairs {
  int64_t tileColumns = 0; ///< columns of a main tile, whose whole ones are paired
  int64_t lanes = 0;       ///< half a block; 0: the stage is in column order
};
using ContractionEpilogue = llvm::function_ref<void(llvm::Value *offset, llvm::Value *count,
                                                    llvm::Value *staged, StagedPairs pairs)>;

/// Emits `plan` at the builder's position, reading `lhs` and `rhs` and
/// writing `out` (element pointers); `local` makes a stack slot in the
/// function's entry block. The tile shape follows the target's vector
/// registers (`spec` may be null: the triple's baseline). With `splitBegin`
/// and `splitEnd`, only that range of the split loop is computed. With an
/// `epilogue`, every finished row of a strip of tiles goes through it.
void emitContraction(llvm::IRBuilderBase &builder, llvm::Type *indexType,
                     const ContractionPlan &plan, const llvm::Triple &triple,
                     const target::TargetSpec *spec, llvm::Value *lhs, llvm::Value *rhs,
                     llvm::Value *out, llvm::function_ref<llvm::AllocaInst *(llvm::Type *)> local,
                     llvm::Value *splitBegin = nullptr, llvm::Value *splitEnd = nullptr,
                     ContractionEpilogue epilogue = nullptr);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_CONTRACTIONKERNEL_H
