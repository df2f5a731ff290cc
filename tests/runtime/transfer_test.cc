// ===- tests/runtime/transfer_test.cc - Zero-copy, relayout, sim-device ---===
//
// A hand-written entry function stands in for generated code: it records the
// pointers it was given and computes result[i] = arg[i] + 1 element by
// element (both in the compiled layout, which is the same for both), so the
// tests can see exactly which memory the model touched.
#include <doctest/doctest.h>

#include <stdint.h>
#include <string.h>

#include <vector>

#include "descriptor_builder.h"
#include "mote/mote.h"
#include "mote_sim_device.h"

using mote_test::DescriptorImage;

namespace {

struct SeenCall {
  const void *arg;
  void *result;
  void *scratch;
  int calls;
};
SeenCall seen;

int32_t plus_one(const mote_call *call) {
  seen.arg = call->args[0];
  seen.result = call->results[0];
  seen.scratch = call->scratch;
  ++seen.calls;
  const float *x = static_cast<const float *>(call->args[0]);
  float *y = static_cast<float *>(call->results[0]);
  for (int i = 0; i < 6; ++i)
    y[i] = x[i] + 1.0f;
  return 0;
}

int32_t fails(const mote_call *) { return 7; }

// f32[2,3] in and out, both in `layout`.
DescriptorImage plus_one_image(std::vector<uint8_t> layout) {
  return DescriptorImage({{"x", MOTE_F32, {2, 3}, layout, 24}},
                         {{"y", MOTE_F32, {2, 3}, layout, 24}}, 32, 16);
}

bool inside(const void *p, const void *base, size_t size) {
  auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(base);
  return a >= b && a < b + size;
}

} // namespace

TEST_CASE("direct transfer: aligned row-major host memory is used in place") {
  DescriptorImage image = plus_one_image({1, 0});
  mote_model model;
  REQUIRE(mote_model_init(image.desc(), plus_one, &model) == MOTE_OK);
  alignas(16) static uint8_t memory[1024];
  mote_arena arena;
  mote_arena_init(&arena, memory, sizeof memory);
  mote_direct_transfer direct;
  mote_transfer_manager tm;
  REQUIRE(mote_direct_transfer_init(&direct, &arena, 16, &tm) == MOTE_OK);
  mote_session session;
  REQUIRE(mote_session_init(&session, &model, &tm, nullptr, &arena) == MOTE_OK);

  alignas(16) float x[6] = {1, 2, 3, 4, 5, 6};
  alignas(16) float y[6] = {};
  REQUIRE(mote_session_set_input(&session, 0, x, sizeof x) == MOTE_OK);
  REQUIRE(mote_session_set_output(&session, 0, y, sizeof y) == MOTE_OK);
  size_t used_before_run = mote_arena_used(&arena);
  REQUIRE(mote_session_run(&session) == MOTE_OK);
  CHECK(seen.arg == x);
  CHECK(seen.result == y);
  CHECK(inside(seen.scratch, memory, sizeof memory));
  CHECK(reinterpret_cast<uintptr_t>(seen.scratch) % 16 == 0);
  for (int i = 0; i < 6; ++i)
    CHECK(y[i] == x[i] + 1);
  mote_device_buffer buffer;
  REQUIRE(mote_session_arg_buffer(&session, 0, &buffer) == MOTE_OK);
  CHECK(buffer.handle == reinterpret_cast<uintptr_t>(x));
  CHECK((session.args[0].flags & MOTE_SLOT_ZERO_COPY) != 0);
  // Runs take no memory.
  REQUIRE(mote_session_run(&session) == MOTE_OK);
  CHECK(mote_arena_used(&arena) == used_before_run);
}

