//===- cpu_clock.cc - The clock one core really runs at -------------------===//
//
// Under KVM /proc/cpuinfo reports the nominal (TSC) frequency, not the clock
// the core runs at with turbo. A chain of dependent integer adds retires one
// add a cycle on every x86-64 core, so timing a long chain measures the clock.
// Prints `cpu_ghz=<the fastest of many tries>`.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>

namespace {

double nowSeconds() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

constexpr long kAddsPerIteration = 100; // the .rept count below

double measureGhz(long iterations, uint64_t step) {
  uint64_t value = 0;
  double start = nowSeconds();
  // Register operands: no core can fold a chain of these at rename.
  for (long i = 0; i < iterations; ++i)
    asm volatile(".rept 100\n\taddq %1, %0\n\t.endr" : "+r"(value) : "r"(step));
  double seconds = nowSeconds() - start;
  return double(iterations) * kAddsPerIteration / seconds / 1e9;
}

} // namespace

int main(int argc, char **) {
  double best = 0;
  // Many short tries (~0.1 ms each): on a shared machine most run without being
  // preempted, and the fastest of them is the clock.
  for (int attempt = 0; attempt < 2000; ++attempt)
    best = std::max(best, measureGhz(4000, uint64_t(argc)));
  printf("cpu_ghz=%.3f\n", best);
  return 0;
}
