//===- ReduceWindowTest.cpp - reduce-window and select-and-scatter ---------===//
//
// Expected values are worked out by hand from XLA's operation semantics.
//
//===----------------------------------------------------------------------===//

#include "EvaluateText.h"

#include "hlo/FloatTypes.h"

#include <cmath>

using namespace mote;
using namespace mote::eval::test;
using hlo::PrimitiveType;

namespace {

std::string binary(const std::string &name, const std::string &type, const std::string &op) {
  return name + " {\n  p = " + type + "[] parameter(0)\n  q = " + type +
         "[] parameter(1)\n  ROOT r = " + type + "[] " + op + "(p, q)\n}\n";
}

std::string module(const std::string &computations, const std::string &body) {
  return "HloModule m\n" + computations + "ENTRY e {\n" + body + "\n}\n";
}

/// a[i][j] = 4i + j on a 4x4 grid.
const char *grid =
    R"(  a = f32[4,4] constant({{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}))";

} // namespace

TEST_CASE("reduce-window max pooling and sum pooling with padding") {
  CHECK(elements<float>(evaluate(module(binary("f", "f32", "maximum"), std::string(grid) + R"(
  z = f32[] constant(-inf)
  ROOT r = f32[2,2] reduce-window(a, z), window={size=2x2 stride=2x2}, to_apply=f)"))) ==
        std::vector<float>{5, 7, 13, 15});
  // 3x3 sums with one cell of zero padding around a 3x3 of ones: corner 4,
  // edge 6, center 9.
  CHECK(elements<float>(evaluate(module(binary("f", "f32", "add"), R"(  o = f32[] constant(1)
  a = f32[3,3] broadcast(o), dimensions={}
  z = f32[] constant(0)
  ROOT r = f32[3,3] reduce-window(a, z), window={size=3x3 pad=1_1x1_1}, to_apply=f)"))) ==
        std::vector<float>{4, 6, 4, 6, 9, 6, 4, 6, 4});
  // Padding is skipped, not folded with the init value: with init 100 every
  // window adds 100 once, whatever it covers.
  CHECK(
      elements<float>(evaluate(module(binary("f", "f32", "add"), R"(  a = f32[3] constant({1, 2, 3})
  z = f32[] constant(100)
  ROOT r = f32[4] reduce-window(a, z), window={size=2 pad=1_1}, to_apply=f)"))) ==
      std::vector<float>{101, 103, 105, 103});
}

TEST_CASE("bf16 and f16 reduce-window round after every step, as XLA's does") {
  using hlo::BFloat16;
  using hlo::Float16;
  // Windows of 1000 ones: a bf16 running sum stops at 256, an f16 one at
  // 2048 (for 4000 ones). XLA's reduce_window rounds each step (JAX's
  // cumsum_bfloat16_8_9 testdata matches that, not f32 sums); only reduce
  // folds in f32 (HalfReduction.h).
  CHECK(
      halfElements<BFloat16>(evaluate(module(binary("f", "bf16", "add"), R"(  o = bf16[] constant(1)
  a = bf16[1000,2] broadcast(o), dimensions={}
  z = bf16[] constant(0)
  ROOT r = bf16[1,2] reduce-window(a, z), window={size=1000x1}, to_apply=f)"))) ==
      std::vector<float>{256, 256});
  CHECK(halfElements<Float16>(evaluate(module(binary("f", "f16", "add"), R"(  o = f16[] constant(1)
  a = f16[4000] broadcast(o), dimensions={}
  z = f16[] constant(0)
  ROOT r = f16[1] reduce-window(a, z), window={size=4000}, to_apply=f)"))) ==
        std::vector<float>{2048});
}

TEST_CASE("reduce-window with window and base dilation") {
  // Window dilation 2 on [0..7]: pairs (x, x + 2).
  CHECK(elements<int32_t>(
            evaluate(module(binary("f", "s32", "add"), R"(  a = s32[8] iota(), iota_dimension=0
  z = s32[] constant(0)
  ROOT r = s32[3] reduce-window(a, z), window={size=2 stride=2 rhs_dilate=2}, to_apply=f)"))) ==
        std::vector<int32_t>{2, 6, 10});
  // Base dilation 2 on [1, 2, 3] makes [1, _, 2, _, 3]; holes are skipped.
  CHECK(elements<int32_t>(
            evaluate(module(binary("f", "s32", "add"), R"(  a = s32[3] constant({1, 2, 3})
  z = s32[] constant(0)
  ROOT r = s32[4] reduce-window(a, z), window={size=2 lhs_dilate=2}, to_apply=f)"))) ==
        std::vector<int32_t>{1, 2, 2, 3});
}

TEST_CASE("reduce-window pooling over an NHWC layout and a strided inner window") {
  // [1, 3, 3, 2]: value = 10 * position + channel; a 2x2 max window over the
  // spatial dims keeps channels apart.
  CHECK(
      elements<float>(evaluate(module(
          binary("f", "f32", "maximum"),
          R"(  a = f32[1,3,3,2] constant({{{{0, 1}, {10, 11}, {20, 21}}, {{30, 31}, {40, 41}, {50, 51}}, {{60, 61}, {70, 71}, {80, 81}}}})
  z = f32[] constant(-inf)
  ROOT r = f32[1,2,2,2] reduce-window(a, z), window={size=1x2x2x1}, to_apply=f)"))) ==
      std::vector<float>{40, 41, 50, 51, 70, 71, 80, 81});
  // Window over the last dimension with stride 2 and padding.
  CHECK(elements<float>(evaluate(module(binary("f", "f32", "add"), std::string(grid) + R"(
  z = f32[] constant(0)
  ROOT r = f32[4,2] reduce-window(a, z), window={size=1x3 stride=1x2 pad=0_0x1_0}, to_apply=f)"))) ==
        std::vector<float>{1, 6, 9, 18, 17, 30, 25, 42});
}

TEST_CASE("reduce-window with a general to_apply and two operands") {
  // Running (max value, its index) pairs over windows of 3.
  std::string argmax = R"(argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  ge = pred[] compare(v0, v1), direction=GE
  v = f32[] select(ge, v0, v1)
  i = s32[] select(ge, i0, i1)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
)";
  hlo::Literal result = evaluate(module(argmax, R"(  a = f32[5] constant({3, 1, 4, 1, 5})
  idx = s32[5] iota(), iota_dimension=0
  vi = f32[] constant(-inf)
  ii = s32[] constant(-1)
  ROOT r = (f32[3], s32[3]) reduce-window(a, idx, vi, ii), window={size=3}, to_apply=argmax)"));
  CHECK(elements<float>(result.element(0)) == std::vector<float>{4, 4, 5});
  CHECK(elements<int32_t>(result.element(1)) == std::vector<int32_t>{2, 2, 4});
  // Subtract folds left to right within each window: ((0 - x0) - x1).
  CHECK(elements<int32_t>(
            evaluate(module(binary("f", "s32", "subtract"), R"(  a = s32[3] constant({1, 2, 3})
  z = s32[] constant(0)
  ROOT r = s32[2] reduce-window(a, z), window={size=2}, to_apply=f)"))) ==
        std::vector<int32_t>{-3, -5});
}

TEST_CASE("select-and-scatter routes gradients to the maxima of each window") {
  std::string computations = R"(ge {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT r = pred[] compare(p, q), direction=GE
}
)" + binary("add", "f32", "add");
  // Non-overlapping 2x2 windows: the maxima are 5, 7, 13, 15.
  CHECK(elements<float>(evaluate(module(computations, std::string(grid) + R"(
  s = f32[2,2] constant({{1, 2}, {3, 4}})
  z = f32[] constant(0)
  ROOT r = f32[4,4] select-and-scatter(a, s, z), window={size=2x2 stride=2x2}, select=ge, scatter=add)"))) ==
        std::vector<float>{0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4});
  // Overlapping windows of 2 with stride 1 over [1, 3, 3, 2]: window 0 picks
  // index 1, window 1 keeps the first of the tie (index 1), window 2 index 2.
  CHECK(elements<float>(evaluate(module(computations, R"(  a = f32[4] constant({1, 3, 3, 2})
  s = f32[3] constant({10, 20, 30})
  z = f32[] constant(0.5)
  ROOT r = f32[4] select-and-scatter(a, s, z), window={size=2}, select=ge, scatter=add)"))) ==
        std::vector<float>{0.5f, 30.5f, 30.5f, 0.5f});
  // Padding is never selected: windows [pad, 5] and [7, pad].
  CHECK(elements<float>(evaluate(module(computations, R"(  a = f32[2] constant({5, 7})
  s = f32[2] constant({1, 2})
  z = f32[] constant(0)
  ROOT r = f32[2] select-and-scatter(a, s, z), window={size=2 stride=2 pad=1_1}, select=ge, scatter=add)"))) ==
        std::vector<float>{1, 2});
}

TEST_CASE("select-and-scatter with general computations") {
  // select keeps the current choice while -current <= -candidate, i.e. it
  // picks the first maximum, through computations the fast path does not
  // recognise; scatter multiplies.
  std::string computations = R"(sel {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  np = f32[] negate(p)
  nq = f32[] negate(q)
  ROOT r = pred[] compare(np, nq), direction=LE
}
mul {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT r = f32[] multiply(p, q)
}
)";
  CHECK(elements<float>(evaluate(module(computations, R"(  a = f32[4] constant({1, 4, 2, 3})
  s = f32[2] constant({5, 7})
  z = f32[] constant(2)
  ROOT r = f32[4] select-and-scatter(a, s, z), window={size=2 stride=2}, select=sel, scatter=mul)"))) ==
        std::vector<float>{2, 10, 2, 14});
}
