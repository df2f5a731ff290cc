//===- Bf16Pairs.h - bf16 vectors widened two at a time, deinterleaved -*- C++ -*-===//
///
/// \file
/// Internal to code generation. A bf16 value is the top half of the f32 with
/// the same bits, so 2W consecutive bf16 values loaded as W 32-bit lanes hold
/// two f32 vectors at once: each lane's low half is an even element and its
/// high half the odd one after it. One shift left by 16 gives the even
/// elements as f32 and one and with 0xffff0000 the odd ones, exactly:
///
///   lanes (as i32):  [b1:b0] [b3:b2] [b5:b4] ...
///   even = x << 16:  [b0:0]  [b2:0]  [b4:0]  ...    elements 0, 2, 4, ...
///   odd  = x & ~0xffff: [b1:0] [b3:0] [b5:0] ...    elements 1, 3, 5, ...
///
/// where widening each W elements in order costs a zero-extending load and a
/// shift (x86: vpmovzxwd, which runs on the shuffle port, and vpslld), four
/// vector instructions per 2W values against two. A register tile whose
/// sums are a pair of vectors side by side then holds the even columns' sums
/// in the first vector and the odd columns' in the second, as long as every
/// operand vector it multiplies comes in the same order; its sums are
/// interleaved back into column order once, after the contracting loop,
/// before anything stores them (two shuffles per pair of vectors per row,
/// against a widening per vector per contracting step).
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_BF16PAIRS_H
#define MOTE_CODEGEN_BF16PAIRS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"

#include <utility>

namespace mote::codegen {

/// The 2 * `lanes` bf16 values at `address` as two f32 vectors of `lanes`:
/// the even elements, then the odd ones. `align` is the address's
/// alignment.
std::pair<llvm::Value *, llvm::Value *> loadBf16Deinterleaved(llvm::IRBuilderBase &builder,
                                                              llvm::Value *address, unsigned lanes,
                                                              llvm::Align align);

/// The vectors `even` and `odd` (of the same width W) interleaved back into
/// element order: elements 0..W-1, then W..2W-1.
std::pair<llvm::Value *, llvm::Value *> interleavePair(llvm::IRBuilderBase &builder,
                                                       llvm::Value *even, llvm::Value *odd);

/// Which vectors of a tile row of `widths` start a pair read deinterleaved:
/// a vector followed by one of the same width (at least two lanes), left to
/// right, each vector in at most one pair.
llvm::SmallVector<bool, 8> deinterleavedPairStarts(llvm::ArrayRef<unsigned> widths);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_BF16PAIRS_H
