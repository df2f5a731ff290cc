// ===- tests/runtime/models_test.cc - Compiled models through the runtime -===
//
// Models in tests/runtime/models are compiled by motec at build time and run
// through the session API on the host port and on the sim-device; expected
// values are computed here independently, on row-major host data.
#include <doctest/doctest.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <string>
#include <vector>

#include "add_mul.h"
#include "column_major.h"
#include "dense_relu.h"
#include "descriptor_builder.h"
#include "layout_3d.h"
#include "mote/mote.hpp"
#include "mote_host.h"
#include "mote_port.h"
#include "mote_sim_device.h"

namespace {

// One port to run on: its TransferManager over memory it owns.
struct Port {
  virtual ~Port() = default;
  virtual const mote_transfer_manager &transfer() = 0;
  virtual const char *name() const = 0;
  mote_env env = {nullptr, nullptr};
};

struct HostPort : Port {
  alignas(64) uint8_t memory[8192];
  mote_arena arena;
  mote_direct_transfer direct;
  mote_transfer_manager tm;
  mote_host_thread_pool pool;
  explicit HostPort(uint32_t threads) {
    mote_arena_init(&arena, memory, sizeof memory);
    REQUIRE(mote_host_transfer_init(&direct, &arena, &tm) == MOTE_OK);
    REQUIRE(mote_host_thread_pool_init(&pool, threads) == MOTE_OK);
    mote_host_env(&pool, &env);
  }
  ~HostPort() override { mote_host_thread_pool_deinit(&pool); }
  const mote_transfer_manager &transfer() override { return tm; }
  const char *name() const override { return "host"; }
};

struct SimPort : Port {
  alignas(64) uint8_t device_memory[8192];
  mote_sim_device device;
  mote_transfer_manager tm;
  SimPort() {
    REQUIRE(mote_sim_device_init(&device, device_memory, sizeof device_memory, 64, &tm) == MOTE_OK);
  }
  const mote_transfer_manager &transfer() override { return tm; }
  const char *name() const override { return "sim-device"; }
};

// Runs `model` on `port` with host (row-major) inputs and outputs.
void run_on(Port &port, const mote_model_desc &desc, mote_entry_fn entry,
            const std::vector<const void *> &inputs, const std::vector<size_t> &input_sizes,
            const std::vector<void *> &outputs, const std::vector<size_t> &output_sizes) {
  CAPTURE(port.name());
  mote::Model model;
  REQUIRE(model.init(desc, entry).ok());
  REQUIRE(model.arg_count() == inputs.size());
  REQUIRE(model.result_count() == outputs.size());
  alignas(16) static uint8_t tables[1024];
  mote_arena arena;
  mote_arena_init(&arena, tables, sizeof tables);
  mote_session session;
  REQUIRE(mote_session_init(&session, model.get(), &port.transfer(), &port.env, &arena) == MOTE_OK);
  for (uint32_t i = 0; i < inputs.size(); ++i)
    REQUIRE(mote_session_set_input(&session, i, inputs[i], input_sizes[i]) == MOTE_OK);
  for (uint32_t i = 0; i < outputs.size(); ++i)
    REQUIRE(mote_session_set_output(&session, i, outputs[i], output_sizes[i]) == MOTE_OK);
  REQUIRE(mote_session_run(&session) == MOTE_OK);
}

template <typename F> void on_every_port(F &&body) {
  HostPort host1(1);
  body(static_cast<Port &>(host1));
  HostPort host3(3);
  body(static_cast<Port &>(host3));
  SimPort sim;
  body(static_cast<Port &>(sim));
}

} // namespace

