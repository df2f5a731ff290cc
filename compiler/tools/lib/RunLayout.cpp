//===- RunLayout.cpp - Row-major values to and from compiled layouts ------===//

#include "RunLayout.h"

#include "llvm/ADT/SmallVector.h"

#include <cassert>
#include <cstring>

namespace mote::tools {

bool isRowMajor(llvm::ArrayRef<int64_t> minorToMajor) {
  int64_t rank = static_cast<int64_t>(minorToMajor.size());
  for (int64_t i = 0; i < rank; ++i)
    if (minorToMajor[i] != rank - 1 - i)
      return false;
  return true;
}

std::vector<uint8_t> relayout(llvm::ArrayRef<uint8_t> bytes, llvm::ArrayRef<int64_t> dims,
                              llvm::ArrayRef<int64_t> minorToMajor, size_t elementBytes,
                              LayoutDirection direction) {
  size_t rank = dims.size();
  assert(minorToMajor.size() == rank && "layout rank differs from the shape's");
  std::vector<uint8_t> out(bytes.size());
  if (bytes.empty())
    return out;
  if (isRowMajor(minorToMajor)) {
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }
  // Element stride of each dimension in the physical order.
  llvm::SmallVector<int64_t, 8> stride(rank, 0);
  int64_t next = 1;
  for (int64_t dim : minorToMajor) {
    stride[dim] = next;
    next *= dims[dim];
  }
  assert(static_cast<uint64_t>(next) * elementBytes == bytes.size() && "size mismatch");
  // Walk the logical (row-major) positions, tracking the physical one.
  llvm::SmallVector<int64_t, 8> index(rank, 0);
  int64_t physical = 0;
  for (int64_t logical = 0; logical < next; ++logical) {
    size_t from = (direction == LayoutDirection::ToPhysical ? logical : physical) * elementBytes;
    size_t to = (direction == LayoutDirection::ToPhysical ? physical : logical) * elementBytes;
    std::memcpy(out.data() + to, bytes.data() + from, elementBytes);
    for (size_t d = rank; d-- > 0;) {
      physical += stride[d];
      if (++index[d] < dims[d])
        break;
      physical -= stride[d] * dims[d];
      index[d] = 0;
    }
  }
  return out;
}

} // namespace mote::tools
