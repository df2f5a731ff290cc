//===- BufferPacking.cpp - Offsets for buffers with live intervals --------===//
//
// Greedy placement in a given order is the usual answer to this (NP-hard)
// problem; the order decides the quality. Big buffers first leaves small ones
// to fill the gaps; long-lived ones first keeps the middle of the arena
// free. Both are tried and the smaller arena kept.
//
//===----------------------------------------------------------------------===//

#include "passes/BufferPacking.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace mote::passes {

namespace {

uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

bool overlaps(const PackingItem &a, const PackingItem &b) {
  return a.start <= b.end && b.start <= a.end;
}

Packing packInOrder(llvm::ArrayRef<PackingItem> items, llvm::ArrayRef<size_t> order,
                    uint64_t alignment) {
  Packing packing;
  packing.offsets.assign(items.size(), 0);
  std::vector<size_t> placed;
  std::vector<std::pair<uint64_t, uint64_t>> taken; // [offset, end) of conflicting items
  for (size_t index : order) {
    const PackingItem &item = items[index];
    taken.clear();
    for (size_t other : placed)
      if (overlaps(item, items[other]))
        taken.push_back({packing.offsets[other], packing.offsets[other] + items[other].size});
    std::sort(taken.begin(), taken.end());
    uint64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (begin >= offset + item.size)
        break;
      if (end > offset)
        offset = alignUp(end, alignment);
    }
    packing.offsets[index] = offset;
    packing.size = std::max(packing.size, alignUp(offset + item.size, alignment));
    placed.push_back(index);
  }
  return packing;
}

} // namespace

Packing packBuffers(llvm::ArrayRef<PackingItem> items, uint32_t alignment) {
  uint64_t align = std::max<uint64_t>(alignment, 1);
  std::vector<size_t> bySize(items.size());
  std::iota(bySize.begin(), bySize.end(), 0);
  std::stable_sort(bySize.begin(), bySize.end(), [&](size_t a, size_t b) {
    if (items[a].size != items[b].size)
      return items[a].size > items[b].size;
    return items[a].start < items[b].start;
  });
  Packing best = packInOrder(items, bySize, align);

  std::vector<size_t> byLength = bySize;
  std::stable_sort(byLength.begin(), byLength.end(), [&](size_t a, size_t b) {
    return items[a].end - items[a].start > items[b].end - items[b].start;
  });
  Packing byLengthPacking = packInOrder(items, byLength, align);
  if (byLengthPacking.size < best.size)
    best = std::move(byLengthPacking);
  return best;
}

uint64_t liveBytesLowerBound(llvm::ArrayRef<PackingItem> items) {
  // Sweep: +size at start, -size after end.
  std::map<uint64_t, int64_t> delta;
  for (const PackingItem &item : items) {
    if (item.size == 0)
      continue;
    delta[item.start] += static_cast<int64_t>(item.size);
    delta[uint64_t(item.end) + 1] -= static_cast<int64_t>(item.size);
  }
  int64_t live = 0, most = 0;
  for (auto [position, change] : delta) {
    live += change;
    most = std::max(most, live);
  }
  return static_cast<uint64_t>(most);
}

} // namespace mote::passes
