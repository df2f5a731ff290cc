/*===- host_code_memory.h - Executable memory for loaded code on Linux -----===
 *
 * The host port's part of loading a package: page-aligned memory the loader
 * writes the image into (read-write), then turned read+execute with the
 * instruction cache flushed (mote_make_executable_fn). Code is never
 * writable and executable at once.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_PORTS_HOST_HOST_CODE_MEMORY_H
#define MOTE_PORTS_HOST_HOST_CODE_MEMORY_H

#include <stddef.h>

#include "mote/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Read-write memory of at least `size` bytes, page-aligned (so any code
 * object alignment up to the page size holds). MOTE_UNSUPPORTED when the
 * system refuses. Release with mote_host_code_free. */
mote_status mote_host_code_alloc(size_t size, void **out_memory);

/* A mote_make_executable_fn: makes [memory, memory + size) read+execute and
 * flushes the instruction cache. `user` is unused. */
mote_status mote_host_code_make_executable(void *user, void *memory, size_t size);

/* Releases memory from mote_host_code_alloc (`size` as allocated). */
void mote_host_code_free(void *memory, size_t size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_PORTS_HOST_HOST_CODE_MEMORY_H */
