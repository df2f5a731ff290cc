/*===- tests/firmware/programs/bare.c - Startup and console alone ----------===
 *
 * The baseline the footprint report subtracts: the port's startup and
 * semihosting console with nothing of the runtime.
 *
 *===----------------------------------------------------------------------===*/
#include "mote_port.h"

int main(void) {
  mote_port_write("bare\n");
  return 0;
}
