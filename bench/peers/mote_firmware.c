/* mote_firmware.c - A Mote model as bare-metal firmware, for bench/cortex_m.py.
 *
 * Calls the entry function of the object motec compiled (MODEL_HEADER, ENTRY) on the
 * input in mote_input.h RUNS times, with its arena as a static array of
 * SCRATCH_BYTES, then prints the s8 result and exits through semihosting.
 */
#include <stdint.h>
#include <stdio.h>

#include MODEL_HEADER
#include "mote_input.h"

static uint8_t arena[SCRATCH_BYTES] __attribute__((aligned(16)));
static int8_t result[RESULT_BYTES];

int main(void) {
  const void *args[1] = {model_input};
  void *results[1] = {result};
  const mote_call call = {args, results, arena, 0};
  for (int run = 0; run < RUNS; ++run)
    if (ENTRY(&call) != MOTE_CALL_OK)
      return 2;
  printf("output=");
  for (int i = 0; i < RESULT_BYTES; ++i)
    printf("%d%s", result[i], i + 1 < RESULT_BYTES ? "," : "\n");
  return 0;
}
