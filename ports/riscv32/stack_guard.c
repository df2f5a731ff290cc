/*===- ports/riscv32/stack_guard.c - Stack overflow becomes a trap ----------===
 *
 * The lowest MOTE_STACK_GUARD_SIZE bytes of the stack are its guard: a
 * locked PMP region with no permissions, which machine mode must obey too,
 * so the first access past the stack's end raises an access fault instead
 * of overwriting .bss. The trap handler then needs a stack of its own
 * (startup.c switches to one before any C runs).
 *
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "mote_port.h"

static uintptr_t guard_begin, guard_end;

mote_status mote_port_stack_guard(void *stack_limit) {
  uintptr_t base = (uintptr_t)stack_limit;
  if (base % MOTE_STACK_GUARD_SIZE != 0)
    return MOTE_MISALIGNED;
  /* NAPOT: the region base..base+size-1 is encoded as (base + size/2 - 1) >> 2. */
  uintptr_t address = (base + MOTE_STACK_GUARD_SIZE / 2 - 1) >> 2;
  uintptr_t config = 0x80u /* L: machine mode obeys it */ | 0x18u /* A = NAPOT */;
  uintptr_t read_back = 0;
  __asm__ volatile(".option push\n\t.option arch, +zicsr\n\t"
                   "csrw pmpaddr0, %1\n\t"
                   "csrw pmpcfg0, %2\n\t"
                   "csrr %0, pmpcfg0\n\t"
                   ".option pop"
                   : "=r"(read_back)
                   : "r"(address), "r"(config)
                   : "memory");
  if ((read_back & 0xFFu) != config)
    return MOTE_UNSUPPORTED; /* no PMP on this hart */
  guard_begin = base;
  guard_end = base + MOTE_STACK_GUARD_SIZE;
  return MOTE_OK;
}

int mote_port_fault_is_stack_overflow(void) {
  uintptr_t cause, value;
  __asm__ volatile(".option push\n\t.option arch, +zicsr\n\t"
                   "csrr %0, mcause\n\tcsrr %1, mtval\n\t.option pop"
                   : "=r"(cause), "=r"(value));
  /* 5: load access fault, 7: store access fault, at mtval. */
  return (cause == 5 || cause == 7) && value >= guard_begin && value < guard_end;
}