TEST_CASE("direct transfer: misaligned host memory is copied, once per slot") {
  DescriptorImage image = plus_one_image({1, 0});
  mote_model model;
  REQUIRE(mote_model_init(image.desc(), plus_one, &model) == MOTE_OK);
  alignas(16) static uint8_t memory[1024];
  mote_arena arena;
  mote_arena_init(&arena, memory, sizeof memory);
  mote_direct_transfer direct;
  mote_transfer_manager tm;
  REQUIRE(mote_direct_transfer_init(&direct, &arena, 16, &tm) == MOTE_OK);
  mote_session session;
  REQUIRE(mote_session_init(&session, &model, &tm, nullptr, &arena) == MOTE_OK);

  alignas(16) float storage_x[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  alignas(16) float storage_y[8] = {};
  float *x = storage_x + 1, *y = storage_y + 1; // 4-byte aligned only
  REQUIRE(mote_session_set_input(&session, 0, x, 24) == MOTE_OK);
  REQUIRE(mote_session_set_output(&session, 0, y, 24) == MOTE_OK);
  size_t used = mote_arena_used(&arena);
  REQUIRE(mote_session_run(&session) == MOTE_OK);
  CHECK(seen.arg != x);
  CHECK(seen.result != y);
  CHECK(inside(seen.arg, memory, sizeof memory));
  CHECK(inside(seen.result, memory, sizeof memory));
  CHECK(reinterpret_cast<uintptr_t>(seen.arg) % 16 == 0);
  for (int i = 0; i < 6; ++i)
    CHECK(y[i] == x[i] + 1);
  CHECK((session.args[0].flags & MOTE_SLOT_ZERO_COPY) == 0);
  // Binding again reuses the slot's device buffer.
  x[0] = 100;
  REQUIRE(mote_session_set_input(&session, 0, x, 24) == MOTE_OK);
  CHECK(mote_arena_used(&arena) == used);
  REQUIRE(mote_session_run(&session) == MOTE_OK);
  CHECK(y[0] == 101);
}

TEST_CASE("direct transfer: a non-row-major layout is relayouted both ways") {
  DescriptorImage image = plus_one_image({0, 1}); // column-major on both sides
  mote_model model;
  REQUIRE(mote_model_init(image.desc(), plus_one, &model) == MOTE_OK);
  alignas(16) static uint8_t memory[1024];
  mote_arena arena;
  mote_arena_init(&arena, memory, sizeof memory);
  mote_direct_transfer direct;
  mote_transfer_manager tm;
  REQUIRE(mote_direct_transfer_init(&direct, &arena, 16, &tm) == MOTE_OK);
  mote_session session;
  REQUIRE(mote_session_init(&session, &model, &tm, nullptr, &arena) == MOTE_OK);
  alignas(16) float x[6] = {1, 2, 3, 4, 5, 6}; // row-major [[1,2,3],[4,5,6]]
  alignas(16) float y[6] = {};
  REQUIRE(mote_session_set_input(&session, 0, x, sizeof x) == MOTE_OK);
  REQUIRE(mote_session_set_output(&session, 0, y, sizeof y) == MOTE_OK);
  REQUIRE(mote_session_run(&session) == MOTE_OK);
  CHECK(seen.arg != x); // aligned, but the layout differs: copied
  const float *device = static_cast<const float *>(seen.arg);
  const float column_major[] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; ++i)
    CHECK(device[i] == column_major[i]);
  for (int i = 0; i < 6; ++i)
    CHECK(y[i] == x[i] + 1); // back in row-major
}

TEST_CASE("direct transfer: reachability and cache hooks") {
  struct Hooks {
    int cleans = 0, invalidates = 0;
    const void *allowed = nullptr;
  } hooks;
  DescriptorImage image = plus_one_image({1, 0});
  mote_model model;
  REQUIRE(mote_model_init(image.desc(), plus_one, &model) == MOTE_OK);
  alignas(16) static uint8_t memory[1024];
  mote_arena arena;
  mote_arena_init(&arena, memory, sizeof memory);
  mote_direct_transfer direct;
  mote_transfer_manager tm;
  REQUIRE(mote_direct_transfer_init(&direct, &arena, 16, &tm) == MOTE_OK);
  direct.user = &hooks;
  direct.clean = [](void *user, const void *, size_t) { ++static_cast<Hooks *>(user)->cleans; };
  direct.invalidate = [](void *user, const void *, size_t) {
    ++static_cast<Hooks *>(user)->invalidates;
  };
  direct.is_reachable = [](void *user, const void *p, size_t) {
    return static_cast<int>(p == static_cast<Hooks *>(user)->allowed);
  };
  alignas(16) float x[6] = {1, 2, 3, 4, 5, 6};
  alignas(16) float y[6] = {};
  hooks.allowed = y; // the device sees y but not x
  mote_session session;
  REQUIRE(mote_session_init(&session, &model, &tm, nullptr, &arena) == MOTE_OK);
  REQUIRE(mote_session_set_input(&session, 0, x, sizeof x) == MOTE_OK);
  REQUIRE(mote_session_set_output(&session, 0, y, sizeof y) == MOTE_OK);
  REQUIRE(mote_session_run(&session) == MOTE_OK);
  CHECK(seen.arg != x);
  CHECK(seen.result == y);
  CHECK(hooks.cleans == 1);
  CHECK(hooks.invalidates == 1);
  CHECK(y[5] == 7);
}

