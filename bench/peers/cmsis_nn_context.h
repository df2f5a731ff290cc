/* cmsis_nn_context.h - The context buffer and status check the CMSIS-NN drivers share.
 *
 * Include after defining CONTEXT_BYTES. context() hands a kernel the buffer it asked
 * for and remembers the largest request (context_used), which the drivers count as
 * CMSIS-NN's memory; check() stops the firmware on any failed call.
 */
#ifndef CMSIS_NN_CONTEXT_H
#define CMSIS_NN_CONTEXT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "arm_nnfunctions.h"

static int32_t context_buffer[CONTEXT_BYTES / 4] __attribute__((aligned(16)));
static int32_t context_used;

static void check(arm_cmsis_nn_status status) {
  if (status != ARM_CMSIS_NN_SUCCESS) {
    printf("CMSIS-NN failed: %d\n", (int)status);
    exit(2);
  }
}

static cmsis_nn_context context(int32_t size) {
  if (size > CONTEXT_BYTES) {
    printf("context buffer too small: %d\n", (int)size);
    exit(2);
  }
  if (size > context_used)
    context_used = size;
  cmsis_nn_context ctx = {context_buffer, size};
  return ctx;
}

#endif /* CMSIS_NN_CONTEXT_H */
