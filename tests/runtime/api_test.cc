// ===- tests/runtime/api_test.cc - The runtime without boilerplate --------===
//
// The C++ session deduces element types from arrays and containers and
// refuses a tensor of another type or size; Model::arena_size and the
// generated <MODEL>_ARENA_BYTES are enough memory for a session even when no
// tensor can be used in place; the generated class runs a model through the
// same API; mote/machine.h describes this machine.
#include <doctest/doctest.h>

#include <string.h>

#include <string>
#include <vector>

#include "add_mul.h"
#include "column_major.h"
#include "mote/machine.h"
#include "mote/mote.hpp"
#include "mote_host.hpp"

TEST_CASE("set_input and set_output deduce the element type and check it and the count") {
  alignas(16) static unsigned char memory[ADD_MUL_ARENA_BYTES];
  mote::Model model;
  REQUIRE(model.init(add_mul_model, add_mul_entry).ok());
  mote::Session session;
  REQUIRE(session.init(model, memory).ok());
  const float x[6] = {1, 2, 3, 4, 5, 6};
  std::vector<float> y(6, 1.0f);
  const std::vector<int32_t> n = {1, 2, 3, 4};
  float sum[6], product[6];
  int32_t total[1];
  CHECK(session.set_input(0, x).ok());
  CHECK(session.set_input(1, y).ok());
  CHECK(session.set_input(2, n).ok());
  CHECK(session.set_output(0, sum).ok());
  CHECK(session.set_output(1, mote::Span<float>(product)).ok());
  CHECK(session.set_output(2, total).ok());
  REQUIRE(session.run().ok());
  CHECK(sum[5] == 7);
  CHECK(product[5] == 6);
  CHECK(total[0] == 10);

  // Another element type, too few or too many elements: refused, not bound.
  const int32_t x_as_int[6] = {0};
  const float five[5] = {0}, seven[7] = {0};
  const std::vector<double> wide(6);
  CHECK(session.set_input(0, x_as_int).code() == MOTE_SHAPE_MISMATCH);
  CHECK(session.set_input(0, five).code() == MOTE_SHAPE_MISMATCH);
  CHECK(session.set_input(0, seven).code() == MOTE_SHAPE_MISMATCH);
  CHECK(session.set_input(1, wide).code() == MOTE_SHAPE_MISMATCH);
  float total_as_float[1];
  CHECK(session.set_output(2, total_as_float).code() == MOTE_SHAPE_MISMATCH);
  CHECK(session.set_input(3, x).code() == MOTE_INVALID_ARGUMENT);
  // The earlier bindings still hold.
  REQUIRE(session.run().ok());
  CHECK(total[0] == 10);
}

TEST_CASE("arena_size is enough when every tensor is staged, and not much more") {
  // column_major's tensors are all in a layout the host cannot use in place.
  mote::Model model;
  REQUIRE(model.init(column_major_model, column_major_entry).ok());
  size_t size = model.arena_size();
  CHECK(size == COLUMN_MAJOR_ARENA_BYTES);
  std::vector<unsigned char> memory(size);
  mote::Session session;
  REQUIRE(session.init(model, memory).ok());
  const float x[6] = {1, 2, 3, 4, 5, 6}, b[3] = {10, 20, 30};
  float y[6], t[6];
  REQUIRE(session.set_input(0, x).ok());
  REQUIRE(session.set_input(1, b).ok());
  REQUIRE(session.set_output(0, y).ok());
  REQUIRE(session.set_output(1, t).ok());
  REQUIRE(session.run().ok());

  // What a session really takes is the bound less a little alignment slack.
  mote_arena arena;
  mote_arena_init(&arena, memory.data(), memory.size());
  mote_direct_transfer direct;
  mote_transfer_manager transfer;
  mote_session c_session;
  REQUIRE(mote_direct_transfer_init(&direct, &arena, 16, &transfer) == MOTE_OK);
  REQUIRE(mote_session_init(&c_session, model.get(), &transfer, nullptr, &arena) == MOTE_OK);
  REQUIRE(mote_session_set_input(&c_session, 0, x, sizeof x) == MOTE_OK);
  REQUIRE(mote_session_set_input(&c_session, 1, b, sizeof b) == MOTE_OK);
  REQUIRE(mote_session_set_output(&c_session, 0, y, sizeof y) == MOTE_OK);
  REQUIRE(mote_session_set_output(&c_session, 1, t, sizeof t) == MOTE_OK);
  // Tensors the port used in place took no arena; the rest of the bound is
  // alignment padding the allocations may need.
  size_t used = mote_arena_used(&arena), in_place = 0;
  for (uint32_t i = 0; i < 4; ++i) {
    const mote_session_slot &slot = i < 2 ? c_session.args[i] : c_session.results[i - 2];
    mote_tensor_info info;
    REQUIRE((i < 2 ? model.arg_info(i, &info) : model.result_info(i - 2, &info)).ok());
    if (slot.flags & MOTE_SLOT_ZERO_COPY)
      in_place += info.byte_size;
  }
  CAPTURE(used);
  CAPTURE(size);
  CAPTURE(in_place);
  CHECK(in_place < 84); // x (f32[2,3]{0,1}) at least must be staged
  CHECK(used <= size);
  CHECK(size - used - in_place <= 4 * 16 + 3 * 7 + model.scratch_alignment() + 16);
}

