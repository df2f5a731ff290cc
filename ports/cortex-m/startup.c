/*===- ports/cortex-m/startup.c - Vector table and reset for Cortex-M -------===
 *
 * What runs before main on a Cortex-M without an operating system: the vector
 * table (initial stack pointer and handlers) and the reset handler. Reset
 * moves the program to the process stack (PSP, from __StackLimit to
 * __StackTop) and leaves the main stack (MSP, up to __handler_stack_top) to
 * exception handlers, turns on the FPU, copies .data from flash, zeroes .bss,
 * guards the stack (stack_guard.c), runs C++ constructors, calls main and
 * ends the run through semihosting with main's status. Any fault ends the
 * run too, with status 134 like QEMU's own "Lockup", so a test sees it
 * instead of hanging; an overflow of the stack says so.
 * The symbols come from sections.ld.
 *
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "mote_port.h"

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern void (*const __init_array_start[])(void), (*const __init_array_end[])(void);
extern uint32_t __StackLimit[], __handler_stack_top[];

int main(void);

/* Word loops instead of memcpy/memset: they run before the C library may be
 * used, and the optimize attribute keeps GCC from turning them into calls. */
__attribute__((noreturn, used, optimize("no-tree-loop-distribute-patterns"))) void
mote_start(void) {
#if defined(__ARM_FP)
  /* CPACR: full access to coprocessors 10 and 11 (the FPU, and MVE on M55). */
  volatile uint32_t *cpacr = (volatile uint32_t *)0xE000ED88u;
  *cpacr |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  for (uint32_t *src = __data_load, *dst = __data_start; dst < __data_end;)
    *dst++ = *src++;
  for (uint32_t *dst = __bss_start; dst < __bss_end;)
    *dst++ = 0;
  if (mote_port_stack_guard(__StackLimit) != MOTE_OK)
    mote_port_write("mote: no stack guard on this core\n");
  for (void (*const *init)(void) = __init_array_start; init < __init_array_end; ++init)
    (*init)();
  mote_port_exit(main());
}

/* Thread mode on the process stack (CONTROL.SPSEL), then C. */
__attribute__((naked, noreturn, used)) void mote_reset_handler(void) {
  __asm__ volatile("movw r0, #:lower16:__StackTop\n\t"
                   "movt r0, #:upper16:__StackTop\n\t"
                   "msr psp, r0\n\t"
                   "movs r0, #2\n\t"
                   "msr control, r0\n\t"
                   "isb\n\t"
                   "b mote_start\n");
}

__attribute__((noreturn)) static void fault_handler(void) {
  mote_port_write(mote_port_fault_is_stack_overflow() ? "mote: stack overflow\n" : "mote: fault\n");
  mote_port_exit(134);
}

typedef void (*vector_fn)(void);

/* The sixteen system vectors; no device interrupt is used. */
__attribute__((section(".vectors"), used)) const vector_fn mote_vector_table[16] = {
    (vector_fn)__handler_stack_top,
    mote_reset_handler,
    fault_handler, /* NMI */
    fault_handler, /* HardFault */
    fault_handler, /* MemManage */
    fault_handler, /* BusFault */
    fault_handler, /* UsageFault */
    fault_handler, /* SecureFault (v8-M) */
    0,
    0,
    0,
    fault_handler, /* SVCall */
    fault_handler, /* DebugMonitor */
    0,
    fault_handler, /* PendSV */
    fault_handler, /* SysTick */
};
