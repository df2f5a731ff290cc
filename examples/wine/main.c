/*===- examples/wine/main.c - Classify held-back wines with a compiled model ===
 *
 * One program for every target (Linux, Cortex-M firmware): it runs the wine
 * classifier, a Keras-style predict step compiled with its trained weights
 * bound (motec --params weights.npz --outputs 0), on the held-back wines from
 * wine_test_data.h, prints each predicted cultivar as one digit on a single
 * line, then the accuracy. The weights are constants inside the model's code:
 * flash on a microcontroller, never copied to RAM. Output uses only puts,
 * which the bare-metal ports route to semihosting. The exit status is 0 when
 * every run succeeded.
 *
 *===----------------------------------------------------------------------===*/
#include <stdio.h>

#include <mote/mote.h>

#include "wine_model.h" /* written by motec at build time (mote_add_model) */
#include "wine_test_data.h"

/* All the memory the runtime gets: the model's scratch (116 bytes on
 * Cortex-M4), the session's tables and a copy of each wine (its rows are not
 * all 16-byte aligned). The caller owns it; nothing is allocated anywhere else. */
static uint8_t memory[1024] __attribute__((aligned(16)));

static int argmax(const float *values, int count) {
  int best = 0;
  for (int i = 1; i < count; ++i)
    if (values[i] > values[best])
      best = i;
  return best;
}

/* Appends `value` in decimal at `out`; returns the end. */
static char *append_uint(char *out, unsigned value) {
  char digits[10];
  int n = 0;
  do {
    digits[n++] = (char)('0' + value % 10);
    value /= 10;
  } while (value);
  while (n)
    *out++ = digits[--n];
  return out;
}

static char *append(char *out, const char *text) {
  while (*text)
    *out++ = *text++;
  return out;
}

static int fail(const char *what, mote_status status) {
  static char line[96];
  *append(append(append(line, what), ": "), mote_status_message(status)) = '\0';
  puts(line);
  return 1;
}

int main(void) {
  mote_arena arena;
  mote_direct_transfer direct;
  mote_transfer_manager transfer;
  mote_model model;
  mote_session session;
  float logits[3];
  mote_arena_init(&arena, memory, sizeof memory);
  mote_status status = mote_direct_transfer_init(&direct, &arena, 0, &transfer);
  if (status == MOTE_OK)
    status = mote_model_init(&wine_model, wine_entry, &model);
  if (status == MOTE_OK)
    status = mote_session_init(&session, &model, &transfer, NULL, &arena);
  if (status == MOTE_OK)
    status = mote_session_set_output(&session, 0, logits, sizeof logits);
  if (status != MOTE_OK)
    return fail("setting up the model", status);

  /* The bound weights left the interface: the wine is the only input. */
  static char line[32 + WINE_TEST_COUNT];
  char *end = append(append(line, "target: "), mote_model_triple(&model));
  *append_uint(append(end, ", inputs: "), mote_model_arg_count(&model)) = '\0';
  puts(line);

  char *predictions = append(line, "predictions: ");
  unsigned correct = 0;
  for (int i = 0; i < WINE_TEST_COUNT; ++i) {
    status = mote_session_set_input(&session, 0, wine_test_data[i], sizeof wine_test_data[i]);
    if (status == MOTE_OK)
      status = mote_session_run(&session);
    if (status != MOTE_OK)
      return fail("running the model", status);
    const int cultivar = argmax(logits, 3);
    *predictions++ = (char)('0' + cultivar);
    correct += cultivar == wine_test_labels[i];
  }
  *predictions = '\0';
  puts(line);

  end = append_uint(append(line, "accuracy: "), correct);
  *append_uint(append(end, "/"), WINE_TEST_COUNT) = '\0';
  puts(line);
  return 0;
}
