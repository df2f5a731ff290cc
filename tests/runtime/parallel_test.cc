// ===- tests/runtime/parallel_test.cc - Generated code through parallel_for -===
//
// A model big enough to be split into tasks must hand them to the env's
// parallel_for, and give the same bytes however the tasks run: in order,
// in reverse, on a pool of threads, or with no env at all (one task).
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "mote_host.h"
#include "parallel_dense.h"

namespace {

struct Recorder {
  int calls = 0;
  int64_t largest = 0;
};

/// Runs every task, last index first, and records what it was asked.
void run_backwards(void *user, mote_task_fn body, void *context, int64_t count) {
  auto *recorder = static_cast<Recorder *>(user);
  ++recorder->calls;
  recorder->largest = count > recorder->largest ? count : recorder->largest;
  for (int64_t i = count; i-- > 0;)
    body(context, i);
}

struct Buffers {
  std::vector<float> x = std::vector<float>(96 * 128), w = std::vector<float>(128 * 80),
                     b = std::vector<float>(80), big = std::vector<float>(2048 * 512);
  std::vector<float> dense = std::vector<float>(96 * 80), tanh = std::vector<float>(2048 * 512),
                     planes = std::vector<float>(8 * 512);
  std::vector<unsigned char> scratch = std::vector<unsigned char>(PARALLEL_DENSE_SCRATCH_BYTES + 64);

  Buffers() {
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(int(i * 7 % 23) - 11) * 0.125f;
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = float(int(i * 5 % 17) - 8) * 0.0625f;
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = float(int(i % 9) - 4) * 0.5f;
    for (size_t i = 0; i < big.size(); ++i)
      big[i] = float(int(i * 13 % 101) - 50) * 0.05f;
  }

  int32_t run(const mote_env *env) {
    const void *args[] = {x.data(), w.data(), b.data(), big.data()};
    void *results[] = {dense.data(), tanh.data(), planes.data()};
    void *aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
    mote_call call = {args, results, aligned, env, nullptr};
    return parallel_dense_entry(&call);
  }
};

bool same_bytes(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

} // namespace

TEST_CASE("big loops go through parallel_for and give the same bytes however tasks run") {
  Buffers alone;
  REQUIRE(alone.run(nullptr) == 0);
  // The dot: k ascending, one rounded product at a time from +0.
  for (int r = 0; r < 96; ++r)
    for (int c = 0; c < 80; ++c) {
      float sum = 0.0f;
      for (int k = 0; k < 128; ++k) {
        float product = alone.x[r * 128 + k] * alone.w[k * 80 + c];
        sum = sum + product;
      }
      float biased = sum + alone.b[c];
      CAPTURE(r);
      CAPTURE(c);
      CHECK(alone.dense[r * 80 + c] == (biased > 0.0f ? biased : 0.0f));
    }

  Recorder recorder;
  mote_env backwards = {&recorder, run_backwards};
  Buffers reversed;
  REQUIRE(reversed.run(&backwards) == 0);
  CHECK(recorder.calls >= 3); // the dot, the tanh and the reduction at least
  // The reduction: each plane column summed over its 256 rows in order.
  for (int p = 0; p < 8; ++p)
    for (int c = 0; c < 512; c += 37) {
      float sum = 0.0f;
      for (int r = 0; r < 256; ++r)
        sum = sum + alone.big[(p * 256 + r) * 512 + c];
      CHECK(alone.planes[p * 512 + c] == sum);
    }
  CHECK(recorder.largest > 1);
  CHECK(same_bytes(reversed.dense, alone.dense));
  CHECK(same_bytes(reversed.tanh, alone.tanh));
  CHECK(same_bytes(reversed.planes, alone.planes));

  mote_host_thread_pool pool;
  REQUIRE(mote_host_thread_pool_init(&pool, 3) == MOTE_OK);
  mote_env threads;
  mote_host_env(&pool, &threads);
  Buffers pooled;
  for (int repeat = 0; repeat < 3; ++repeat) {
    REQUIRE(pooled.run(&threads) == 0);
    CHECK(same_bytes(pooled.dense, alone.dense));
    CHECK(same_bytes(pooled.tanh, alone.tanh));
    CHECK(same_bytes(pooled.planes, alone.planes));
  }
  mote_host_thread_pool_deinit(&pool);

  // An env without parallel_for runs everything as one task.
  mote_env none = {nullptr, nullptr};
  Buffers plain;
  REQUIRE(plain.run(&none) == 0);
  CHECK(same_bytes(plain.tanh, alone.tanh));
}
