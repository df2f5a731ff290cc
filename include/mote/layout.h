/*===- mote/layout.h - Element sizes, layouts and relayout -----------------===
 *
 * A layout is XLA's minor_to_major: layout[0] is the dimension whose index
 * varies fastest in memory. Host literals are row-major (dimension rank-1 is
 * minor, i.e. minor_to_major = {rank-1, ..., 1, 0}); compiled buffers use the
 * layout in the model descriptor. Relayout copies between the two without any
 * memory besides a few int64_t[MOTE_MAX_RANK] on the stack.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_LAYOUT_H
#define MOTE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "mote/abi.h"
#include "mote/config.h"
#include "mote/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of one element of `element_type` (a mote_element_type); 0 when the
 * type is unknown. pred is one byte. */
size_t mote_element_size(uint32_t element_type);

/* Non-zero when `minor_to_major` (`rank` entries) is a permutation of
 * 0..rank-1. */
int mote_layout_is_valid(uint32_t rank, const uint8_t *minor_to_major);

/* Non-zero when `minor_to_major` is row-major ({rank-1, ..., 0}). A null
 * layout means row-major. Ranks 0 and 1 are always row-major. */
int mote_layout_is_row_major(uint32_t rank, const uint8_t *minor_to_major);

/* Non-zero when copying bytes as they are between the two layouts gives the
 * same tensor: the layouts are equal once dimensions of size 1 are ignored. */
int mote_layout_is_same_order(uint32_t rank, const int64_t *dims, const uint8_t *a,
                              const uint8_t *b);

/* Copies a dense tensor of `rank` dimensions `dims` and `element_size`-byte
 * elements from `src` in layout `src_minor_to_major` to `dst` in layout
 * `dst_minor_to_major` (null = row-major). `src` and `dst` must not overlap
 * and hold product(dims) * element_size bytes each. MOTE_UNSUPPORTED when
 * rank > MOTE_MAX_RANK, MOTE_INVALID_ARGUMENT for a layout that is not a
 * permutation, negative dims or a null pointer with a non-empty tensor.
 * Pointers are used only during the call. */
mote_status mote_relayout(const void *src, const uint8_t *src_minor_to_major, void *dst,
                          const uint8_t *dst_minor_to_major, uint32_t rank, const int64_t *dims,
                          size_t element_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_LAYOUT_H */
