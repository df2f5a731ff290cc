// ===- tests/runtime/alias_test.cc - Donated state updated in place -------===
//
// kv_step (tests/runtime/models) donates its KV cache (must-alias) and its
// position counter (may-alias). Given one buffer for an aliased argument
// and its result, the model updates it in place: the same address, the new
// values, nothing copied. Given two, the argument is copied once into the
// result's buffer and stays as it was.
#include <doctest/doctest.h>

#include <string.h>

#include "kv_step.h"
#include "mote/mote.h"
#include "mote_host.h"

namespace {

constexpr int kRows = 8, kColumns = 4;

struct Step {
  alignas(64) float cache[kRows][kColumns];
  alignas(64) int32_t count = 3;
  alignas(64) float key[kColumns] = {10, 20, 30, 40};
  alignas(64) float sums[kColumns];
  Step() {
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < kColumns; ++c)
        cache[r][c] = float(r * kColumns + c);
  }
  // Column sums after row `count` became the key.
  float expectedSum(int column) const {
    float sum = 0;
    for (int r = 0; r < kRows; ++r)
      sum += r == 3 ? key[column] : float(r * kColumns + column);
    return sum;
  }
};

mote_model loadModel() {
  mote_model model;
  REQUIRE(mote_model_init(&kv_step_model, kv_step_entry, &model) == MOTE_OK);
  REQUIRE(mote_model_alias_count(&model) == 2);
  uint32_t result, arg;
  int must;
  REQUIRE(mote_model_alias(&model, 0, &result, &arg, &must) == MOTE_OK);
  CHECK(result == 1);
  CHECK(arg == 0);
  CHECK(must == 1);
  REQUIRE(mote_model_alias(&model, 1, &result, &arg, &must) == MOTE_OK);
  CHECK(result == 2);
  CHECK(arg == 1);
  CHECK(must == 0);
  return model;
}

TEST_CASE("kv_step: one buffer for the cache and its result is updated in place") {
  mote_model model = loadModel();
  Step step;
  alignas(64) static uint8_t scratch[4096];
  REQUIRE(mote_model_scratch_size(&model) <= sizeof scratch);
  const void *args[] = {step.cache, &step.count, step.key};
  void *results[] = {step.sums, step.cache, &step.count};
  REQUIRE(mote_model_run(&model, args, results, scratch, sizeof scratch, nullptr) == MOTE_OK);
  // The same memory holds the new state.
  CHECK(results[1] == static_cast<void *>(step.cache));
  CHECK(step.count == 4);
  for (int c = 0; c < kColumns; ++c) {
    CHECK(step.cache[3][c] == step.key[c]);
    CHECK(step.cache[4][c] == float(4 * kColumns + c));
    CHECK(step.sums[c] == step.expectedSum(c));
  }
  // The next step writes the next row.
  REQUIRE(mote_model_run(&model, args, results, scratch, sizeof scratch, nullptr) == MOTE_OK);
  CHECK(step.count == 5);
  CHECK(step.cache[4][0] == step.key[0]);
}

TEST_CASE("kv_step: separate buffers get one copy and the argument is left as it was") {
  mote_model model = loadModel();
  Step step;
  alignas(64) static uint8_t scratch[4096];
  alignas(64) float next_cache[kRows][kColumns];
  int32_t next_count = -1;
  const void *args[] = {step.cache, &step.count, step.key};
  void *results[] = {step.sums, next_cache, &next_count};
  REQUIRE(mote_model_run(&model, args, results, scratch, sizeof scratch, nullptr) == MOTE_OK);
  CHECK(next_count == 4);
  CHECK(step.count == 3);
  CHECK(step.cache[3][0] == 12.0f);
  for (int c = 0; c < kColumns; ++c) {
    CHECK(next_cache[3][c] == step.key[c]);
    CHECK(next_cache[7][c] == float(7 * kColumns + c));
  }
  // Buffers that share some bytes without being one are refused.
  void *overlapping[] = {step.sums, reinterpret_cast<float *>(step.cache) + 1, &next_count};
  CHECK(mote_model_run(&model, args, overlapping, scratch, sizeof scratch, nullptr) ==
        MOTE_INVALID_ARGUMENT);
}

TEST_CASE("kv_step: a session donates the argument's memory when asked") {
  mote_model model = loadModel();
  alignas(64) static uint8_t memory[16384];
  mote_arena arena;
  mote_direct_transfer direct;
  mote_transfer_manager transfer;
  mote_session session;
  mote_arena_init(&arena, memory, sizeof memory);
  REQUIRE(mote_host_transfer_init(&direct, &arena, &transfer) == MOTE_OK);
  REQUIRE(mote_session_init(&session, &model, &transfer, nullptr, &arena) == MOTE_OK);
  Step step;
  REQUIRE(mote_session_set_input(&session, 0, step.cache, sizeof step.cache) == MOTE_OK);
  REQUIRE(mote_session_set_input(&session, 1, &step.count, sizeof step.count) == MOTE_OK);
  REQUIRE(mote_session_set_input(&session, 2, step.key, sizeof step.key) == MOTE_OK);
  REQUIRE(mote_session_set_output(&session, 0, step.sums, sizeof step.sums) == MOTE_OK);
  // The sums are not aliased: they cannot be written in place.
  CHECK(mote_session_set_output_in_place(&session, 0) == MOTE_INVALID_ARGUMENT);
  REQUIRE(mote_session_set_output_in_place(&session, 1) == MOTE_OK);
  REQUIRE(mote_session_set_output_in_place(&session, 2) == MOTE_OK);
  REQUIRE(mote_session_run(&session) == MOTE_OK);
  CHECK(mote_session_alias_copies(&session) == 0);
  mote_device_buffer buffer;
  REQUIRE(mote_session_result_buffer(&session, 1, &buffer) == MOTE_OK);
  CHECK(buffer.handle == reinterpret_cast<uintptr_t>(step.cache));
  CHECK(step.count == 4);
  CHECK(step.cache[3][2] == step.key[2]);
  CHECK(step.sums[1] == step.expectedSum(1));

  // Bound to other memory, the cache is copied once, and the session says so.
  alignas(64) float next_cache[kRows][kColumns];
  int32_t next_count = 0;
  REQUIRE(mote_session_set_output(&session, 1, next_cache, sizeof next_cache) == MOTE_OK);
  REQUIRE(mote_session_set_output(&session, 2, &next_count, sizeof next_count) == MOTE_OK);
  REQUIRE(mote_session_run(&session) == MOTE_OK);
  CHECK(mote_session_alias_copies(&session) == 2);
  CHECK(next_count == 5);
  CHECK(step.count == 4);
  CHECK(next_cache[4][0] == step.key[0]);
  CHECK(step.cache[4][0] == 16.0f);
}

} // namespace
