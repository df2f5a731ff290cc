/*===- own_board/startup.c - A board's own startup, as a vendor writes it ===
 *
 * Firmware that keeps its board's startup code and linker script and links
 * only mote::port_services: this reset handler and vector table know
 * nothing of Mote's (CMSIS-style names from board.ld), and the port needs no
 * symbol from them. It guards its own stack with mote_port_stack_guard, as
 * ports/README.md describes, after moving main to the process stack; main
 * is static_path.c's.
 *
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "mote_port.h"

extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[];
extern uint32_t _stack_bottom[], _estack[], _handler_estack[];

int main(void);

__attribute__((noreturn, used, optimize("no-tree-loop-distribute-patterns"))) void
board_start(void) {
  volatile uint32_t *cpacr = (volatile uint32_t *)0xE000ED88u; /* FPU on */
  *cpacr |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  for (uint32_t *src = _sidata, *dst = _sdata; dst < _edata;)
    *dst++ = *src++;
  for (uint32_t *dst = _sbss; dst < _ebss;)
    *dst++ = 0;
  if (mote_port_stack_guard(_stack_bottom) != MOTE_OK)
    mote_port_exit(3);
  mote_port_exit(main());
}

__attribute__((naked, noreturn, used)) void Reset_Handler(void) {
  __asm__ volatile("movw r0, #:lower16:_estack\n\t"
                   "movt r0, #:upper16:_estack\n\t"
                   "msr psp, r0\n\t"
                   "movs r0, #2\n\t"
                   "msr control, r0\n\t"
                   "isb\n\t"
                   "b board_start\n");
}

__attribute__((noreturn)) static void Fault_Handler(void) {
  mote_port_write(mote_port_fault_is_stack_overflow() ? "board: stack overflow\n"
                                                      : "board: fault\n");
  mote_port_exit(134);
}

__attribute__((section(".isr_vector"), used)) void (*const g_pfnVectors[16])(void) = {
    (void (*)(void))_handler_estack,
    Reset_Handler,
    Fault_Handler,
    Fault_Handler,
    Fault_Handler,
    Fault_Handler,
    Fault_Handler,
    0,
    0,
    0,
    0,
    Fault_Handler,
    Fault_Handler,
    0,
    Fault_Handler,
    Fault_Handler};
