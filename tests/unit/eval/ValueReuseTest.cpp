//===- ValueReuseTest.cpp - Results written over dying operands ------------===//
//
// The evaluator writes elementwise results over operands whose last use they
// are, hands while-loop state to the body, and updates slices in place. These
// tests check that the values stay exact and that arguments and constants are
// never written.
//
//===----------------------------------------------------------------------===//

#include "EvaluateText.h"

using namespace mote;
using namespace mote::eval::test;
using hlo::PrimitiveType;

TEST_CASE("elementwise chains over dying operands keep exact values") {
  const char *text = R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  a = f32[4] add(n, n)
  m = f32[4] multiply(a, p)
  im = f32[4] imag(m)
  s = f32[4] subtract(p, im)
  g = pred[4] compare(s, n), direction=GT
  ng = pred[4] not(g)
  sel = f32[4] select(ng, n, p)
  lo = f32[] constant(1.5)
  hi = f32[] constant(3.5)
  cl = f32[4] clamp(lo, sel, hi)
  m2 = f32[4] multiply(p, p)
  ROOT t = (f32[4], f32[4], f32[4]) tuple(cl, p, m2)
})";
  hlo::Literal argument = literal<float>(PrimitiveType::F32, {4}, {1, -2, 3, -4});
  hlo::Literal original = argument;
  auto result = evaluate(text, {argument});
  REQUIRE(result.tupleSize() == 3);
  // n = {-1, 2, -3, 4}; s = p; s > n = {T, F, T, F}; select(!g, n, p) = {1, 2, 3, 4}.
  CHECK(elements<float>(result.element(0)) == std::vector<float>{1.5f, 2, 3, 3.5f});
  CHECK(elements<float>(result.element(1)) == std::vector<float>{1, -2, 3, -4});
  CHECK(elements<float>(result.element(2)) == std::vector<float>{1, 4, 9, 16});
  CHECK(argument.bitwiseEqual(original));
}

TEST_CASE("a while loop updates its carried buffer in place without touching constants") {
  const char *text = R"(HloModule m

cond {
  p = (s32[], s32[5]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], s32[5]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  buf = s32[5] get-tuple-element(p), index=1
  sq = s32[] multiply(i, i)
  u = s32[1] broadcast(sq), dimensions={}
  nb = s32[5] dynamic-update-slice(buf, u, i)
  one = s32[] constant(1)
  ni = s32[] add(i, one)
  ROOT t = (s32[], s32[5]) tuple(ni, nb)
}

ENTRY e {
  z = s32[5] constant({0, 0, 0, 0, 0})
  start = s32[] parameter(0)
  init = (s32[], s32[5]) tuple(start, z)
  w = (s32[], s32[5]) while(init), condition=cond, body=body
  squares = s32[5] get-tuple-element(w), index=1
  ROOT r = (s32[5], s32[5]) tuple(squares, z)
})";
  auto module = load(text);
  REQUIRE(module);
  eval::Evaluator evaluator(*module);
  std::vector<hlo::Literal> arguments;
  arguments.push_back(hlo::Literal::scalar<int32_t>(PrimitiveType::S32, 0));
  for (int run = 0; run < 2; ++run) {
    auto result = evaluator.run(arguments);
    REQUIRE(static_cast<bool>(result));
    REQUIRE(result->tupleSize() == 2);
    CHECK(elements<int32_t>(result->element(0)) == std::vector<int32_t>{0, 1, 4, 9, 16});
    CHECK(elements<int32_t>(result->element(1)) == std::vector<int32_t>{0, 0, 0, 0, 0});
  }
  // Starting at 3 only fills indices 3 and 4.
  arguments[0] = hlo::Literal::scalar<int32_t>(PrimitiveType::S32, 3);
  auto partial = evaluator.run(arguments);
  REQUIRE(static_cast<bool>(partial));
  CHECK(elements<int32_t>(partial->element(0)) == std::vector<int32_t>{0, 0, 0, 9, 16});
  CHECK(arguments[0].get<int32_t>(0) == 3);
}

TEST_CASE("a loop over an entry argument leaves the caller's literal alone") {
  const char *text = R"(HloModule m

cond {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[3] get-tuple-element(p), index=1
  d = f32[3] add(v, v)
  one = s32[] constant(1)
  ni = s32[] add(i, one)
  ROOT t = (s32[], f32[3]) tuple(ni, d)
}

ENTRY e {
  x = (s32[], f32[3]) parameter(0)
  ROOT w = (s32[], f32[3]) while(x), condition=cond, body=body
})";
  hlo::Literal argument =
      hlo::Literal::tuple({hlo::Literal::scalar<int32_t>(PrimitiveType::S32, 0),
                           literal<float>(PrimitiveType::F32, {3}, {1, 2, -0.5f})});
  hlo::Literal original = argument;
  auto result = evaluate(text, {argument});
  REQUIRE(result.tupleSize() == 2);
  CHECK(elements<float>(result.element(1)) == std::vector<float>{8, 16, -4});
  CHECK(argument.bitwiseEqual(original));
}