TEST_CASE("the compiled descriptor agrees with the generated header") {
  mote_model model;
  REQUIRE(mote_model_init(&add_mul_model, add_mul_entry, &model) == MOTE_OK);
  CHECK(std::string(mote_model_name(&model)) == "add_mul");
  CHECK(mote_model_arg_count(&model) == ADD_MUL_ARG_COUNT);
  CHECK(mote_model_result_count(&model) == ADD_MUL_RESULT_COUNT);
  CHECK(mote_model_scratch_size(&model) == ADD_MUL_SCRATCH_BYTES);
  CHECK(mote_model_scratch_alignment(&model) == ADD_MUL_SCRATCH_ALIGNMENT);
  mote_tensor_info info;
  REQUIRE(mote_model_arg_info(&model, 2, &info) == MOTE_OK);
  CHECK(std::string(info.name) == "n");
  CHECK(info.element_type == MOTE_S32);
  CHECK(info.rank == 1);
  CHECK(info.dims[0] == 4);
  REQUIRE(mote_model_result_info(&model, 2, &info) == MOTE_OK);
  CHECK(info.rank == 0);
  CHECK(info.byte_size == 4);

  mote_model column;
  REQUIRE(mote_model_init(&column_major_model, column_major_entry, &column) == MOTE_OK);
  REQUIRE(mote_model_arg_info(&column, 0, &info) == MOTE_OK);
  CHECK(info.minor_to_major[0] == 0); // f32[2,3]{0,1}
  CHECK(info.minor_to_major[1] == 1);
  CHECK_FALSE(mote_layout_is_row_major(info.rank, info.minor_to_major));
}

TEST_CASE("random corruption of compiled descriptors never escapes their bytes") {
  mote_test::mutate_descriptor(reinterpret_cast<const uint8_t *>(&add_mul_model),
                               add_mul_model.total_size, 0xabcdefu, 10000);
  mote_test::mutate_descriptor(reinterpret_cast<const uint8_t *>(&layout_3d_model),
                               layout_3d_model.total_size, 0x31337u, 10000);
}

TEST_CASE("add_mul: tuple results and a scalar, on every port") {
  on_every_port([](Port &port) {
    alignas(16) float x[6] = {1, -2, 3.5f, 4, 0.25f, -6};
    alignas(16) float y[6] = {2, 3, -1, 0.5f, 8, 1};
    alignas(16) int32_t n[4] = {10, -3, 7, 1000};
    alignas(16) float sum[6], product[6];
    alignas(16) int32_t total = 0;
    run_on(port, add_mul_model, add_mul_entry, {x, y, n}, {sizeof x, sizeof y, sizeof n},
           {sum, product, &total}, {sizeof sum, sizeof product, sizeof total});
    for (int i = 0; i < 6; ++i) {
      CHECK(sum[i] == x[i] + y[i]);
      CHECK(product[i] == x[i] * y[i]);
    }
    CHECK(total == 1014);
  });
}

TEST_CASE("column_major: f32[2,3]{0,1} in and out, relayouted by the runtime") {
  on_every_port([](Port &port) {
    alignas(16) float x[6] = {1, 2, 3, 4, 5, 6}; // row-major [[1,2,3],[4,5,6]]
    alignas(16) float b[3] = {10, 100, 1000};
    alignas(16) float scaled[6], transposed[6];
    run_on(port, column_major_model, column_major_entry, {x, b}, {sizeof x, sizeof b},
           {scaled, transposed}, {sizeof scaled, sizeof transposed});
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) {
        CHECK(scaled[i * 3 + j] == x[i * 3 + j] * b[j]);
        CHECK(transposed[j * 2 + i] == x[i * 3 + j]);
      }
  });
}

TEST_CASE("layout_3d: s32[2,3,4]{0,2,1} to s32[4,2,3]{1,0,2}") {
  on_every_port([](Port &port) {
    alignas(16) int32_t x[24], out[24];
    for (int i = 0; i < 24; ++i)
      x[i] = i * 7 - 50;
    run_on(port, layout_3d_model, layout_3d_entry, {x}, {sizeof x}, {out}, {sizeof out});
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k)
          CHECK(out[(k * 2 + i) * 3 + j] == x[(i * 3 + j) * 4 + k] + 100);
  });
}

