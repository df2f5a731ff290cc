/*===- ports/semihosting/semihosting.h - The one call each board port makes ===
 *
 * Semihosting lets firmware use the debugger's (or QEMU's) console and exit.
 * The protocol is Arm's on every core; only the instruction that traps to
 * the debugger differs, so each port defines mote_semihost_call and shares
 * console.c (mote_port_write, mote_port_exit and the C library's stdio).
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_PORTS_SEMIHOSTING_H
#define MOTE_PORTS_SEMIHOSTING_H

#include <stdint.h>

enum {
  MOTE_SYS_WRITE0 = 0x04,        /* a NUL-terminated string to the console */
  MOTE_SYS_EXIT_EXTENDED = 0x20, /* end the run with a status */
  MOTE_ADP_STOPPED_APPLICATION_EXIT = 0x20026,
};

/* Operation `op` with argument block `arg`; returns the debugger's answer. */
uintptr_t mote_semihost_call(uintptr_t op, const void *arg);

#endif /* MOTE_PORTS_SEMIHOSTING_H */
