//===- StridedCopy.h - Moving boxes of elements between buffers -*- C++ -*-===//
///
/// \file
/// Every data-movement op (broadcast, transpose, reverse, slice, pad,
/// concatenate, dynamic-slice...) is one or more copies of a box of elements
/// where each side walks its buffer with its own per-dimension strides. This
/// is that copy, with the innermost dimension as a tight loop (a memcpy when
/// both sides are contiguous).
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_EVAL_STRIDEDCOPY_H
#define MOTE_EVAL_STRIDEDCOPY_H

#include "eval/IndexSpace.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace mote::eval {

/// One side of a strided copy: element (i0, ..., in) lives at element
/// `offset + sum(i_k * strides[k])` of `data`. Strides may be zero (repeat)
/// or negative (walk backwards).
struct StridedView {
  int64_t offset = 0;
  Index strides;
};

/// Copies the box `dims` from `source` to `destination`, elements being
/// `elementBytes` bytes (1, 2, 4, 8 or 16). Nothing happens when a dimension
/// is zero; a rank-0 box copies one element. Returns false for an element size
/// it does not handle.
bool copyStrided(int elementBytes, llvm::ArrayRef<int64_t> dims, const uint8_t *source,
                 const StridedView &sourceView, uint8_t *destination,
                 const StridedView &destinationView);

/// A view that walks an array of `dims` in row-major order from its start.
inline StridedView rowMajorView(llvm::ArrayRef<int64_t> dims) {
  return StridedView{0, rowMajorStrides(dims)};
}

} // namespace mote::eval

#endif // MOTE_EVAL_STRIDEDCOPY_H
