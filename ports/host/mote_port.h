/*===- ports/host/mote_port.h - The port contract, on Linux / Android ------===
 *
 * The port contract (mote/port.h) on Linux and Android, so one program
 * builds for the host and for bare-metal boards alike. Host-only extras, such
 * as the thread pool, are in mote_host.h.
 *
 * - TransferManager: mote_host_transfer_init (direct memory).
 * - env: sequential (parallel_for null); for threads, give the model a
 *   mote_host_thread_pool's env instead.
 * - make_executable: for memory from mote_host_code_alloc, makes it
 *   read+execute and flushes the instruction cache; MOTE_UNSUPPORTED when
 *   the port is built without its code memory part.
 * - mote_port_write goes to stdout; mote_port_exit flushes it and ends the
 *   process.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_PORT_H
#define MOTE_PORT_H

#include "mote_host.h"

/* Alignment of device buffers and of host memory used in place. */
#define MOTE_PORT_ALIGNMENT MOTE_HOST_ALIGNMENT

#include "mote/port.h"

#endif /* MOTE_PORT_H */
