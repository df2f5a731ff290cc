/*===- ports/cortex-m/mote_port.h - What this port gives firmware -----------===
 *
 * The port contract (mote/port.h) on bare-metal Cortex-M. main's return value
 * becomes the exit status (startup.c); printf, puts and putchar from
 * <stdio.h> go to the same semihosting console as mote_port_write.
 *
 * - TransferManager: the CPU and the model share memory directly (flash and
 *   RAM alike): the runtime's direct-memory one with MOTE_PORT_ALIGNMENT.
 * - env: none, since there is one core and no scheduler.
 * - make_executable: RAM is executable (the MPU's background map allows it),
 *   so it only waits for the writes and flushes the pipeline (dsb; isb). A
 *   core with caches (M7 on silicon) must also clean the data cache and
 *   invalidate the instruction cache there.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_PORT_H
#define MOTE_PORT_H

/* Alignment of device buffers and of host memory used in place. LDRD/LDM
 * and MVE loads need at most 8; more would only waste RAM. */
#define MOTE_PORT_ALIGNMENT 8u

#include "mote/port.h"
#include "mote/stack_guard.h" /* mote_port_stack_guard, implemented by the port */

#endif /* MOTE_PORT_H */