TEST_CASE("dense_relu: a model with scratch, misaligned host buffers") {
  on_every_port([](Port &port) {
    alignas(16) float storage[1 + 32 + 40 + 20];
    float *x = storage + 1; // deliberately not 16-byte aligned: must be copied
    float *w = x + 32;
    float *out = w + 40;
    for (int i = 0; i < 32; ++i)
      x[i] = static_cast<float>((i % 7) - 3) * 0.25f;
    for (int i = 0; i < 40; ++i)
      w[i] = static_cast<float>((i % 5) - 2) * 0.125f;
    run_on(port, dense_relu_model, dense_relu_entry, {x, w}, {128, 160}, {out}, {80});
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 5; ++c) {
        double d = 0;
        for (int k = 0; k < 8; ++k)
          d += static_cast<double>(x[r * 8 + k]) * w[k * 5 + c];
        double s = (d > 0 ? d : 0) + d;
        CAPTURE(r * 5 + c);
        CHECK(out[r * 5 + c] == doctest::Approx(s * s).epsilon(1e-5));
      }
  });
}

TEST_CASE("a statically linked model in a few lines of C++") {
  alignas(16) static unsigned char memory[1024];
  mote::Arena arena(memory);
  mote_direct_transfer direct;
  mote_transfer_manager tm;
  REQUIRE(mote_host_transfer_init(&direct, arena.get(), &tm) == MOTE_OK);
  mote::Model model;
  REQUIRE(model.init(add_mul_model, add_mul_entry).ok());
  mote::Session session;
  REQUIRE(session.init(model, tm, arena).ok());
  const float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {1, 1, 1, 1, 1, 1};
  const int32_t n[4] = {1, 2, 3, 4};
  float sum[6], product[6];
  int32_t total;
  REQUIRE(session.set_input(0, mote::Span<const float>(x)).ok());
  REQUIRE(session.set_input(1, mote::Span<const float>(y)).ok());
  REQUIRE(session.set_input(2, mote::Span<const int32_t>(n)).ok());
  REQUIRE(session.set_output(0, mote::Span<float>(sum)).ok());
  REQUIRE(session.set_output(1, mote::Span<float>(product)).ok());
  REQUIRE(session.set_output(2, mote::Span<int32_t>(&total, 1)).ok());
  REQUIRE(session.run().ok());
  CHECK(sum[5] == 7);
  CHECK(product[5] == 6);
  CHECK(total == 10);
}

TEST_CASE("mote::Model::run on buffers already in the compiled layout") {
  mote::Model model;
  REQUIRE(model.init(add_mul_model, add_mul_entry).ok());
  const float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {2, 2, 2, 2, 2, 2};
  const int32_t n[4] = {5, 5, 5, 5};
  float sum[6], product[6];
  int32_t total;
  const void *const args[] = {x, y, n};
  void *const results[] = {sum, product, &total};
  CHECK(model.run(args, results, {}).ok());
  CHECK(product[2] == 6);
  CHECK(total == 20);
  CHECK(model.run(mote::Span<const void *const>(args, 2), results, {}).code() ==
        MOTE_INVALID_ARGUMENT);
}

TEST_CASE("the host port supplies the common port contract") {
  alignas(16) static uint8_t memory[64];
  mote_arena arena;
  mote_arena_init(&arena, memory, sizeof memory);
  mote_direct_transfer direct;
  mote_transfer_manager tm;
  REQUIRE(mote_port_transfer_init(&direct, &arena, &tm) == MOTE_OK);
  CHECK(tm.alignment == MOTE_PORT_ALIGNMENT);
  const mote_env *env = mote_port_env();
  REQUIRE(env != nullptr);
  CHECK((env->parallel_for == nullptr));
}

extern "C" int mote_c_api_example(void);

TEST_CASE("the C API works from C99") { CHECK(mote_c_api_example() == 0); }
