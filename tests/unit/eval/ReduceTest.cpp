//===- ReduceTest.cpp - reduce ---------------------------------------------===//
//
// Expected values are worked out by hand from XLA's operation semantics and
// the documented order (a left fold in row-major order of the reduced
// dimensions).
//
//===----------------------------------------------------------------------===//

#include "EvaluateText.h"

#include "hlo/FloatTypes.h"

#include <cmath>

using namespace mote;
using namespace mote::eval::test;
using hlo::PrimitiveType;

namespace {

std::string reducer(const std::string &type, const std::string &op) {
  return "f {\n  p = " + type + "[] parameter(0)\n  q = " + type +
         "[] parameter(1)\n  ROOT r = " + type + "[] " + op + "(p, q)\n}\n";
}

std::string module(const std::string &computations, const std::string &body) {
  return "HloModule m\n" + computations + "ENTRY e {\n" + body + "\n}\n";
}

} // namespace

TEST_CASE("reduce a 3-D array over two dimensions") {
  // a[i][j][k] = 12i + 4j + k; summing over i and k leaves j:
  // sum = sum_i sum_k (12i + 4j + k) = 4 * 12 + 8 * 4j + 2 * 6 = 60 + 32j.
  std::string text = module(reducer("s32", "add"), R"(  a = s32[2,3,4] iota(), iota_dimension=0
  b = s32[2,3,4] iota(), iota_dimension=1
  c = s32[2,3,4] iota(), iota_dimension=2
  twelve = s32[] constant(12)
  four = s32[] constant(4)
  tb = s32[2,3,4] broadcast(twelve), dimensions={}
  fb = s32[2,3,4] broadcast(four), dimensions={}
  x = s32[2,3,4] multiply(a, tb)
  y = s32[2,3,4] multiply(b, fb)
  xy = s32[2,3,4] add(x, y)
  v = s32[2,3,4] add(xy, c)
  zero = s32[] constant(0)
  ROOT r = s32[3] reduce(v, zero), dimensions={0,2}, to_apply=f)");
  CHECK(elements<int32_t>(evaluate(text)) == std::vector<int32_t>{60, 92, 124});
}

TEST_CASE("reduce over inner, outer and all dimensions with each fast reducer") {
  hlo::Literal x = literal<float>(PrimitiveType::F32, {2, 3}, {1, -2, 3, 4, 5, -6});
  auto run = [&](const std::string &op, const std::string &dims, const std::string &resultDims,
                 float init) {
    std::string text =
        module(reducer("f32", op), "  a = f32[2,3] parameter(0)\n  i = f32[] "
                                   "constant(" +
                                       std::to_string(init) + ")\n  ROOT r = f32[" + resultDims +
                                       "] reduce(a, i), dimensions={" + dims + "}, to_apply=f");
    return elements<float>(evaluate(text, {x}));
  };
  CHECK(run("add", "1", "2", 0) == std::vector<float>{2, 3});
  CHECK(run("add", "0", "3", 10) == std::vector<float>{15, 13, 7});
  CHECK(run("multiply", "0,1", "", 1) == std::vector<float>{720});
  CHECK(run("maximum", "1", "2", -INFINITY) == std::vector<float>{3, 5});
  CHECK(run("minimum", "0", "3", INFINITY) == std::vector<float>{1, -2, -6});
  // No reduced dimension: every element is f(init, x).
  CHECK(run("add", "", "2,3", 0.5f) == std::vector<float>{1.5f, -1.5f, 3.5f, 4.5f, 5.5f, -5.5f});
}

