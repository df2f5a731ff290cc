//===- IndexSpace.h - Walking multi-dimensional index spaces ----*- C++ -*-===//
#ifndef MOTE_EVAL_INDEXSPACE_H
#define MOTE_EVAL_INDEXSPACE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mote::eval {

using Index = llvm::SmallVector<int64_t, 6>;

/// Row-major strides (in elements) of an array with dimensions `dims`.
inline Index rowMajorStrides(llvm::ArrayRef<int64_t> dims) {
  Index strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * dims[i + 1];
  return strides;
}

/// Steps `index` to the next row-major position within `dims`; false after the last.
inline bool nextIndex(llvm::MutableArrayRef<int64_t> index, llvm::ArrayRef<int64_t> dims) {
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
    if (++index[i] < dims[i])
      return true;
    index[i] = 0;
  }
  return false;
}

/// Calls `fn(index)` for every index of `dims` in row-major order (none if a
/// dimension is zero; once with an empty index for a scalar).
template <typename Fn> void forEachIndex(llvm::ArrayRef<int64_t> dims, Fn &&fn) {
  for (int64_t d : dims)
    if (d == 0)
      return;
  Index index(dims.size(), 0);
  do {
    fn(llvm::ArrayRef<int64_t>(index));
  } while (nextIndex(index, dims));
}

} // namespace mote::eval

#endif // MOTE_EVAL_INDEXSPACE_H
