//===- Bf16Dots.h - bf16 sums two contracting steps a bfdot ------*- C++ -*-===//
///
/// \file
/// Internal to code generation: the opt-in native bf16 sums
/// (--native-half-sums) on AArch64 with +bf16. `bfdot vd.4s, vn.8h, vm.8h`
/// adds to each f32 lane the two products of a pair of bf16 values from each
/// source, so a register tile takes two contracting steps an instruction:
///
///   rhs pairs, one vector of W columns:  [b(k,c) b(k+1,c)] [b(k,c+1) b(k+1,c+1)] ...
///   lhs pair of a row, in every lane:    [a(k) a(k+1)]     [a(k) a(k+1)]        ...
///
/// The lhs pair is one 32-bit load splatted (ld1r); the rhs pairs are the
/// two rows k and k + 1 of W columns interleaved (zip1), whatever the rhs's
/// layout, so no weights are laid out for it. An odd last step of the
/// innermost contracting dimension takes the usual widened multiply-add.
///
/// BFDOT ignores FPCR: each product is exact (8-bit significands), but the
/// pair's sum and its addition to the f32 sum round to odd, and subnormal
/// inputs and results are flushed to zero. So the sums are not the
/// evaluator's (f32 fused multiply-adds, in order): a sum of K products is
/// within gamma_K * sum |a*b| of the exact one, gamma_K = K u / (1 - K u)
/// with u = 2^-23 (a rounding to odd errs by less than an ulp), as long as
/// nothing is subnormal (tests/differential/half_native_check.py).
///
/// Only for tiles whose every row shares the rhs and every column the lhs,
/// the lhs contiguous along the innermost contracting dimension and the rhs
/// along the columns, in vectors of 4 or 2 f32 lanes (a dot, a 1x1 or
/// dense convolution); a single column of a tail takes its two steps as
/// widened multiply-adds. Anything else (a depthwise convolution) keeps
/// the evaluator's sums.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_BF16DOTS_H
#define MOTE_CODEGEN_BF16DOTS_H

#include "codegen/ContractionKernel.h"
#include "codegen/ContractionTiling.h"

#include "llvm/IR/IRBuilder.h"

namespace mote::codegen {

/// Whether `plan`, tiled as `tiling`, can take its sums by bfdot (see above).
bool bf16DotsFit(const ContractionPlan &plan, const ContractionTiling &tiling);

/// The bf16 pair at `address` (two consecutive values, 2-byte aligned) in
/// every 32-bit lane of a vector of `lanes` f32 sums' width.
llvm::Value *loadBf16PairSplat(llvm::IRBuilderBase &builder, llvm::Value *address, unsigned lanes);

/// The `lanes` bf16 values at `rowK` and at `rowNext` (the next contracting
/// step), interleaved into `lanes` pairs, as vectors of `vectorLanes` pairs
/// (the columns of one vector of sums each): two vectors of 4 from one
/// 8-value load a row are a zip1 and a zip2, where a vector of 4 alone
/// takes two half zips and a move.
llvm::SmallVector<llvm::Value *, 2> loadBf16RowPairs(llvm::IRBuilderBase &builder,
                                                     llvm::Value *rowK, llvm::Value *rowNext,
                                                     unsigned lanes, unsigned vectorLanes);

/// sum + the pairwise products of `x` and `y` (bfdot), `sum` of 2 or 4 f32
/// lanes.
llvm::Value *emitBf16Dot(llvm::IRBuilderBase &builder, llvm::Value *sum, llvm::Value *x,
                         llvm::Value *y);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_BF16DOTS_H
