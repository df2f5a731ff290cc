//===- GatherScatter.h - Index vectors of gather and scatter ----*- C++ -*-===//
///
/// \file
/// Internal to Gather.cpp and Scatter.cpp: their index operand is a batch of
/// index vectors laid along `index_vector_dim` (index_vector_dim == rank means
/// each element is a one-element vector), and both move whole windows between
/// two arrays.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_EVAL_GATHERSCATTER_H
#define MOTE_EVAL_GATHERSCATTER_H

#include "eval/IndexSpace.h"
#include "hlo/Literal.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <limits>

namespace mote::eval {

class IndexVectors {
public:
  /// `indices` must be an integer array and 0 <= indexVectorDim <= its rank.
  IndexVectors(const hlo::Literal &indices, int64_t indexVectorDim)
      : indices_(indices), vectorDim_(indexVectorDim) {
    const hlo::Shape &shape = indices.shape();
    Index strides = rowMajorStrides(shape.dims());
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (d == indexVectorDim)
        continue;
      batchDims_.push_back(shape.dim(d));
      batchStrides_.push_back(strides[d]);
    }
    if (indexVectorDim < shape.rank()) {
      vectorSize_ = shape.dim(indexVectorDim);
      vectorStride_ = strides[indexVectorDim];
    }
  }

  /// The dimensions of the batch: the index operand's without index_vector_dim.
  llvm::ArrayRef<int64_t> batchDims() const { return batchDims_; }
  int64_t vectorSize() const { return vectorSize_; }
  /// Position in a batch index of dimension `dim` of the index operand.
  int64_t batchPosition(int64_t dim) const { return dim < vectorDim_ ? dim : dim - 1; }

  /// Reads the vector at `batch` (unsigned values above INT64_MAX saturate).
  void read(llvm::ArrayRef<int64_t> batch, llvm::MutableArrayRef<int64_t> vector) const {
    int64_t offset = 0;
    for (size_t i = 0; i < batch.size(); ++i)
      offset += batch[i] * batchStrides_[i];
    const bool isUnsigned = hlo::isUnsignedInteger(indices_.shape().elementType());
    for (int64_t k = 0; k < vectorSize_; ++k) {
      const int64_t linear = offset + k * vectorStride_;
      if (isUnsigned) {
        uint64_t value = indices_.getAsUint64(linear);
        vector[k] = value > uint64_t(std::numeric_limits<int64_t>::max())
                        ? std::numeric_limits<int64_t>::max()
                        : int64_t(value);
      } else {
        vector[k] = indices_.getAsInt64(linear);
      }
    }
  }

private:
  const hlo::Literal &indices_;
  int64_t vectorDim_;
  Index batchDims_, batchStrides_;
  int64_t vectorSize_ = 1;
  int64_t vectorStride_ = 0;
};

/// Calls fn(offsetA, offsetB) for every index of `sizes` in row-major order,
/// where offset = base + sum(index[i] * strides[i]) in each array.
template <typename Fn>
void forEachWindowElement(llvm::ArrayRef<int64_t> sizes, int64_t baseA,
                          llvm::ArrayRef<int64_t> stridesA, int64_t baseB,
                          llvm::ArrayRef<int64_t> stridesB, Fn &&fn) {
  forEachIndex(sizes, [&](llvm::ArrayRef<int64_t> index) {
    int64_t a = baseA, b = baseB;
    for (size_t i = 0; i < index.size(); ++i) {
      a += index[i] * stridesA[i];
      b += index[i] * stridesB[i];
    }
    fn(a, b);
  });
}

} // namespace mote::eval

#endif // MOTE_EVAL_GATHERSCATTER_H