TEST_CASE("session and run refuse bad bindings") {
  DescriptorImage image = plus_one_image({1, 0});
  mote_model model;
  REQUIRE(mote_model_init(image.desc(), plus_one, &model) == MOTE_OK);
  alignas(16) static uint8_t memory[256];
  mote_arena arena;
  mote_arena_init(&arena, memory, sizeof memory);
  mote_direct_transfer direct;
  mote_transfer_manager tm;
  REQUIRE(mote_direct_transfer_init(&direct, &arena, 16, &tm) == MOTE_OK);
  CHECK(mote_direct_transfer_init(&direct, &arena, 12, &tm) == MOTE_INVALID_ARGUMENT);
  REQUIRE(mote_direct_transfer_init(&direct, &arena, 16, &tm) == MOTE_OK);
  mote_session session;
  REQUIRE(mote_session_init(&session, &model, &tm, nullptr, &arena) == MOTE_OK);
  alignas(16) float x[6] = {}, y[6] = {};
  CHECK(mote_session_run(&session) == MOTE_INVALID_ARGUMENT); // nothing bound
  CHECK(mote_session_set_input(&session, 1, x, sizeof x) == MOTE_INVALID_ARGUMENT);
  CHECK(mote_session_set_input(&session, 0, x, sizeof x - 1) == MOTE_BUFFER_TOO_SMALL);
  CHECK(mote_session_set_input(&session, 0, nullptr, sizeof x) == MOTE_INVALID_ARGUMENT);
  REQUIRE(mote_session_set_input(&session, 0, x, sizeof x) == MOTE_OK);
  CHECK(mote_session_run(&session) == MOTE_INVALID_ARGUMENT); // output unbound
  CHECK(mote_session_set_output(&session, 0, y, 4) == MOTE_BUFFER_TOO_SMALL);

  // mote_model_run checks scratch before calling the entry.
  const void *args[] = {x};
  void *results[] = {y};
  alignas(16) uint8_t scratch[48];
  CHECK(mote_model_run(&model, args, results, scratch, 31, nullptr) == MOTE_BUFFER_TOO_SMALL);
  CHECK(mote_model_run(&model, args, results, scratch + 4, 32, nullptr) == MOTE_MISALIGNED);
  CHECK(mote_model_run(&model, args, results, nullptr, 32, nullptr) == MOTE_INVALID_ARGUMENT);
  CHECK(mote_model_run(&model, nullptr, results, scratch, 32, nullptr) == MOTE_INVALID_ARGUMENT);
  const void *null_args[] = {nullptr};
  CHECK(mote_model_run(&model, null_args, results, scratch, 32, nullptr) == MOTE_INVALID_ARGUMENT);
  CHECK(mote_model_run(&model, args, results, scratch, 32, nullptr) == MOTE_OK);
  mote_model failing;
  REQUIRE(mote_model_init(image.desc(), fails, &failing) == MOTE_OK);
  CHECK(mote_model_run(&failing, args, results, scratch, 32, nullptr) == MOTE_MODEL_FAILED);

  // A session that cannot get its memory says so.
  alignas(16) uint8_t tiny[8];
  mote_arena small;
  mote_arena_init(&small, tiny, sizeof tiny);
  mote_direct_transfer direct_small;
  mote_transfer_manager tm_small;
  REQUIRE(mote_direct_transfer_init(&direct_small, &small, 16, &tm_small) == MOTE_OK);
  CHECK(mote_session_init(&session, &model, &tm_small, nullptr, &small) == MOTE_BUFFER_TOO_SMALL);
}

