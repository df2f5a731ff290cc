//===- run_package.cc - Load a package on this machine, run it, compare ----===//
//
//   run_package model.mote input.npy expected.npy
//
// Picks the code object for the triple this program was built for, loads it
// with the runtime's loader (no system dynamic loader), runs it on the one
// float32 input and compares the one float32 result with the expected array.
// Built natively and for aarch64/riscv64 (run under qemu-user), so the same
// fat package is checked on each architecture. Exit status 0 on a match.
//
//===----------------------------------------------------------------------===//
#include "host_code_memory.h"
#include "mote/package.h"
#include "test_files.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#if defined(__x86_64__)
#define MOTE_THIS_TRIPLE "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MOTE_THIS_TRIPLE "aarch64-linux-gnu"
#elif defined(__riscv) && __riscv_xlen == 64
#define MOTE_THIS_TRIPLE "riscv64-linux-gnu"
#else
#error "no package triple for this machine"
#endif

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: run_package model.mote input.npy expected.npy\n");
    return 2;
  }
  std::vector<uint8_t> bytes = mote::test::read_file(argv[1]);
  std::vector<float> input = mote::test::read_npy_f32(argv[2]);
  std::vector<float> expected = mote::test::read_npy_f32(argv[3]);
  mote_package package;
  uint32_t index;
  size_t size, alignment;
  void *memory = nullptr;
  mote_model model;
  mote_status status = mote_package_open(bytes.data(), bytes.size(), &package);
  if (!status)
    status = mote_package_select(&package, MOTE_THIS_TRIPLE, nullptr, &index);
  if (!status)
    status = mote_package_code_memory(&package, index, &size, &alignment);
  if (!status)
    status = mote_host_code_alloc(size, &memory);
  if (!status)
    status = mote_package_load(&package, index, memory, size, mote_host_code_make_executable,
                               nullptr, &model);
  if (status) {
    std::fprintf(stderr, "error: %s: loading for %s failed with status %d\n", argv[1],
                 MOTE_THIS_TRIPLE, int(status));
    return 1;
  }
  if (model.desc->arg_count != 1 || model.desc->result_count != 1) {
    std::fprintf(stderr, "error: expected one argument and one result\n");
    return 1;
  }
  std::vector<float> output(expected.size(), NAN);
  size_t scratch_alignment = model.desc->scratch_alignment;
  size_t scratch_size =
      (model.desc->scratch_size + scratch_alignment) / scratch_alignment * scratch_alignment;
  void *scratch = std::aligned_alloc(scratch_alignment, scratch_size);
  const void *args[] = {input.data()};
  void *results[] = {output.data()};
  mote_call call{args, results, scratch, nullptr, model.weights};
  if (model.entry(&call) != MOTE_CALL_OK) {
    std::fprintf(stderr, "error: the model failed\n");
    return 1;
  }
  float worst = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    worst = std::fmax(worst, std::fabs(output[i] - expected[i]) / (1e-5f + std::fabs(expected[i])));
  std::printf("%s: %s code object, %zu image bytes, max relative error %g\n", MOTE_THIS_TRIPLE,
              mote_package_name(&package), size, double(worst));
  std::free(scratch);
  mote_host_code_free(memory, size);
  return worst <= 1e-3f ? 0 : 1;
}
