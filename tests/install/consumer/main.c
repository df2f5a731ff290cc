/*===- tests/install/consumer/main.c - Models run from outside Mote's tree ===
 *
 * The same program on Linux and on Cortex-M firmware: two models compiled by
 * mote_add_model, scale.hlo (HLO text: y = x * factor) and affine.mlir
 * (StableHLO: y = x * factor + 1), each run on eight floats and checked, and
 * the result printed with printf (on firmware, through the port's stdio hooks).
 *
 *===----------------------------------------------------------------------===*/
#include <stdio.h>

#include "affine_model.h"
#include "mote_port.h"
#include "scale_model.h"

static uint8_t memory[1024] __attribute__((aligned(16)));

/* Runs `desc` on x = 0..7 and factor 2.5; 0 when every y[i] is x[i] * 2.5 + offset. */
static int run_model(const char *name, const mote_model_desc *desc, mote_entry_fn entry,
                     float offset, const char **triple) {
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
    status = mote_model_init(desc, entry, &model);
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
    printf("consumer: %s: %s\n", name, mote_status_message(status));
    return 1;
  }
  for (int i = 0; i < 8; ++i)
    if (y[i] != x[i] * factor + offset) {
      printf("consumer: %s: y[%d] = %g, not %g\n", name, i, (double)y[i],
             (double)(x[i] * factor + offset));
      return 2;
    }
  printf("%s: y[7] = %g\n", name, (double)y[7]);
  *triple = mote_model_triple(&model);
  return 0;
}

int main(void) {
  const char *triple = "";
  int status = run_model("scale.hlo", &scale_model_model, scale_model_entry, 0.0f, &triple);
  if (status == 0)
    status = run_model("affine.mlir", &affine_model_model, affine_model_entry, 1.0f, &triple);
  if (status == 0)
    printf("consumer ok on %s\n", triple);
  return status;
}
