/*===- mote/stack_guard.h - A stack overflow becomes a reported fault -------===
 *
 * Part of the bare-metal port contract (mote/port.h): the lowest
 * MOTE_STACK_GUARD_SIZE bytes of the stack main runs on are a guard the
 * hardware refuses to touch (an MPU region on Armv7-M, the stack limit
 * register on Armv8-M, a locked PMP region on RISC-V), so the first store
 * past the stack's end faults instead of overwriting what lies below it.
 * The fault handler must run on another stack: Mote's startup code runs
 * main on one stack and handlers on a second (sections.ld of each port).
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_STACK_GUARD_H
#define MOTE_STACK_GUARD_H

#include "mote/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes at the bottom of the stack that no code may touch; the stack's
 * lowest address must be aligned to it. */
#define MOTE_STACK_GUARD_SIZE 256u

/* Guards the MOTE_STACK_GUARD_SIZE bytes at `stack_limit`, the lowest
 * address of the stack main runs on. Mote's startup calls it with
 * __StackLimit; firmware with its own startup may call it once, before
 * main's work, with its fault handlers on another stack (on Cortex-M: main
 * on the process stack, handlers on the main stack). MOTE_MISALIGNED for a
 * misaligned limit, MOTE_UNSUPPORTED on a core without the hardware. */
mote_status mote_port_stack_guard(void *stack_limit);

/* In a fault or trap handler: 1 when the fault came from the guarded stack
 * running past its end, else 0. */
int mote_port_fault_is_stack_overflow(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_STACK_GUARD_H */
