/*===- ports/riscv32/mote_port.h - What this port gives firmware -----------===
 *
 * The port contract (mote/port.h) on bare-metal RV32 (QEMU virt). main's
 * return value becomes the exit status (startup.c); printf, puts and
 * putchar from <stdio.h> go to the same semihosting console as
 * mote_port_write.
 *
 * - TransferManager: the runtime's direct-memory one with MOTE_PORT_ALIGNMENT.
 * - env: none, since there is one hart and no scheduler.
 * - make_executable: memory outside the stack guard is executable in machine
 *   mode, so it only orders the writes before instruction fetch (fence.i).
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_PORT_H
#define MOTE_PORT_H

/* Alignment of device buffers and of host memory used in place: the widest
 * access generated code makes is 8 bytes. */
#define MOTE_PORT_ALIGNMENT 8u

#include "mote/port.h"
#include "mote/stack_guard.h" /* mote_port_stack_guard, implemented by the port */

#endif /* MOTE_PORT_H */
