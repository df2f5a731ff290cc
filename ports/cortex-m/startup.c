/*===- ports/cortex-m/startup.c - Vector table and reset for Cortex-M -------===
 *
 * What runs before main on a Cortex-M without an operating system: the vector
 * table (initial stack pointer and handlers), the reset handler that turns on
 * the FPU, copies .data from flash, zeroes .bss, runs C++ constructors, calls
 * main and ends the run through semihosting with main's status. Any fault
 * ends the run too, with status 134 like QEMU's own "Lockup", so a test sees
 * it instead of hanging.
 * The symbols come from sections.ld.
 *
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "mote_port.h"

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern void (*const __init_array_start[])(void), (*const __init_array_end[])(void);
extern uint32_t __stack_top[];

int main(void);

/* Word loops instead of memcpy/memset: they run before the C library may be
 * used, and the optimize attribute keeps GCC from turning them into calls. */
__attribute__((noreturn, used, optimize("no-tree-loop-distribute-patterns"))) void
mote_reset_handler(void) {
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
  for (void (*const *init)(void) = __init_array_start; init < __init_array_end; ++init)
    (*init)();
  mote_port_exit(main());
}

__attribute__((noreturn)) static void fault_handler(void) {
  mote_port_write("mote: fault\n");
  mote_port_exit(134);
}

typedef void (*vector_fn)(void);

/* The sixteen system vectors; no device interrupt is used. */
__attribute__((section(".vectors"), used)) const vector_fn mote_vector_table[16] = {
    (vector_fn)__stack_top,
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
