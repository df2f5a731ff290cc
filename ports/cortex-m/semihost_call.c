/*===- ports/cortex-m/semihost_call.c - Arm semihosting: bkpt 0xab ---------===*/
#include "semihosting.h"

uintptr_t mote_semihost_call(uintptr_t op, const void *arg) {
  register uintptr_t r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}
