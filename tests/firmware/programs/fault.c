/*===- tests/firmware/programs/fault.c - A crash ends the run -------------===
 *
 * Reads through an address no memory answers (Arm: a bus fault; RISC-V: an
 * access fault). The port's fault/trap handler must report it and end the
 * run with status 134, so a test sees the crash instead of a hang.
 *
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "mote_port.h"

int main(void) {
  mote_port_write("about to fault\n");
  /* Above every RAM and peripheral window on the QEMU boards used. */
  volatile uint32_t *nowhere = (volatile uint32_t *)0xF0000000u;
  return (int)*nowhere;
}
