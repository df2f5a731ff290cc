//===- BufferPacking.h - Offsets for buffers with live intervals -*- C++ -*-===//
///
/// \file
/// The arena layout problem on its own: buffers with a size and an inclusive
/// interval of schedule positions get offsets such that buffers whose
/// intervals overlap never overlap in memory.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_PASSES_BUFFERPACKING_H
#define MOTE_PASSES_BUFFERPACKING_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace mote::passes {

struct PackingItem {
  uint64_t size = 0;
  uint32_t start = 0; ///< inclusive
  uint32_t end = 0;   ///< inclusive
};

struct Packing {
  std::vector<uint64_t> offsets; ///< one per item, aligned (itemAlignment)
  uint64_t size = 0;             ///< the arena: end of the highest item
};

/// The alignment an item of `size` bytes gets in an arena aligned to
/// `alignment`: all of it for buffers of a few vectors or more, where it
/// speeds up vector loops; smaller ones only the largest power of two that
/// divides their size, which is a multiple of their element size (element
/// sizes being powers of two) and all generated code assumes. Small values
/// then pack tightly instead of each taking a whole vector's worth of bytes.
uint64_t itemAlignment(uint64_t size, uint32_t alignment);

/// Best of a few greedy orders: each item goes to the lowest aligned offset
/// free of the items already placed whose intervals overlap its own.
Packing packBuffers(llvm::ArrayRef<PackingItem> items, uint32_t alignment);

/// The most bytes live at one position (sizes unaligned): no packing is smaller.
uint64_t liveBytesLowerBound(llvm::ArrayRef<PackingItem> items);

} // namespace mote::passes

#endif // MOTE_PASSES_BUFFERPACKING_H
