//===- StridedCopy.cpp - Moving boxes of elements between buffers ---------===//

#include "eval/StridedCopy.h"

#include <algorithm>
#include <cstring>

namespace mote::eval {

namespace {

/// Calls fn(sourceOffset, destinationOffset) for every index of `dims`,
/// stepping the offsets like an odometer (once with the start offsets for no
/// dimensions).
template <typename Fn>
void forEachOffset(llvm::ArrayRef<int64_t> dims, llvm::ArrayRef<int64_t> sourceStrides,
                   llvm::ArrayRef<int64_t> destinationStrides, int64_t s, int64_t d, Fn &&fn) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  Index index(rank, 0);
  while (true) {
    fn(s, d);
    int64_t k = rank - 1;
    for (; k >= 0; --k) {
      s += sourceStrides[k];
      d += destinationStrides[k];
      if (++index[k] < dims[k])
        break;
      s -= sourceStrides[k] * dims[k];
      d -= destinationStrides[k] * dims[k];
      index[k] = 0;
    }
    if (k < 0)
      return;
  }
}

/// Transposing copies read one side with a large stride; walking them in
/// square tiles keeps both sides' cache lines in use.
constexpr int64_t kTile = 32;

template <int64_t Bytes>
void copyBox(llvm::ArrayRef<int64_t> dims, const uint8_t *source, const StridedView &from,
             uint8_t *destination, const StridedView &to) {
  // Bytes is signed so that negative strides (reverse) scale to negative
  // byte offsets.
  const size_t rank = dims.size();
  if (rank == 0) {
    std::memcpy(destination + to.offset * Bytes, source + from.offset * Bytes, Bytes);
    return;
  }
  const size_t last = rank - 1;
  const int64_t inner = dims[last];
  const int64_t sourceStep = from.strides[last];
  const int64_t destinationStep = to.strides[last];

  // A dimension contiguous in the source while the innermost one is not:
  // copy tiles of (that dimension x innermost).
  if (destinationStep == 1 && sourceStep != 1 && inner >= kTile) {
    for (size_t k = 0; k < last; ++k) {
      if (from.strides[k] != 1 || dims[k] < kTile)
        continue;
      Index outerDims, outerFrom, outerTo;
      for (size_t i = 0; i < last; ++i)
        if (i != k) {
          outerDims.push_back(dims[i]);
          outerFrom.push_back(from.strides[i]);
          outerTo.push_back(to.strides[i]);
        }
      const int64_t rows = dims[k];
      const int64_t rowStep = to.strides[k];
      forEachOffset(outerDims, outerFrom, outerTo, from.offset, to.offset,
                    [&](int64_t s, int64_t d) {
                      for (int64_t i0 = 0; i0 < rows; i0 += kTile)
                        for (int64_t j0 = 0; j0 < inner; j0 += kTile)
                          for (int64_t i = i0, iEnd = std::min(i0 + kTile, rows); i < iEnd; ++i)
                            for (int64_t j = j0, jEnd = std::min(j0 + kTile, inner); j < jEnd; ++j)
                              std::memcpy(destination + (d + i * rowStep + j) * Bytes,
                                          source + (s + i + j * sourceStep) * Bytes, Bytes);
                    });
      return;
    }
  }

  forEachOffset(dims.drop_back(), llvm::ArrayRef<int64_t>(from.strides).drop_back(),
                llvm::ArrayRef<int64_t>(to.strides).drop_back(), from.offset, to.offset,
                [&](int64_t s, int64_t d) {
                  if (sourceStep == 1 && destinationStep == 1) {
                    std::memcpy(destination + d * Bytes, source + s * Bytes, inner * Bytes);
                    return;
                  }
                  const uint8_t *in = source + s * Bytes;
                  uint8_t *out = destination + d * Bytes;
                  for (int64_t i = 0; i < inner; ++i)
                    std::memcpy(out + i * destinationStep * Bytes, in + i * sourceStep * Bytes,
                                Bytes);
                });
}

} // namespace

bool copyStrided(int elementBytes, llvm::ArrayRef<int64_t> dims, const uint8_t *source,
                 const StridedView &sourceView, uint8_t *destination,
                 const StridedView &destinationView) {
  for (int64_t d : dims)
    if (d <= 0)
      return true;
  switch (elementBytes) {
  case 1:
    copyBox<1>(dims, source, sourceView, destination, destinationView);
    return true;
  case 2:
    copyBox<2>(dims, source, sourceView, destination, destinationView);
    return true;
  case 4:
    copyBox<4>(dims, source, sourceView, destination, destinationView);
    return true;
  case 8:
    copyBox<8>(dims, source, sourceView, destination, destinationView);
    return true;
  case 16:
    copyBox<16>(dims, source, sourceView, destination, destinationView);
    return true;
  default:
    return false;
  }
}

} // namespace mote::eval
