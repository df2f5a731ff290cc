//===- cortex_m_load.cc - Load and run a package on bare-metal Cortex-M ---===//
//
// Firmware for QEMU's mps2-an386 (Cortex-M4): the package, input and
// expected output are linked in as bytes (cortex_m_data.S); the loader
// places the code object in a RAM array, with no operating system and no
// heap, and the model runs from there. Prints a line and returns 0 when the
// result matches, through semihosting.
//
//===----------------------------------------------------------------------===//
#include "mote/package.h"

#include <stdio.h>
#include <string.h>

extern "C" const uint8_t mote_test_package[], mote_test_package_end[];
extern "C" const uint8_t mote_test_input[], mote_test_expected[];

namespace {

alignas(64) uint8_t code_memory[32 * 1024];
alignas(64) uint8_t scratch[16 * 1024];
float input[32], output[20], expected[20];

// The bare-metal "make executable": RAM is executable on Cortex-M without an
// MPU; only the pipeline must not hold stale instructions.
mote_status make_executable(void *, void *, size_t) {
  __asm volatile("dsb\n\tisb" ::: "memory");
  return MOTE_OK;
}

// The float32 data of a .npy file (format 1.0) into `out`.
void read_npy(const uint8_t *npy, float *out, size_t count) {
  size_t header = 10 + (npy[8] | npy[9] << 8);
  memcpy(out, npy + header, count * sizeof(float));
}

float magnitude(float x) { return x < 0 ? -x : x; }

} // namespace

int main() {
  read_npy(mote_test_input, input, 32);
  read_npy(mote_test_expected, expected, 20);
  mote_package package;
  uint32_t index = 0;
  size_t size = 0, alignment = 0;
  mote_model model;
  size_t bytes = size_t(mote_test_package_end - mote_test_package);
  mote_status status = mote_package_open(mote_test_package, bytes, &package);
  if (!status)
    status = mote_package_select(&package, "thumbv7em-none-eabihf", nullptr, &index);
  if (!status)
    status = mote_package_code_memory(&package, index, &size, &alignment);
  if (!status && (size > sizeof(code_memory) || alignment > 64))
    status = MOTE_BUFFER_TOO_SMALL;
  if (!status)
    status = mote_package_load(&package, index, code_memory, sizeof(code_memory), make_executable,
                               nullptr, &model);
  if (status) {
    printf("error: loading failed with status %d\n", int(status));
    return 1;
  }
  if (model.desc->scratch_size > sizeof(scratch)) {
    printf("error: scratch too small\n");
    return 1;
  }
  const void *args[] = {input};
  void *results[] = {output};
  mote_call call = {args, results, scratch, nullptr, model.weights};
  if (model.entry(&call) != MOTE_CALL_OK) {
    printf("error: the model failed\n");
    return 1;
  }
  float worst = 0;
  for (int i = 0; i < 20; ++i) {
    float error = magnitude(output[i] - expected[i]) / (1e-5f + magnitude(expected[i]));
    worst = error > worst ? error : worst;
  }
  printf(
      "cortex-m4: loaded %u-byte image from a %u-byte package at %p, max relative error %d ppm\n",
      unsigned(size), unsigned(bytes), static_cast<void *>(code_memory), int(worst * 1e6f));
  return worst <= 1e-3f ? 0 : 1;
}
