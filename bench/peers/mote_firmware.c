/* mote_firmware.c - A Mote model as bare-metal firmware, for bench/cortex_m.py.
 *
 * Calls the entry function of the object motec compiled (MODEL_HEADER, ENTRY) on the
 * input in mote_input.h RUNS times, with its arena as a static array of
 * SCRATCH_BYTES, then prints the result and exits through semihosting: s8 values in
 * decimal, or with RESULT_F32 the f32 values' bits in hex (exact, and picolibc's
 * printf needs no float support).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include MODEL_HEADER
#include "mote_input.h"

#ifdef RESULT_F32
typedef float result_t;
#else
typedef int8_t result_t;
#endif

#define RESULT_COUNT (RESULT_BYTES / sizeof(result_t))

static uint8_t arena[SCRATCH_BYTES] __attribute__((aligned(16)));
static result_t result[RESULT_COUNT];

static void print_result(result_t value) {
#ifdef RESULT_F32
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  printf("%08lx", (unsigned long)bits);
#else
  printf("%d", value);
#endif
}

int main(void) {
  const void *args[1] = {model_input};
  void *results[1] = {result};
  const mote_call call = {args, results, arena, 0};
  for (int run = 0; run < RUNS; ++run)
    if (ENTRY(&call) != MOTE_CALL_OK)
      return 2;
  printf("output=");
  for (unsigned i = 0; i < RESULT_COUNT; ++i) {
    print_result(result[i]);
    printf("%s", i + 1 < RESULT_COUNT ? "," : "\n");
  }
  return 0;
}
