// ===- runtime/core/arena.cc - Bump allocation over caller memory ---------===
#include "mote/arena.h"

#include <stdint.h>

extern "C" void mote_arena_init(mote_arena *arena, void *memory, size_t size) {
  arena->base = static_cast<uint8_t *>(memory);
  arena->size = memory ? size : 0;
  arena->used = 0;
}

extern "C" mote_status mote_arena_allocate(mote_arena *arena, size_t size, size_t alignment,
                                           void **out_memory) {
  if (!arena || !out_memory)
    return MOTE_INVALID_ARGUMENT;
  if (alignment == 0)
    alignment = 1;
  if (alignment & (alignment - 1))
    return MOTE_INVALID_ARGUMENT;
  if (!arena->base)
    return MOTE_BUFFER_TOO_SMALL; // no memory: not even a zero-byte block has an address
  // Align the address, not the offset: the caller's block may start anywhere.
  uintptr_t start = reinterpret_cast<uintptr_t>(arena->base) + arena->used;
  size_t padding = static_cast<size_t>((alignment - (start & (alignment - 1))) & (alignment - 1));
  size_t left = arena->size - arena->used;
  if (padding > left || size > left - padding)
    return MOTE_BUFFER_TOO_SMALL;
  *out_memory = arena->base + arena->used + padding;
  arena->used += padding + size;
  return MOTE_OK;
}

extern "C" void mote_arena_reset(mote_arena *arena) { arena->used = 0; }

extern "C" size_t mote_arena_used(const mote_arena *arena) { return arena->used; }
