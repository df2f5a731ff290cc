/*===- tests/runtime/c_api_example.c - The runtime from plain C99 ----------===
 *
 * Compiled as C99 with -pedantic: firmware written in C can use the whole
 * API. Returns 0 when the model gave the expected results.
 */
#include <stdint.h>

#include "add_mul.h"
#include "mote/mote.h"
#include "mote_sim_device.h"

int mote_c_api_example(void);

int mote_c_api_example(void) {
  static uint8_t device_memory[1024] __attribute__((aligned(64)));
  static uint8_t tables[512] __attribute__((aligned(16)));
  mote_sim_device device;
  mote_transfer_manager tm;
  mote_arena arena;
  mote_model model;
  mote_session session;
  const float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {6, 5, 4, 3, 2, 1};
  const int32_t n[4] = {1, 1, 1, 1};
  float sum[6], product[6];
  int32_t total = 0;
  int i;

  if (mote_model_init(&add_mul_model, add_mul_entry, &model) != MOTE_OK)
    return 1;
  if (mote_sim_device_init(&device, device_memory, sizeof device_memory, 64, &tm) != MOTE_OK)
    return 2;
  mote_arena_init(&arena, tables, sizeof tables);
  if (mote_session_init(&session, &model, &tm, NULL, &arena) != MOTE_OK)
    return 3;
  if (mote_session_set_input(&session, 0, x, sizeof x) ||
      mote_session_set_input(&session, 1, y, sizeof y) ||
      mote_session_set_input(&session, 2, n, sizeof n) ||
      mote_session_set_output(&session, 0, sum, sizeof sum) ||
      mote_session_set_output(&session, 1, product, sizeof product) ||
      mote_session_set_output(&session, 2, &total, sizeof total))
    return 4;
  if (mote_session_run(&session) != MOTE_OK)
    return 5;
  for (i = 0; i < 6; ++i)
    if (sum[i] != 7 || product[i] != x[i] * y[i])
      return 6;
  return total == 4 ? 0 : 7;
}
