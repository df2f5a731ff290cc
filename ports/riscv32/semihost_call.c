/*===- ports/riscv32/semihost_call.c - RISC-V semihosting: a marked ebreak -===
 *
 * RISC-V semihosting is the Arm protocol behind the three uncompressed
 * instructions slli/ebreak/srai: a0 = operation, a1 = argument in, a0 =
 * result out. 16 bytes at a 16-byte boundary, so the marker sequence can
 * never straddle a page (QEMU reads the instructions around the ebreak).
 *
 *===----------------------------------------------------------------------===*/
#include "semihosting.h"

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
