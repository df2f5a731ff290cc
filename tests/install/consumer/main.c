/*===- tests/install/consumer/main.c - A model run from outside Mote's tree ===
 *
 * The same program on Linux and on Cortex-M firmware: scale eight floats by
 * a factor through the model compiled by mote_add_model, check the result,
 * and print it with printf (on firmware, through the port's stdio hooks).
 *
 *===----------------------------------------------------------------------===*/
#include <stdio.h>

#include "mote_port.h"
#include "scale_model.h"

static uint8_t memory[1024] __attribute__((aligned(16)));

int main(void) {
  float x[8], factor = 2.5f, y[8];
  for (int i = 0; i < 8; ++i)
    x[i] = (float)i;
  mote_arena arena;
  mote_direct_transfer direct;
  mote_transfer_manager transfer;
  mote_model model;
  mote_session session;
  mote_arena_init(&arena, memory, sizeof memory);
  mote_status status = mote_port_transfer_init(&direct, &arena, &transfer);
  if (status == MOTE_OK)
    status = mote_model_init(&scale_model_model, scale_model_entry, &model);
  if (status == MOTE_OK)
    status = mote_session_init(&session, &model, &transfer, mote_port_env(), &arena);
  if (status == MOTE_OK)
    status = mote_session_set_input(&session, 0, x, sizeof x);
  if (status == MOTE_OK)
    status = mote_session_set_input(&session, 1, &factor, sizeof factor);
  if (status == MOTE_OK)
    status = mote_session_set_output(&session, 0, y, sizeof y);
  if (status == MOTE_OK)
    status = mote_session_run(&session);
  if (status != MOTE_OK) {
    printf("consumer: %s\n", mote_status_message(status));
    return 1;
  }
  for (int i = 0; i < 8; ++i)
    if (y[i] != x[i] * factor) {
      printf("consumer: y[%d] = %g, not %g\n", i, (double)y[i], (double)(x[i] * factor));
      return 2;
    }
  printf("consumer ok on %s: y[7] = %g\n", mote_model_triple(&model), (double)y[7]);
  return 0;
}
