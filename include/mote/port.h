/*===- mote/port.h - The few functions every port supplies -------------------===
 *
 * A port is a link-time contract: each ports/<name>/mote_port.h defines
 * MOTE_PORT_ALIGNMENT, says how that port keeps the promises below, and
 * includes this header; the port's library defines the functions. A program
 * written against them builds unchanged for the host and for any board.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_PORT_CONTRACT_H
#define MOTE_PORT_CONTRACT_H

#include <stddef.h>

#include "mote/mote.h"

#ifndef MOTE_PORT_ALIGNMENT
#error "include the port's mote_port.h, which defines MOTE_PORT_ALIGNMENT"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The port's TransferManager, device buffers carved from `arena`.
 * `storage` and `arena` must outlive `out_transfer`. */
mote_status mote_port_transfer_init(mote_direct_transfer *storage, mote_arena *arena,
                                    mote_transfer_manager *out_transfer);

/* The services generated code may call (parallel_for may be null: loops then
 * run sequentially). Lives forever. */
const mote_env *mote_port_env(void);

/* The package loader's make_executable hook (mote/package.h): makes `size`
 * bytes of loaded code at `memory` executable. `user` is unused. */
mote_status mote_port_make_executable(void *user, void *memory, size_t size);

/* Writes a NUL-terminated string to the console as it is (no newline). */
void mote_port_write(const char *text);

/* Ends the run with `status` (0 for success); never returns. */
__attribute__((noreturn)) void mote_port_exit(int status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_PORT_CONTRACT_H */
