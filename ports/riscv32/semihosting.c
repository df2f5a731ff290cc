/*===- ports/riscv32/semihosting.c - Console and exit over RISC-V semihosting ===
 *
 * The board services of this port, through the debugger (QEMU -semihosting):
 * text to the host's stdout and the end of the run with a status. puts and
 * putchar are supplied here so firmware can print without the C library's
 * stdio. RISC-V semihosting is the Arm protocol behind a marked ebreak: the
 * three uncompressed instructions slli/ebreak/srai, in one aligned block.
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

/* a0 = operation, a1 = argument in; a0 = result out. 16 bytes at a 16-byte boundary, so the marker
 * sequence can never straddle a page (QEMU reads the instructions around the ebreak). */
uintptr_t mote_semihost_call(uintptr_t op, const void *arg);
__asm__(".pushsection .text.mote_semihost_call, \"ax\", @progbits\n"
        ".balign 16\n"
        ".globl mote_semihost_call\n"
        "mote_semihost_call:\n"
        ".option push\n"
        ".option norvc\n"
        "  slli zero, zero, 0x1f\n"
        "  ebreak\n"
        "  srai zero, zero, 7\n"
        "  ret\n"
        ".option pop\n"
        ".popsection\n");

void mote_port_write(const char *text) { mote_semihost_call(SYS_WRITE0, text); }

void mote_port_exit(int status) {
  /* SYS_EXIT_EXTENDED carries the status; plain SYS_EXIT only says "ok". */
  const uintptr_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uintptr_t)status};
  for (;;)
    mote_semihost_call(SYS_EXIT_EXTENDED, block);
}

int putchar(int c) {
  const char ch = (char)c;
  mote_semihost_call(SYS_WRITEC, &ch);
  return (unsigned char)c;
}

int puts(const char *text) {
  mote_port_write(text);
  putchar('\n');
  return 0;
}
