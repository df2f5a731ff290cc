//===- RunLayout.h - Row-major values to and from compiled layouts -*- C++ -*-===//
///
/// \file
/// Literals keep elements row-major; a compiled model takes and returns each
/// array in its layout (minor-to-major dimension order, as in HLO). These
/// rearrange the bytes between the two, the work a port's TransferManager
/// does on a device.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_RUNLAYOUT_H
#define MOTE_TOOLS_RUNLAYOUT_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace mote::tools {

/// True when `minorToMajor` is {rank-1, ..., 0} (or empty).
bool isRowMajor(llvm::ArrayRef<int64_t> minorToMajor);

enum class LayoutDirection { ToPhysical, ToLogical };

/// `bytes` (dims' product elements of `elementBytes` each) rearranged from
/// row-major to the `minorToMajor` order, or back. `minorToMajor` must be a
/// permutation of the dimensions and `bytes` the right size.
std::vector<uint8_t> relayout(llvm::ArrayRef<uint8_t> bytes, llvm::ArrayRef<int64_t> dims,
                              llvm::ArrayRef<int64_t> minorToMajor, size_t elementBytes,
                              LayoutDirection direction);

} // namespace mote::tools

#endif // MOTE_TOOLS_RUNLAYOUT_H