TEST_CASE("the generated class runs on the same session, with named typed accessors") {
  alignas(16) static unsigned char memory[column_major::kArenaBytes];
  column_major model(memory);
  REQUIRE(model.status().ok());
  const float x[6] = {1, 2, 3, 4, 5, 6}, b[3] = {10, 20, 30};
  float y[6] = {0}, t[6] = {0};
  REQUIRE(model.set_x(x).ok());
  REQUIRE(model.set_b(b).ok());
  REQUIRE(model.set_result_0(y).ok());
  REQUIRE(model.set_result_1(t).ok());
  REQUIRE(model.run().ok());
  // The same as the C API gives.
  mote_model c_model;
  REQUIRE(mote_model_init(&column_major_model, column_major_entry, &c_model) == MOTE_OK);
  alignas(16) static unsigned char c_memory[COLUMN_MAJOR_ARENA_BYTES];
  mote::Model wrapped(c_model);
  mote::Session session;
  REQUIRE(session.init(wrapped, c_memory).ok());
  float y2[6] = {0}, t2[6] = {0};
  REQUIRE(session.set_input(0, x).ok());
  REQUIRE(session.set_input(1, b).ok());
  REQUIRE(session.set_output(0, y2).ok());
  REQUIRE(session.set_output(1, t2).ok());
  REQUIRE(session.run().ok());
  CHECK(memcmp(y, y2, sizeof y) == 0);
  CHECK(memcmp(t, t2, sizeof t) == 0);
  const int32_t wrong[3] = {0};
  CHECK(model.set_b(mote::Span<const float>(b, 2)).code() == MOTE_SHAPE_MISMATCH);
  CHECK(model.session().set_input(1, wrong).code() == MOTE_SHAPE_MISMATCH);
}

TEST_CASE("mote/machine.h describes this machine") {
  std::string triple = mote_machine_triple();
#if defined(__x86_64__)
  CHECK(triple == "x86_64-linux-gnu");
#elif defined(__aarch64__)
  CHECK(triple == "aarch64-linux-gnu");
#elif defined(__riscv)
  CHECK(triple == "riscv64-linux-gnu");
#endif
  REQUIRE(mote_machine_detects_features() == 1);
  std::string expected;
  for (uint32_t i = 0; i < mote_machine_feature_count(); ++i) {
    const char *name = nullptr;
    int present = 0;
    REQUIRE(mote_machine_feature(i, &name, &present) == MOTE_OK);
    if (present)
      expected += (expected.empty() ? "+" : ",+") + std::string(name);
  }
  CHECK(mote_machine_feature_count() > 0);
  const char *name;
  int present;
  CHECK(mote_machine_feature(mote_machine_feature_count(), &name, &present) ==
        MOTE_INVALID_ARGUMENT);
  char features[256];
  REQUIRE(mote_machine_features(features, sizeof features) == MOTE_OK);
  CHECK(std::string(features) == expected);
  if (!expected.empty()) {
    char tiny[4];
    CHECK(mote_machine_features(tiny, sizeof tiny) == MOTE_BUFFER_TOO_SMALL);
  }
}

TEST_CASE("a thread pool runs a model through its env, and stops with its object") {
  alignas(16) static unsigned char memory[ADD_MUL_ARENA_BYTES];
  mote::ThreadPool pool;
  REQUIRE(pool.init(2).ok());
  REQUIRE(pool.env() != nullptr);
  mote::Model model;
  REQUIRE(model.init(add_mul_model, add_mul_entry).ok());
  mote::Session session;
  REQUIRE(session.init(model, memory, pool.env()).ok());
  const float x[6] = {1, 1, 1, 1, 1, 1};
  const int32_t n[4] = {2, 2, 2, 2};
  float sum[6], product[6];
  int32_t total[1];
  REQUIRE(session.set_input(0, x).ok());
  REQUIRE(session.set_input(1, x).ok());
  REQUIRE(session.set_input(2, n).ok());
  REQUIRE(session.set_output(0, sum).ok());
  REQUIRE(session.set_output(1, product).ok());
  REQUIRE(session.set_output(2, total).ok());
  REQUIRE(session.run().ok());
  CHECK(sum[0] == 2);
  CHECK(total[0] == 8);
}
