/*===- examples/digits/main.c - Classify held-back digits with a compiled model ===
 *
 * One program for every target (Linux, Cortex-M firmware, RV32 firmware): it
 * runs the digit classifier on the test images from digits_test_data.h, prints
 * each prediction as one digit on a single line, then the accuracy. Output
 * uses only puts, which the bare-metal ports route to semihosting, so firmware
 * carries no printf. The exit status is 0 when every run succeeded.
 *
 *===----------------------------------------------------------------------===*/
#include <stdio.h>

#include <mote/mote.h>

#include "digits_model.h" /* written by motec at build time (mote_add_model) */
#include "digits_test_data.h"

/* All the memory the runtime gets, as much as the generated header says a
 * session over this model may need: the model's scratch, a few small tables,
 * and room for the image and the logits should the port not use them in
 * place. The caller owns it; nothing is allocated anywhere else. */
static uint8_t memory[DIGITS_ARENA_BYTES] __attribute__((aligned(16)));

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
  float logits[10];
  mote_arena_init(&arena, memory, sizeof memory);
  /* Every target here shares memory between CPU and model, so the runtime's
   * direct-memory TransferManager fits them all (0: 16-byte alignment). The
   * images are bound in place, the logits written in place. */
  mote_status status = mote_direct_transfer_init(&direct, &arena, 0, &transfer);
  if (status == MOTE_OK)
    status = mote_model_init(&digits_model, digits_entry, &model);
  if (status == MOTE_OK)
    status = mote_session_init(&session, &model, &transfer, NULL, &arena);
  if (status == MOTE_OK)
    status = mote_session_set_output(&session, 0, logits, sizeof logits);
  if (status != MOTE_OK)
    return fail("setting up the model", status);

  static char line[32 + DIGITS_TEST_COUNT];
  *append(append(line, "target: "), mote_model_triple(&model)) = '\0';
  puts(line);

  char *predictions = append(line, "predictions: ");
  unsigned correct = 0;
  for (int i = 0; i < DIGITS_TEST_COUNT; ++i) {
    status = mote_session_set_input(&session, 0, digits_test_images[i], DIGITS_PIXELS);
    if (status == MOTE_OK)
      status = mote_session_run(&session);
    if (status != MOTE_OK)
      return fail("running the model", status);
    const int digit = argmax(logits, 10);
    *predictions++ = (char)('0' + digit);
    correct += digit == digits_test_labels[i];
  }
  *predictions = '\0';
  puts(line);

  char *end = append_uint(append(line, "accuracy: "), correct);
  *append_uint(append(end, "/"), DIGITS_TEST_COUNT) = '\0';
  puts(line);
  return 0;
}
