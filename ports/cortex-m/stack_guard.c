/*===- ports/cortex-m/stack_guard.c - Stack overflow becomes a fault --------===
 *
 * The lowest MOTE_STACK_GUARD_SIZE bytes of the thread stack are its guard.
 * On Armv7-M (M4, M7) an MPU region makes them inaccessible, so the first
 * store past the stack's end raises a MemManage fault instead of
 * overwriting .bss; on Armv8-M (M55) the process stack limit register does
 * the same in hardware (a UsageFault, STKOF) and needs no MPU. Either way
 * the fault handler must run on another stack than the one that overflowed:
 * startup.c runs main on the process stack (PSP) and handlers on the main
 * stack (MSP).
 *
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "mote_port.h"

#define REG(address) (*(volatile uint32_t *)(address))
#define SCB_SHCSR REG(0xE000ED24u)
#define SCB_CFSR REG(0xE000ED28u)
#define SCB_MMFAR REG(0xE000ED34u)
#define MPU_TYPE REG(0xE000ED90u)
#define MPU_CTRL REG(0xE000ED94u)
#define MPU_RNR REG(0xE000ED98u)
#define MPU_RBAR REG(0xE000ED9Cu)
#define MPU_RASR REG(0xE000EDA0u)

static uintptr_t guard_begin, guard_end;

mote_status mote_port_stack_guard(void *stack_limit) {
  uintptr_t base = (uintptr_t)stack_limit;
  if (base % MOTE_STACK_GUARD_SIZE != 0)
    return MOTE_MISALIGNED;
  /* Fault handlers of their own (not HardFault) for MPU and usage faults. */
  SCB_SHCSR |= (1u << 16) | (1u << 17) | (1u << 18);
#if __ARM_ARCH >= 8
  uintptr_t limit = base + MOTE_STACK_GUARD_SIZE;
  __asm__ volatile("msr psplim, %0" ::"r"(limit));
#else
  uint32_t regions = (MPU_TYPE >> 8) & 0xFFu;
  if (regions == 0)
    return MOTE_UNSUPPORTED;
  /* The highest region wins where regions overlap; the background map
   * (PRIVDEFENA) keeps everything else as it was for privileged code. */
  MPU_RNR = regions - 1;
  MPU_RBAR = base;
  uint32_t size_field = 0; /* region size = 2^(size_field + 1) */
  while ((2u << size_field) < MOTE_STACK_GUARD_SIZE)
    ++size_field;
  MPU_RASR = (1u << 28) /* XN */ | (0u << 24) /* no access */ | (size_field << 1) | 1u;
  MPU_CTRL = (1u << 2) /* PRIVDEFENA */ | 1u;
#endif
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  guard_begin = base;
  guard_end = base + MOTE_STACK_GUARD_SIZE;
  return MOTE_OK;
}

int mote_port_fault_is_stack_overflow(void) {
  uint32_t cfsr = SCB_CFSR;
  if (cfsr & (1u << 20)) /* UFSR.STKOF: below the stack limit (v8-M) */
    return 1;
  if (guard_end == 0)
    return 0;
  if (cfsr & (1u << 4)) /* MMFSR.MSTKERR: stacking for an exception hit the guard */
    return 1;
  /* MMFSR.DACCVIOL with MMARVALID: a data access at MMFAR. */
  return (cfsr & 0x82u) == 0x82u && SCB_MMFAR >= guard_begin && SCB_MMFAR < guard_end;
}
