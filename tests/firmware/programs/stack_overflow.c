/*===- tests/firmware/programs/stack_overflow.c - The stack guard reports ===
 *
 * Recurses until the stack runs out. The port's stack guard (an MPU region
 * on Armv7-M, the stack limit register on Armv8-M, a PMP region on RV32)
 * must turn the first store past the stack's end into a fault that says
 * "mote: stack overflow" and ends the run with status 134, before anything
 * below the stack is overwritten: `canary`, in .bss just below the stack,
 * must still hold its value (it is printed by nothing, so a silent overflow
 * would show as the test's missing line, never as a pass).
 *
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "mote_port.h"

volatile uint32_t canary = 0;

/* Each call keeps 64 bytes live across the next, so the recursion cannot
 * become a loop. */
__attribute__((noinline)) static uint32_t descend(uint32_t depth) {
  volatile uint32_t frame[16];
  for (int i = 0; i < 16; ++i)
    frame[i] = depth + (uint32_t)i;
  if (canary != 0x600dcafeu) {
    mote_port_write("the guard let the stack overwrite .bss\n");
    mote_port_exit(1);
  }
  return descend(depth + 1) + frame[depth % 16];
}

int main(void) {
  canary = 0x600dcafeu;
  mote_port_write("descending\n");
  return (int)descend(0);
}