TEST_CASE("sim-device: every tensor crosses the bus, host memory is never used") {
  DescriptorImage image = plus_one_image({0, 1});
  mote_model model;
  REQUIRE(mote_model_init(image.desc(), plus_one, &model) == MOTE_OK);
  alignas(64) static uint8_t device_memory[512];
  alignas(16) static uint8_t host_memory[256];
  mote_sim_device device;
  mote_transfer_manager tm;
  REQUIRE(mote_sim_device_init(&device, device_memory, sizeof device_memory, 64, &tm) == MOTE_OK);
  mote_arena arena; // host memory: the session's own tables only
  mote_arena_init(&arena, host_memory, sizeof host_memory);
  mote_session session;
  REQUIRE(mote_session_init(&session, &model, &tm, nullptr, &arena) == MOTE_OK);

  alignas(64) float x[6] = {1, 2, 3, 4, 5, 6};
  alignas(64) float y[6] = {-1, -1, -1, -1, -1, -1};
  REQUIRE(mote_session_set_input(&session, 0, x, sizeof x) == MOTE_OK);
  REQUIRE(mote_session_set_output(&session, 0, y, sizeof y) == MOTE_OK);
  // The input was copied when bound: scribbling over it now changes nothing.
  float saved[6];
  memcpy(saved, x, sizeof x);
  memset(x, 0x7f, sizeof x);
  CHECK(y[0] == -1); // nothing written to the output before the run
  REQUIRE(mote_session_run(&session) == MOTE_OK);
  CHECK(inside(seen.arg, device_memory, sizeof device_memory));
  CHECK(inside(seen.result, device_memory, sizeof device_memory));
  CHECK(inside(seen.scratch, device_memory, sizeof device_memory));
  for (int i = 0; i < 6; ++i)
    CHECK(y[i] == saved[i] + 1);
  // Device memory holds the compiled (column-major) layout.
  const float column_major[] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; ++i)
    CHECK(static_cast<const float *>(seen.arg)[i] == column_major[i]);
  // Handles are never host addresses.
  mote_device_buffer buffer;
  REQUIRE(mote_session_arg_buffer(&session, 0, &buffer) == MOTE_OK);
  CHECK(buffer.handle >= MOTE_SIM_DEVICE_HANDLE_BIAS);
  CHECK(buffer.handle < MOTE_SIM_DEVICE_HANDLE_BIAS + sizeof device_memory);
  CHECK(device.transfers_to_device == 1);
  CHECK(device.transfers_from_device == 1);
  CHECK(device.bytes_to_device == 24);
  CHECK(device.bytes_from_device == 24);
  CHECK(device.executions == 1);
}

TEST_CASE("empty tensors bind without memory on both transfer managers") {
  DescriptorImage image(
      {{"empty", MOTE_F32, {0, 3}, {0, 1}, 0}, {"x", MOTE_F32, {2, 3}, {1, 0}, 24}},
      {{"y", MOTE_F32, {2, 3}, {1, 0}, 24}}, 0, 16);
  mote_model model;
  REQUIRE(mote_model_init(
              image.desc(),
              [](const mote_call *call) -> int32_t {
                const float *x = static_cast<const float *>(call->args[1]);
                float *y = static_cast<float *>(call->results[0]);
                for (int i = 0; i < 6; ++i)
                  y[i] = x[i] * 2;
                return 0;
              },
              &model) == MOTE_OK);
  alignas(64) static uint8_t memory[512];
  alignas(16) static uint8_t tables[512];
  mote_arena arena, table_arena;
  mote_arena_init(&arena, memory, sizeof memory);
  mote_arena_init(&table_arena, tables, sizeof tables);
  mote_direct_transfer direct;
  mote_transfer_manager direct_tm, sim_tm;
  REQUIRE(mote_direct_transfer_init(&direct, &arena, 16, &direct_tm) == MOTE_OK);
  mote_sim_device device;
  alignas(64) static uint8_t device_memory[512];
  REQUIRE(mote_sim_device_init(&device, device_memory, sizeof device_memory, 64, &sim_tm) ==
          MOTE_OK);
  for (const mote_transfer_manager *tm : {&direct_tm, &sim_tm}) {
    mote_session session;
    REQUIRE(mote_session_init(&session, &model, tm, nullptr, &table_arena) == MOTE_OK);
    alignas(16) float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {};
    REQUIRE(mote_session_set_input(&session, 0, nullptr, 0) == MOTE_OK);
    REQUIRE(mote_session_set_input(&session, 1, x, sizeof x) == MOTE_OK);
    REQUIRE(mote_session_set_output(&session, 0, y, sizeof y) == MOTE_OK);
    REQUIRE(mote_session_run(&session) == MOTE_OK);
    CHECK(y[5] == 12);
    mote_device_buffer empty;
    REQUIRE(mote_session_arg_buffer(&session, 0, &empty) == MOTE_OK);
    CHECK(empty.size == 0);
  }
}

