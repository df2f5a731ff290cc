/*===- ports/riscv32/startup.c - Reset for RV32 bare metal -------------------===
 *
 * What runs before main on a RISC-V 32 core in machine mode: the entry point
 * sets the stack and global pointers (assembly, since C needs a stack), then
 * the C part turns on the FPU when the F extension is used, copies .data from
 * flash, zeroes .bss, guards the stack (stack_guard.c), runs C++
 * constructors, calls main and ends the run through semihosting with main's
 * status. A trap ends the run with status 134, so a test sees a crash
 * instead of a hang; it runs on a stack of its own, so an overflowed stack
 * can still report itself. The symbols come from sections.ld.
 *
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "mote_port.h"

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern void (*const __init_array_start[])(void), (*const __init_array_end[])(void);
extern uint32_t __StackLimit[];

int main(void);

__asm__(".pushsection .text.entry, \"ax\", @progbits\n"
        ".globl mote_entry\n"
        "mote_entry:\n"
        ".option push\n"
        ".option norelax\n"
        "  la gp, __global_pointer$\n"
        ".option pop\n"
        "  la sp, __StackTop\n"
        "  la t0, mote_trap_entry\n"
        ".option push\n"
        ".option arch, +zicsr\n" /* CSR access is its own extension to GCC 12 */
        "  csrw mtvec, t0\n"
        ".option pop\n"
        "  j mote_reset\n"
        /* mtvec needs 4-byte alignment. */
        ".balign 4\n"
        "mote_trap_entry:\n"
        "  la sp, __handler_stack_top\n"
        "  j mote_trap_handler\n"
        ".popsection\n");

/* Word loops instead of memcpy/memset: they run before the C library may be
 * used, and the optimize attribute keeps GCC from turning them into calls. */
__attribute__((noreturn, used, optimize("no-tree-loop-distribute-patterns"))) void
mote_reset(void) {
#if defined(__riscv_flen)
  /* mstatus.FS = initial: floating-point instructions trap while it is off. */
  __asm__ volatile("li t0, 0x2000\n\tcsrs mstatus, t0" ::: "t0"); /* F implies Zicsr */
#endif
  for (uint32_t *src = __data_load, *dst = __data_start; dst < __data_end;)
    *dst++ = *src++;
  for (uint32_t *dst = __bss_start; dst < __bss_end;)
    *dst++ = 0;
  if (mote_port_stack_guard(__StackLimit) != MOTE_OK)
    mote_port_write("mote: no stack guard on this hart\n");
  for (void (*const *init)(void) = __init_array_start; init < __init_array_end; ++init)
    (*init)();
  mote_port_exit(main());
}

__attribute__((noreturn, used)) void mote_trap_handler(void) {
  mote_port_write(mote_port_fault_is_stack_overflow() ? "mote: stack overflow\n" : "mote: trap\n");
  mote_port_exit(134);
}
