/*===- tests/firmware/programs/static_path.c - The runtime's static path ---===
 *
 * Everything firmware with a statically linked model uses: an arena, the
 * port's TransferManager and env, a session that binds input and output,
 * runs and copies back, and status messages. The model is an 8-float add
 * whose object the report lists on its own. It runs: status 0 means 2*x.
 *
 *===----------------------------------------------------------------------===*/
#include "footprint_add.h"
#include "mote_port.h"

static uint8_t memory[512] __attribute__((aligned(16)));
static float x[8], y[8];

int main(void) {
  for (int i = 0; i < 8; ++i)
    x[i] = (float)(i + 1);
  mote_arena arena;
  mote_arena_init(&arena, memory, sizeof memory);
  mote_direct_transfer direct;
  mote_transfer_manager transfer;
  mote_model model;
  mote_session session;
  mote_status status = mote_port_transfer_init(&direct, &arena, &transfer);
  if (status == MOTE_OK)
    status = mote_model_init(&add_model, add_entry, &model);
  if (status == MOTE_OK)
    status = mote_session_init(&session, &model, &transfer, mote_port_env(), &arena);
  if (status == MOTE_OK)
    status = mote_session_set_input(&session, 0, x, sizeof x);
  if (status == MOTE_OK)
    status = mote_session_set_output(&session, 0, y, sizeof y);
  if (status == MOTE_OK)
    status = mote_session_run(&session);
  if (status != MOTE_OK) {
    mote_port_write(mote_status_message(status));
    return (int)status;
  }
  for (int i = 0; i < 8; ++i)
    if (y[i] != 2 * x[i])
      return 100 + i;
  mote_port_write("static path ok\n");
  return 0;
}
