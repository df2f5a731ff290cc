/*===- ports/cortex-m/semihosting.c - Console and exit over Arm semihosting -===
 *
 * The board services of this port, through the debugger (QEMU -semihosting):
 * text to the host's stdout and the end of the run with a status. puts and
 * putchar are supplied here so firmware can print without the C library's
 * stdio. Writes go one string at a time (SYS_WRITE0): few traps, no buffer.
 *
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "mote_port.h"

enum {
  SYS_WRITEC = 0x03,
  SYS_WRITE0 = 0x04,
  SYS_EXIT_EXTENDED = 0x20,
  ADP_STOPPED_APPLICATION_EXIT = 0x20026,
};

static uintptr_t semihost_call(uintptr_t op, const void *arg) {
  register uintptr_t r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void mote_port_write(const char *text) { semihost_call(SYS_WRITE0, text); }

void mote_port_exit(int status) {
  /* SYS_EXIT_EXTENDED carries the status; plain SYS_EXIT only says "ok". */
  const uintptr_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uintptr_t)status};
  for (;;)
    semihost_call(SYS_EXIT_EXTENDED, block);
}

int putchar(int c) {
  const char ch = (char)c;
  semihost_call(SYS_WRITEC, &ch);
  return (unsigned char)c;
}

int puts(const char *text) {
  mote_port_write(text);
  putchar('\n');
  return 0;
}