TEST_CASE("reduce of pred and integers with logical and bitwise reducers") {
  std::string text = module(reducer("pred", "and") + reducer("pred", "or").replace(0, 1, "g"),
                            R"(  a = pred[2,2] constant({{true, false}, {true, true}})
  yes = pred[] constant(true)
  no = pred[] constant(false)
  x = pred[2] reduce(a, yes), dimensions={1}, to_apply=f
  y = pred[2] reduce(a, no), dimensions={0}, to_apply=g
  ROOT r = (pred[2], pred[2]) tuple(x, y))");
  hlo::Literal result = evaluate(text);
  CHECK(elements<bool>(result.element(0)) == std::vector<bool>{false, true});
  CHECK(elements<bool>(result.element(1)) == std::vector<bool>{true, true});
  CHECK(elements<uint8_t>(evaluate(module(reducer("u8", "xor"), R"(  a = u8[3] constant({5, 3, 255})
  z = u8[] constant(0)
  ROOT r = u8[] reduce(a, z), dimensions={0}, to_apply=f)"))) == std::vector<uint8_t>{5 ^ 3 ^ 255});
  // s32 wraps: 2^31 - 1 + 1.
  CHECK(elements<int32_t>(
            evaluate(module(reducer("s32", "add"), R"(  a = s32[2] constant({2147483647, 1})
  z = s32[] constant(0)
  ROOT r = s32[] reduce(a, z), dimensions={0}, to_apply=f)"))) ==
        std::vector<int32_t>{-2147483647 - 1});
}

TEST_CASE("reduce folds left to right in row-major order") {
  // f32: (1e8 + 1) + -1e8 = 0 when folded left to right (1 is below half an ulp of 1e8).
  CHECK(elements<float>(
            evaluate(module(reducer("f32", "add"), R"(  a = f32[3] constant({1e8, 1, -1e8})
  z = f32[] constant(0)
  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=f)"))) == std::vector<float>{0});
  // A non-commutative reducer (general path): ((((0 - 1) - 2) - 3) - 4) = -10
  // for row 0, and the fold runs over dims {0, 1} in row-major order.
  CHECK(elements<int32_t>(
            evaluate(module(reducer("s32", "subtract"), R"(  a = s32[2,2] constant({{1, 2}, {3, 4}})
  z = s32[] constant(0)
  ROOT r = s32[] reduce(a, z), dimensions={0,1}, to_apply=f)"))) == std::vector<int32_t>{-10});
  // acc = 10 * acc + x exposes the order: 1234 for row-major, 1324 for column-major.
  std::string digits = R"(f {
  p = s32[] parameter(0)
  q = s32[] parameter(1)
  ten = s32[] constant(10)
  s = s32[] multiply(p, ten)
  ROOT r = s32[] add(s, q)
}
)";
  CHECK(elements<int32_t>(evaluate(module(digits, R"(  a = s32[2,2] constant({{1, 2}, {3, 4}})
  z = s32[] constant(0)
  ROOT r = s32[] reduce(a, z), dimensions={1,0}, to_apply=f)"))) == std::vector<int32_t>{1234});
}

TEST_CASE("bf16 and f16 reduce accumulate in f32 and round once") {
  using hlo::BFloat16;
  using hlo::Float16;
  // XLA's Bf16Reduction test: 1 + 3 - 2 + 42 = 44.
  CHECK(halfElements<BFloat16>(
            evaluate(module(reducer("bf16", "add"), R"(  a = bf16[4] constant({1, 3, -2, 42})
  z = bf16[] constant(0)
  ROOT r = bf16[] reduce(a, z), dimensions={0}, to_apply=f)"))) == std::vector<float>{44});
  // 1 + 2^-8 would round back to 1 in bf16 (a tie, to even), twice; kept in
  // f32 the sum is 1 + 2^-7, a bf16 value.
  CHECK(halfElements<BFloat16>(evaluate(
            module(reducer("bf16", "add"), R"(  a = bf16[3] constant({1, 0.00390625, 0.00390625})
  z = bf16[] constant(0)
  ROOT r = bf16[] reduce(a, z), dimensions={0}, to_apply=f)"))) == std::vector<float>{1.0078125f});
  // A bf16 running sum of ones stops at 256 (256 + 1 is a tie, to even) and
  // an f16 one at 2048; in f32 they reach 1000 and 4000, both exact.
  CHECK(halfElements<BFloat16>(evaluate(module(reducer("bf16", "add"), R"(  one = bf16[] constant(1)
  a = bf16[1000] broadcast(one), dimensions={}
  z = bf16[] constant(0)
  ROOT r = bf16[] reduce(a, z), dimensions={0}, to_apply=f)"))) == std::vector<float>{1000});
  CHECK(halfElements<Float16>(evaluate(module(reducer("f16", "add"), R"(  one = f16[] constant(1)
  a = f16[2,4000] broadcast(one), dimensions={}
  z = f16[] constant(0)
  ROOT r = f16[2] reduce(a, z), dimensions={1}, to_apply=f)"))) == std::vector<float>{4000, 4000});
  // Kept dimensions innermost (the result is the accumulator there), and a
  // product of 64 factors, rounded once (rounding each step differs).
  CHECK(halfElements<BFloat16>(evaluate(module(reducer("bf16", "add"), R"(  one = bf16[] constant(1)
  a = bf16[600,3] broadcast(one), dimensions={}
  z = bf16[] constant(0)
  ROOT r = bf16[3] reduce(a, z), dimensions={0}, to_apply=f)"))) ==
        std::vector<float>{600, 600, 600});
  float product = 1, roundedEachStep = 1;
  for (int i = 0; i < 64; ++i) {
    product *= 1.009765625f;
    roundedEachStep = float(Float16(roundedEachStep * 1.009765625f));
  }
  REQUIRE(float(Float16(product)) != roundedEachStep);
  CHECK(halfElements<Float16>(
            evaluate(module(reducer("f16", "multiply"), R"(  c = f16[] constant(1.009765625)
  a = f16[64] broadcast(c), dimensions={}
  z = f16[] constant(1)
  ROOT r = f16[] reduce(a, z), dimensions={0}, to_apply=f)"))) ==
        std::vector<float>{float(Float16(product))});
}

TEST_CASE("a half-precision reducer of several ops rounds after each of them") {
  using hlo::BFloat16;
  // add then negate twice: not a single add, so it runs as written and the
  // bf16 sum of ones stops at 256.
  CHECK(halfElements<BFloat16>(evaluate(module(R"(f {
  p = bf16[] parameter(0)
  q = bf16[] parameter(1)
  s = bf16[] add(p, q)
  n = bf16[] negate(s)
  ROOT r = bf16[] negate(n)
}
)",
                                               R"(  one = bf16[] constant(1)
  a = bf16[1000] broadcast(one), dimensions={}
  z = bf16[] constant(0)
  ROOT r = bf16[] reduce(a, z), dimensions={0}, to_apply=f)"))) == std::vector<float>{256});
}

TEST_CASE("maximum reduce propagates NaN") {
  hlo::Literal result = evaluate(
      module(reducer("f32", "maximum"), R"(  a = f32[2,3] constant({{1, nan, 3}, {4, 5, 6}})
  z = f32[] constant(-inf)
  ROOT r = f32[2] reduce(a, z), dimensions={1}, to_apply=f)"));
  CHECK(std::isnan(result.get<float>(0)));
  CHECK(result.get<float>(1) == 6);
}

TEST_CASE("variadic reduce computes an argmax") {
  // (value, index) pairs; ties keep the lower index.
  std::string argmax = R"(argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  eq = pred[] compare(v0, v1), direction=EQ
  lt = pred[] compare(i0, i1), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, v0, v1)
  i = s32[] select(keep, i0, i1)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
)";
  hlo::Literal result =
      evaluate(module(argmax, R"(  a = f32[2,4] constant({{3, 7, 7, 1}, {-1, -5, -1, -2}})
  idx = s32[2,4] iota(), iota_dimension=1
  vi = f32[] constant(-inf)
  ii = s32[] constant(-1)
  ROOT r = (f32[2], s32[2]) reduce(a, idx, vi, ii), dimensions={1}, to_apply=argmax)"));
  CHECK(elements<float>(result.element(0)) == std::vector<float>{7, -1});
  CHECK(elements<int32_t>(result.element(1)) == std::vector<int32_t>{1, 0});
}

TEST_CASE("reduce over an empty dimension returns the init value") {
  hlo::Literal result = evaluate(module(reducer("f32", "add"), R"(  a = f32[0,3] parameter(0)
  z = f32[] constant(2.5)
  ROOT r = f32[3] reduce(a, z), dimensions={0}, to_apply=f)"),
                                 {hlo::Literal(hlo::Shape::array(PrimitiveType::F32, {0, 3}))});
  CHECK(elements<float>(result) == std::vector<float>{2.5f, 2.5f, 2.5f});
  // And a reduce producing nothing at all.
  CHECK(evaluate(module(reducer("f32", "add"), R"(  a = f32[3,0] parameter(0)
  z = f32[] constant(2.5)
  ROOT r = f32[0] reduce(a, z), dimensions={0}, to_apply=f)"),
                 {hlo::Literal(hlo::Shape::array(PrimitiveType::F32, {3, 0}))})
            .elementCount() == 0);
}

TEST_CASE("reduce errors are reported at the instruction") {
  std::string error =
      evaluationError(module(reducer("f32", "add"), R"(  a = f32[2,3] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2] reduce(a, z), dimensions={3}, to_apply=f)"),
                      {literal<float>(PrimitiveType::F32, {2, 3}, {1, 2, 3, 4, 5, 6})}, {}, false);
  CHECK(error.find("reduce dimension 3 is invalid") != std::string::npos);
}
