// ===- runtime/core/layout.cc - Element sizes, layouts and relayout -------===
//
// Relayout walks the destination in memory order and steps through the
// source with per-dimension strides, so it needs only two small arrays on the
// stack and never divides (64-bit division is a libgcc call on 32-bit cores).
#include "mote/layout.h"

#include <string.h>

extern "C" size_t mote_element_size(uint32_t element_type) {
  switch (element_type) {
  case MOTE_PRED:
  case MOTE_S8:
  case MOTE_U8:
  case MOTE_S4:
  case MOTE_U4:
  case MOTE_S2:
  case MOTE_U2:
    return 1;
  case MOTE_S16:
  case MOTE_U16:
  case MOTE_F16:
  case MOTE_BF16:
    return 2;
  case MOTE_S32:
  case MOTE_U32:
  case MOTE_F32:
    return 4;
  case MOTE_S64:
  case MOTE_U64:
  case MOTE_F64:
  case MOTE_C64:
    return 8;
  case MOTE_C128:
    return 16;
  }
  return 0;
}

extern "C" int mote_layout_is_valid(uint32_t rank, const uint8_t *minor_to_major) {
  if (rank > MOTE_MAX_RANK)
    return 0;
  if (rank == 0)
    return 1;
  if (!minor_to_major)
    return 0;
  uint32_t seen = 0; // MOTE_MAX_RANK <= 32 is checked below
  static_assert(MOTE_MAX_RANK <= 32, "the permutation check uses a 32-bit mask");
  for (uint32_t i = 0; i < rank; ++i) {
    uint32_t d = minor_to_major[i];
    if (d >= rank || (seen & (1u << d)))
      return 0;
    seen |= 1u << d;
  }
  return 1;
}

extern "C" int mote_layout_is_row_major(uint32_t rank, const uint8_t *minor_to_major) {
  if (!minor_to_major)
    return 1;
  for (uint32_t i = 0; i < rank; ++i)
    if (minor_to_major[i] != rank - 1 - i)
      return 0;
  return 1;
}

// The i-th dimension of `layout` (null = row-major), minor first.
static uint32_t dim_at(const uint8_t *layout, uint32_t rank, uint32_t i) {
  return layout ? layout[i] : rank - 1 - i;
}

extern "C" int mote_layout_is_same_order(uint32_t rank, const int64_t *dims, const uint8_t *a,
                                         const uint8_t *b) {
  // Compare the two orders with unit dimensions skipped: they do not move
  // any element, so e.g. f32[1,4]{0,1} is stored exactly like {1,0}.
  uint32_t i = 0, j = 0;
  for (;;) {
    while (i < rank && dims[dim_at(a, rank, i)] == 1)
      ++i;
    while (j < rank && dims[dim_at(b, rank, j)] == 1)
      ++j;
    if (i == rank || j == rank)
      return i == rank && j == rank;
    if (dim_at(a, rank, i) != dim_at(b, rank, j))
      return 0;
    ++i;
    ++j;
  }
}

// Copies one element; constant sizes become single loads and stores.
static inline void copy_element(uint8_t *dst, const uint8_t *src, size_t size) {
  switch (size) {
  case 1:
    *dst = *src;
    return;
  case 2:
    memcpy(dst, src, 2);
    return;
  case 4:
    memcpy(dst, src, 4);
    return;
  case 8:
    memcpy(dst, src, 8);
    return;
  default:
    memcpy(dst, src, size);
    return;
  }
}

extern "C" mote_status mote_relayout(const void *src, const uint8_t *src_minor_to_major, void *dst,
                                     const uint8_t *dst_minor_to_major, uint32_t rank,
                                     const int64_t *dims, size_t element_size) {
  if (rank > MOTE_MAX_RANK)
    return MOTE_UNSUPPORTED;
  if (element_size == 0 || (rank && !dims))
    return MOTE_INVALID_ARGUMENT;
  if ((src_minor_to_major && !mote_layout_is_valid(rank, src_minor_to_major)) ||
      (dst_minor_to_major && !mote_layout_is_valid(rank, dst_minor_to_major)))
    return MOTE_INVALID_ARGUMENT;
  uint64_t count = 1;
  for (uint32_t d = 0; d < rank; ++d) {
    if (dims[d] < 0)
      return MOTE_INVALID_ARGUMENT;
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(dims[d]), &count))
      return MOTE_INVALID_ARGUMENT;
  }
  if (count == 0)
    return MOTE_OK;
  uint64_t bytes;
  if (__builtin_mul_overflow(count, static_cast<uint64_t>(element_size), &bytes) ||
      bytes > SIZE_MAX)
    return MOTE_INVALID_ARGUMENT;
  if (!src || !dst)
    return MOTE_INVALID_ARGUMENT;
  if (mote_layout_is_same_order(rank, dims, src_minor_to_major, dst_minor_to_major)) {
    memcpy(dst, src, static_cast<size_t>(bytes));
    return MOTE_OK;
  }

  // Source stride (in bytes) of each logical dimension.
  int64_t src_stride[MOTE_MAX_RANK];
  int64_t stride = static_cast<int64_t>(element_size);
  for (uint32_t i = 0; i < rank; ++i) {
    uint32_t d = dim_at(src_minor_to_major, rank, i);
    src_stride[d] = stride;
    stride *= dims[d];
  }
  // Walk the destination in memory order: counter[i] counts the i-th
  // minor-most destination dimension.
  int64_t counter[MOTE_MAX_RANK] = {0};
  const uint8_t *from = static_cast<const uint8_t *>(src);
  uint8_t *to = static_cast<uint8_t *>(dst);
  uint32_t minor = dim_at(dst_minor_to_major, rank, 0);
  int64_t minor_size = dims[minor];
  int64_t minor_stride = src_stride[minor];
  for (;;) {
    const uint8_t *row = from;
    for (int64_t k = 0; k < minor_size; ++k) {
      copy_element(to, row, element_size);
      to += element_size;
      row += minor_stride;
    }
    // Advance the next-to-minor counters like an odometer.
    uint32_t i = 1;
    for (; i < rank; ++i) {
      uint32_t d = dim_at(dst_minor_to_major, rank, i);
      from += src_stride[d];
      if (++counter[i] < dims[d])
        break;
      from -= src_stride[d] * dims[d];
      counter[i] = 0;
    }
    if (i >= rank)
      return MOTE_OK;
  }
}
