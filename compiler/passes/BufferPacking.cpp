//===- BufferPacking.cpp - Offsets for buffers with live intervals --------===//
//
// Greedy placement in a given order is the usual answer to this (NP-hard)
// problem; the order decides the quality. Big buffers first leaves small ones
// to fill the gaps; long-lived ones first keeps the middle of the arena
// free; big-and-long first combines the two; schedule order is first fit
// over intervals; and placing buffers in schedule order at whichever end of
// an arena the size of the lower bound is farther from what they overlap
// suits chains of buffers. All are tried and the smallest arena kept.
//
//===----------------------------------------------------------------------===//

#include "passes/BufferPacking.h"

#include <algorithm>
#include <bit>
#include <map>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>

namespace mote::passes {

namespace {

uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

bool overlaps(const PackingItem &a, const PackingItem &b) {
  return a.start <= b.end && b.start <= a.end;
}

Packing packInOrder(llvm::ArrayRef<PackingItem> items, llvm::ArrayRef<size_t> order,
                    uint32_t arenaAlignment) {
  Packing packing;
  packing.offsets.assign(items.size(), 0);
  std::vector<size_t> placed;
  std::vector<std::pair<uint64_t, uint64_t>> taken; // [offset, end) of conflicting items
  for (size_t index : order) {
    const PackingItem &item = items[index];
    const uint64_t alignment = itemAlignment(item.size, arenaAlignment);
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
    packing.size = std::max(packing.size, offset + item.size);
    placed.push_back(index);
  }
  return packing;
}

/// Places items in schedule order inside an arena of `limit` bytes, each at
/// the lowest or the highest offset free of the items it overlaps,
/// whichever lies farther from them: buffers that follow each other in a
/// chain (a convolution's output, the padded copy the next one reads, its
/// output...) then alternate between the two ends of the arena instead of
/// piling up. Fails (nullopt) when an item fits nowhere below `limit`.
std::optional<Packing> packBetweenEnds(llvm::ArrayRef<PackingItem> items,
                                       llvm::ArrayRef<size_t> scheduleOrder,
                                       uint32_t arenaAlignment, uint64_t limit) {
  Packing packing;
  packing.offsets.assign(items.size(), 0);
  std::vector<size_t> placed;
  std::vector<std::pair<uint64_t, uint64_t>> taken;
  for (size_t index : scheduleOrder) {
    const PackingItem &item = items[index];
    const uint64_t alignment = itemAlignment(item.size, arenaAlignment);
    if (item.size > limit)
      return std::nullopt;
    taken.clear();
    for (size_t other : placed)
      if (overlaps(item, items[other]))
        taken.push_back({packing.offsets[other], packing.offsets[other] + items[other].size});
    std::sort(taken.begin(), taken.end());
    auto fitsAt = [&](uint64_t offset) {
      if (offset + item.size > limit)
        return false;
      for (auto [begin, end] : taken)
        if (begin < offset + item.size && offset < end)
          return false;
      return true;
    };
    // Candidates: the bottom, just above each taken range, and the top or
    // just below each taken range (aligned down).
    std::optional<uint64_t> lowest, highest;
    auto consider = [&](uint64_t offset) {
      if (!fitsAt(offset))
        return;
      if (!lowest || offset < *lowest)
        lowest = offset;
      if (!highest || offset > *highest)
        highest = offset;
    };
    consider(0);
    consider((limit - item.size) / alignment * alignment);
    for (auto [begin, end] : taken) {
      consider(alignUp(end, alignment));
      if (begin >= item.size)
        consider((begin - item.size) / alignment * alignment);
    }
    if (!lowest)
      return std::nullopt;
    uint64_t offset = *lowest;
    if (!taken.empty() && *highest != *lowest) {
      // Farther from the middle of what it must avoid.
      double middle = 0;
      for (auto [begin, end] : taken)
        middle += (double(begin) + double(end)) / 2;
      middle /= double(taken.size());
      auto distance = [&](uint64_t at) {
        return std::abs(double(at) + double(item.size) / 2 - middle);
      };
      if (distance(*highest) > distance(*lowest))
        offset = *highest;
    }
    packing.offsets[index] = offset;
    packing.size = std::max(packing.size, offset + item.size);
    placed.push_back(index);
  }
  return packing;
}

} // namespace

uint64_t itemAlignment(uint64_t size, uint32_t alignment) {
  uint64_t limit = std::max<uint32_t>(alignment, 1);
  if (size == 0 || size >= 4 * limit)
    return limit;
  return std::min(limit, size & (~size + 1)); // the largest power of two dividing size
}

Packing packBuffers(llvm::ArrayRef<PackingItem> items, uint32_t alignment) {
  uint32_t align = std::max<uint32_t>(alignment, 1);
  std::vector<size_t> bySize(items.size());
  std::iota(bySize.begin(), bySize.end(), 0);
  std::stable_sort(bySize.begin(), bySize.end(), [&](size_t a, size_t b) {
    if (items[a].size != items[b].size)
      return items[a].size > items[b].size;
    return items[a].start < items[b].start;
  });
  Packing best = packInOrder(items, bySize, align);

  auto tryOrder = [&](auto before) {
    std::vector<size_t> order = bySize;
    std::stable_sort(order.begin(), order.end(), before);
    Packing packing = packInOrder(items, order, align);
    if (packing.size < best.size)
      best = std::move(packing);
  };
  auto length = [&](size_t i) { return uint64_t(items[i].end - items[i].start) + 1; };
  tryOrder([&](size_t a, size_t b) { return length(a) > length(b); });
  // Area first: what is both big and long-lived is hardest to place late.
  tryOrder([&](size_t a, size_t b) {
    return items[a].size * length(a) > items[b].size * length(b);
  });
  // In schedule order, the classic first fit for intervals.
  tryOrder([&](size_t a, size_t b) { return items[a].start < items[b].start; });

  // Between the two ends of an arena a little above the lower bound: the
  // plan for chains of buffers.
  const uint64_t bound = liveBytesLowerBound(items);
  std::vector<size_t> bySchedule = bySize;
  std::stable_sort(bySchedule.begin(), bySchedule.end(),
                   [&](size_t a, size_t b) { return items[a].start < items[b].start; });
  // The bound itself first, then room for alignment, then a little more.
  const uint64_t limits[] = {bound, bound + align, uint64_t(double(bound) * 1.01) + align,
                             uint64_t(double(bound) * 1.03) + align,
                             uint64_t(double(bound) * 1.1) + align};
  for (uint64_t limit : limits) {
    if (best.size <= bound || limit >= best.size)
      break;
    if (std::optional<Packing> packing = packBetweenEnds(items, bySchedule, align, limit)) {
      if (packing->size < best.size)
        best = std::move(*packing);
      break;
    }
  }

  // Sizes within a factor of two of each other in random orders (seeded, so
  // plans are reproducible): big-first puts all the big buffers at the
  // bottom, where alternating big and medium ones often packs tighter.
  // Stops early once a plan meets the lower bound; fewer tries on big graphs.
  const int tries = items.size() <= 500 ? 32 : items.size() <= 2000 ? 8 : 0;
  std::mt19937_64 random(0x6d6f7465);
  std::uniform_real_distribution<double> jitter(1.0, 2.0);
  std::vector<double> key(items.size());
  for (int t = 0; t < tries && best.size > bound; ++t) {
    for (size_t i = 0; i < items.size(); ++i)
      key[i] = double(items[i].size) * jitter(random);
    tryOrder([&](size_t a, size_t b) { return key[a] > key[b]; });
  }
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
