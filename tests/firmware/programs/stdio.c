/*===- tests/firmware/programs/stdio.c - printf on the board's console ----===
 *
 * The port defines the C library's stdout over its console (picolibc's
 * stdio hooks), so printf and puts work with nothing else set up, and their
 * text comes out in order with mote_port_write's.
 *
 *===----------------------------------------------------------------------===*/
#include <stdio.h>

#include "mote_port.h"

int main(void) {
  printf("printf %d %s %.2f", 42, "works", 1.5);
  mote_port_write(" | after mote_port_write\n");
  puts("puts works");
  return 0;
}
