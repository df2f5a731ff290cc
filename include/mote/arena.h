/*===- mote/arena.h - A bump allocator over caller memory ------------------===
 *
 * The runtime allocates nothing: the caller hands in one block of memory and
 * the arena carves it up front to back. Nothing is freed one by one; reset
 * makes the whole block available again. Ownership of the memory remains
 * with the caller, which must keep it alive while anything carved from it is
 * in use.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_ARENA_H
#define MOTE_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "mote/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mote_arena {
  uint8_t *base;
  size_t size;
  size_t used;
} mote_arena;

/* Makes `arena` carve from `size` bytes at `memory` (which may be null when
 * `size` is 0). `memory` must outlive every allocation taken from `arena`. */
void mote_arena_init(mote_arena *arena, void *memory, size_t size);

/* Carves `size` bytes aligned to `alignment` (a power of two, 0 means 1)
 * into `*out_memory`. MOTE_INVALID_ARGUMENT for a bad alignment,
 * MOTE_BUFFER_TOO_SMALL when the rest of the block cannot hold it (the
 * arena is then unchanged). A zero-byte allocation returns an aligned
 * pointer into the block; an arena over no memory fails every allocation. */
mote_status mote_arena_allocate(mote_arena *arena, size_t size, size_t alignment,
                                void **out_memory);

/* Forgets every allocation; the memory is reused from the start. */
void mote_arena_reset(mote_arena *arena);

/* Bytes carved so far (including alignment padding). */
size_t mote_arena_used(const mote_arena *arena);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_ARENA_H */