TEST_CASE("mote_session_table_size is enough and not much more") {
  DescriptorImage image = plus_one_image({1, 0});
  mote_model model;
  REQUIRE(mote_model_init(image.desc(), plus_one, &model) == MOTE_OK);
  alignas(64) static uint8_t device_memory[256];
  mote_sim_device device;
  mote_transfer_manager tm;
  REQUIRE(mote_sim_device_init(&device, device_memory, sizeof device_memory, 64, &tm) == MOTE_OK);
  const size_t need = mote_session_table_size(&model);
  // Every start alignment of the host arena: init fits in `need` bytes.
  alignas(16) static uint8_t host[512];
  for (size_t start = 0; start < 8; ++start) {
    CAPTURE(start);
    mote_arena arena;
    mote_arena_init(&arena, host + start, need);
    mote_session session;
    CHECK(mote_session_init(&session, &model, &tm, nullptr, &arena) == MOTE_OK);
    CHECK(mote_arena_used(&arena) + 24 > need); // at most the padding to spare
    mote_sim_device_reset(&device);
  }
}

TEST_CASE("sim-device: round trips are byte-exact and bad handles are refused") {
  alignas(64) static uint8_t device_memory[256];
  mote_sim_device device;
  mote_transfer_manager tm;
  CHECK(mote_sim_device_init(&device, device_memory + 8, 128, 64, &tm) == MOTE_MISALIGNED);
  REQUIRE(mote_sim_device_init(&device, device_memory, sizeof device_memory, 64, &tm) == MOTE_OK);
  CHECK(tm.import_host(tm.self, device_memory, 16, nullptr) == MOTE_UNSUPPORTED);

  // Every byte pattern, including NaN payloads, survives a round trip.
  const int64_t dims[] = {4, 2, 3};
  const uint8_t layout[] = {1, 0, 2};
  mote_tensor_info info = {"t", MOTE_U32, 3, dims, layout, 24, 96};
  uint32_t host[24], back[24];
  for (int i = 0; i < 24; ++i)
    host[i] = 0x7fc00001u + static_cast<uint32_t>(i) * 0x01010101u;
  mote_device_buffer buffer;
  REQUIRE(tm.allocate(tm.self, 96, 0, &buffer) == MOTE_OK);
  REQUIRE(tm.to_device(tm.self, &info, host, buffer) == MOTE_OK);
  memset(back, 0, sizeof back);
  REQUIRE(tm.from_device(tm.self, &info, buffer, back) == MOTE_OK);
  CHECK(memcmp(host, back, sizeof host) == 0);

  mote_device_buffer forged = {reinterpret_cast<uintptr_t>(host), 96};
  CHECK(tm.to_device(tm.self, &info, host, forged) == MOTE_DEVICE_ERROR);
  mote_device_buffer past_end = {buffer.handle + 64, 96};
  CHECK(tm.from_device(tm.self, &info, past_end, back) == MOTE_DEVICE_ERROR);
  mote_device_buffer too_small = {buffer.handle, 95};
  CHECK(tm.to_device(tm.self, &info, host, too_small) == MOTE_DEVICE_ERROR);
  CHECK(tm.allocate(tm.self, 1024, 0, &buffer) == MOTE_BUFFER_TOO_SMALL);
  mote_sim_device_reset(&device);
  CHECK(tm.allocate(tm.self, 256, 0, &buffer) == MOTE_OK);
}
