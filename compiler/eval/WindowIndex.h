//===- WindowIndex.h - Where a sliding window reads its input ---*- C++ -*-===//
///
/// \file
/// Internal to convolution, reduce-window and select-and-scatter. Along one
/// dimension, window position w of output o sits at o * stride + w *
/// window_dilation - padding_low in the padded, base-dilated input; it reads a
/// real element only where that position is inside the input and falls on a
/// multiple of base_dilation. Padding and dilation holes read nothing.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_EVAL_WINDOWINDEX_H
#define MOTE_EVAL_WINDOWINDEX_H

#include "eval/IndexSpace.h"
#include "hlo/Attributes.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace mote::eval {

/// Output size along one dimension (0 when the window does not fit once).
inline int64_t windowedOutputSize(int64_t inputSize, const hlo::WindowDimension &w) {
  const int64_t dilatedInput = inputSize == 0 ? 0 : (inputSize - 1) * w.baseDilation + 1;
  const int64_t padded = dilatedInput + w.paddingLow + w.paddingHigh;
  const int64_t dilatedWindow = w.size == 0 ? 0 : (w.size - 1) * w.windowDilation + 1;
  if (padded < dilatedWindow || w.stride < 1)
    return 0;
  return (padded - dilatedWindow) / w.stride + 1;
}

/// [output index * w.size + window index] -> input index, or -1.
inline std::vector<int64_t> windowInputTable(int64_t inputSize, int64_t outputSize,
                                             const hlo::WindowDimension &w) {
  std::vector<int64_t> table(static_cast<size_t>(outputSize * w.size), -1);
  for (int64_t o = 0; o < outputSize; ++o)
    for (int64_t i = 0; i < w.size; ++i) {
      int64_t position = o * w.stride + i * w.windowDilation - w.paddingLow;
      if (position < 0 || position % w.baseDilation != 0)
        continue;
      position /= w.baseDilation;
      if (position < inputSize)
        table[o * w.size + i] = position;
    }
  return table;
}

/// Whether a window's sizes, strides and dilations are usable (all positive;
/// sizes may be zero).
inline bool isValidWindowDimension(const hlo::WindowDimension &w) {
  return w.size >= 0 && w.stride >= 1 && w.baseDilation >= 1 && w.windowDilation >= 1;
}

/// A window sliding over an array of any rank (reduce-window,
/// select-and-scatter); a rank-0 array is treated as one element of rank 1.
struct WindowGeometry {
  Index inputDims, outputDims, windowSizes, inputStrides;
  std::vector<std::vector<int64_t>> tables; ///< windowInputTable per dimension

  /// `window` must have one valid entry per dimension of `inputDims`.
  WindowGeometry(llvm::ArrayRef<int64_t> dims, llvm::ArrayRef<hlo::WindowDimension> window) {
    llvm::SmallVector<hlo::WindowDimension, 4> windows(window.begin(), window.end());
    inputDims.assign(dims.begin(), dims.end());
    if (inputDims.empty()) {
      inputDims.push_back(1);
      windows.push_back(hlo::WindowDimension{});
    }
    inputStrides = rowMajorStrides(inputDims);
    for (size_t d = 0; d < inputDims.size(); ++d) {
      outputDims.push_back(windowedOutputSize(inputDims[d], windows[d]));
      windowSizes.push_back(windows[d].size);
      tables.push_back(windowInputTable(inputDims[d], outputDims.back(), windows[d]));
    }
  }

  /// Calls fn(inputOffset) for every window position of output `output` that
  /// reads an input element, in row-major order of the window.
  template <typename Fn> void forEachInput(llvm::ArrayRef<int64_t> output, Fn &&fn) const {
    const size_t rank = inputDims.size();
    llvm::SmallVector<const int64_t *, 6> rows(rank);
    for (size_t d = 0; d < rank; ++d)
      rows[d] = tables[d].data() + output[d] * windowSizes[d];
    forEachIndex(windowSizes, [&](llvm::ArrayRef<int64_t> position) {
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d) {
        int64_t index = rows[d][position[d]];
        if (index < 0)
          return;
        offset += index * inputStrides[d];
      }
      fn(offset);
    });
  }
};

} // namespace mote::eval

#endif // MOTE_EVAL_WINDOWINDEX_H
