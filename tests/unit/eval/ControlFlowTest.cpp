//===- ControlFlowTest.cpp - while, conditional, call, map, tuples, checks -===//

#include "EvaluateText.h"

#include "eval/Evaluator.h"

using namespace mote;
using namespace mote::eval::test;
using hlo::PrimitiveType;

namespace {

/// Counts i from 0 to `limit`, adding 2 to an f32 accumulator each time.
std::string countingLoop(int limit) {
  return R"(HloModule m

cond {
  p = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant()" +
         std::to_string(limit) + R"()
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = f32[] get-tuple-element(p), index=1
  one = s32[] constant(1)
  two = f32[] constant(2)
  next = s32[] add(i, one)
  sum = f32[] add(acc, two)
  ROOT t = (s32[], f32[]) tuple(next, sum)
}

ENTRY e {
  zero = s32[] constant(0)
  start = f32[] constant(0)
  init = (s32[], f32[]) tuple(zero, start)
  ROOT w = (s32[], f32[]) while(init), condition=cond, body=body
}
)";
}

const char *kBranches = R"(HloModule m

negate_it {
  p = f32[] parameter(0)
  ROOT r = f32[] negate(p)
}

double_it {
  p = f32[] parameter(0)
  ROOT r = f32[] add(p, p)
}

square_it {
  p = f32[] parameter(0)
  ROOT r = f32[] multiply(p, p)
}

ENTRY e {
  pr = pred[] parameter(0)
  index = s32[] parameter(1)
  x = f32[] constant(3)
  byPred = f32[] conditional(pr, x, x), true_computation=negate_it, false_computation=double_it
  byIndex = f32[] conditional(index, x, x, x), branch_computations={negate_it, double_it, square_it}
  ROOT t = (f32[], f32[]) tuple(byPred, byIndex)
}
)";

std::vector<float> branches(bool pred, int32_t index) {
  auto result = evaluate(kBranches, {hlo::Literal::scalar<bool>(PrimitiveType::Pred, pred),
                                     hlo::Literal::scalar<int32_t>(PrimitiveType::S32, index)});
  if (result.tupleSize() != 2)
    return {};
  return {elements<float>(result.element(0))[0], elements<float>(result.element(1))[0]};
}

} // namespace

TEST_CASE("while counts to N") {
  auto result = evaluate(countingLoop(10));
  REQUIRE(result.tupleSize() == 2);
  CHECK(elements<int32_t>(result.element(0)) == std::vector<int32_t>{10});
  CHECK(elements<float>(result.element(1)) == std::vector<float>{20});
  auto none = evaluate(countingLoop(0));
  REQUIRE(none.tupleSize() == 2);
  CHECK(elements<int32_t>(none.element(0)) == std::vector<int32_t>{0});
}

TEST_CASE("a while loop past the iteration limit is a located error") {
  eval::EvaluatorOptions options;
  options.maxWhileIterations = 5;
  auto exact = evaluate(countingLoop(5), {}, options);
  REQUIRE(exact.tupleSize() == 2);
  CHECK(elements<int32_t>(exact.element(0)) == std::vector<int32_t>{5});
  std::string error = evaluationError(countingLoop(6), {}, options);
  CHECK(error.find("still running after 5 iterations") != std::string::npos);
  CHECK(error.find("<string>:25:") == 0); // the while instruction's line
}

TEST_CASE("conditional: pred picks branch 0 or 1, out-of-range index picks the last") {
  CHECK(branches(true, 0) == std::vector<float>{-3, -3});
  CHECK(branches(false, 1) == std::vector<float>{6, 6});
  CHECK(branches(true, 2) == std::vector<float>{-3, 9});
  CHECK(branches(true, 7) == std::vector<float>{-3, 9});
  CHECK(branches(true, -1) == std::vector<float>{-3, 9});
}

TEST_CASE("call, fusion and map run their computations") {
  const char *text = R"(HloModule m

add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

fused {
  p0 = f32[3] parameter(0)
  p1 = f32[3] parameter(1)
  ROOT m = f32[3] multiply(p0, p1)
}

ENTRY e {
  x = f32[3] constant({1, 2, 3})
  y = f32[3] constant({10, 20, 30})
  mapped = f32[3] map(x, y), dimensions={0}, to_apply=add_f
  fusedResult = f32[3] fusion(x, y), kind=kLoop, calls=fused
  one = f32[] constant(1)
  two = f32[] constant(2)
  called = f32[] call(one, two), to_apply=add_f
  ROOT t = (f32[3], f32[3], f32[]) tuple(mapped, fusedResult, called)
}
)";
  auto result = evaluate(text);
  REQUIRE(result.tupleSize() == 3);
  CHECK(elements<float>(result.element(0)) == std::vector<float>{11, 22, 33});
  CHECK(elements<float>(result.element(1)) == std::vector<float>{10, 40, 90});
  CHECK(elements<float>(result.element(2)) == std::vector<float>{3});
}

TEST_CASE("nested tuples and get-tuple-element") {
  const char *text = R"(HloModule m
ENTRY e {
  a = s32[] constant(1)
  b = f32[2] constant({2, 3})
  inner = (s32[], f32[2]) tuple(a, b)
  outer = ((s32[], f32[2]), s32[]) tuple(inner, a)
  g = (s32[], f32[2]) get-tuple-element(outer), index=0
  ROOT h = f32[2] get-tuple-element(g), index=1
})";
  CHECK(elements<float>(evaluate(text)) == std::vector<float>{2, 3});
  const char *whole = R"(HloModule m
ENTRY e {
  p = (s32[], (f32[], pred[])) parameter(0)
  ROOT q = (s32[], (f32[], pred[])) copy(p)
})";
  hlo::Literal argument = hlo::Literal::tuple(
      {hlo::Literal::scalar<int32_t>(PrimitiveType::S32, 4),
       hlo::Literal::tuple({hlo::Literal::scalar<float>(PrimitiveType::F32, 0.5f),
                            hlo::Literal::scalar<bool>(PrimitiveType::Pred, true)})});
  auto result = evaluate(whole, {argument});
  CHECK(result.bitwiseEqual(argument));
}

TEST_CASE("token, dependency, barrier and single-device ids pass values through") {
  const char *text = R"(HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  tok = token[] after-all()
  dep = f32[2] add-dependency(x, tok)
  wrapped = (f32[2]) tuple(dep)
  barrier = (f32[2]) opt-barrier(wrapped)
  y = f32[2] get-tuple-element(barrier), index=0
  id = u32[] partition-id()
  size = s32[] get-dimension-size(y), dimensions={0}
  ROOT t = (f32[2], u32[], s32[]) tuple(y, id, size)
})";
  auto result = evaluate(text, {literal<float>(PrimitiveType::F32, {2}, {1.5f, -2.0f})});
  REQUIRE(result.tupleSize() == 3);
  CHECK(elements<float>(result.element(0)) == std::vector<float>{1.5f, -2.0f});
  CHECK(elements<uint32_t>(result.element(1)) == std::vector<uint32_t>{0});
  CHECK(elements<int32_t>(result.element(2)) == std::vector<int32_t>{2});
}

TEST_CASE("rng-get-and-update-state returns the state and advances it by delta") {
  const char *text = R"(HloModule m
ENTRY e {
  s0 = u64[2] rng-get-and-update-state(), delta=5
  s1 = u64[2] rng-get-and-update-state(), delta=5
  ROOT t = (u64[2], u64[2]) tuple(s0, s1)
})";
  auto result = evaluate(text);
  REQUIRE(result.tupleSize() == 2);
  auto first = elements<uint64_t>(result.element(0));
  auto second = elements<uint64_t>(result.element(1));
  REQUIRE(first.size() == 2);
  REQUIRE(second.size() == 2);
  CHECK(second[0] == first[0] + 5);
  CHECK(first[1] == 0);
}

TEST_CASE("instructions the root does not use are not evaluated") {
  // The dead loop would run forever; with a limit of 3 it would be an error.
  const char *text = R"(HloModule m

forever {
  p = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}

same {
  ROOT p = s32[] parameter(0)
}

ENTRY e {
  a = s32[] constant(4)
  dead = s32[] while(a), condition=forever, body=same
  ROOT r = s32[] add(a, a)
})";
  eval::EvaluatorOptions options;
  options.maxWhileIterations = 3;
  CHECK(elements<int32_t>(evaluate(text, {}, options)) == std::vector<int32_t>{8});
}

TEST_CASE("arguments must match the entry parameters") {
  const char *text = R"(HloModule m
ENTRY e {
  ROOT p = f32[2] parameter(0)
})";
  CHECK(elements<float>(evaluate(text, {literal<float>(PrimitiveType::F32, {2}, {1, 2})})) ==
        std::vector<float>{1, 2});
  CHECK(evaluationError(text).find("takes 1 argument(s), got 0") != std::string::npos);
  std::string error = evaluationError(text, {literal<float>(PrimitiveType::F32, {3}, {1, 2, 3})});
  CHECK(error.find("<string>:3:") == 0);
  CHECK(error.find("argument 0 has shape f32[3]") != std::string::npos);
}

TEST_CASE("checkEvaluable refuses what a single device cannot run, at the instruction") {
  auto refuse = [](const std::string &body) {
    return evaluationError("HloModule m\n\nadd_f {\n  a = f32[] parameter(0)\n  b = f32[] "
                           "parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n  x = f32[2] "
                           "parameter(0)\n" +
                               body + "\n}\n",
                           {literal<float>(PrimitiveType::F32, {2}, {1, 2})}, {},
                           /*verify=*/false);
  };
  std::string error = refuse("  ROOT r = f32[2] all-reduce(x), replica_groups={}, to_apply=add_f");
  CHECK(error.find("<string>:11:") == 0);
  CHECK(error.find("all-reduce is not supported on a single device") != std::string::npos);
  error = refuse("  ROOT r = f32[2] custom-call(x), custom_call_target=\"foo\"");
  CHECK(error.find("custom-call target 'foo' is not supported") != std::string::npos);
  error = refuse("  c = f32[2] constant({...})\n  ROOT r = f32[2] add(x, c)");
  CHECK(error.find("<string>:11:") == 0);
  CHECK(error.find("constant values were elided by the dumper ('{...}'); cannot evaluate") !=
        std::string::npos);
  // Also inside a called computation.
  error = evaluationError(R"(HloModule m

inner {
  p = f32[2] parameter(0)
  ROOT r = f32[2] custom-call(p), custom_call_target="bar"
}

ENTRY e {
  x = f32[2] constant({1, 2})
  ROOT c = f32[2] call(x), to_apply=inner
}
)",
                          {}, {}, false);
  CHECK(error.find("<string>:5:") == 0);
  CHECK(error.find("custom-call target 'bar'") != std::string::npos);
}

TEST_CASE("unbounded dimensions are refused before evaluation") {
  std::string error = evaluationError(R"(HloModule m
ENTRY e {
  p = f32[?] parameter(0)
  ROOT n = f32[?] negate(p)
})",
                                      {literal<float>(PrimitiveType::F32, {1}, {1})}, {}, false);
  CHECK(error.find("<string>:3:") == 0);
  CHECK(error.find("unbounded") != std::string::npos);
}

TEST_CASE("loop-invariant work in a loop body gives the same values on every iteration") {
  // Each iteration adds sum(iota(5)^2) = 0+1+4+9+16 = 30 (independent of the
  // loop state, computed once and then reused) and the counter itself, and
  // draws nothing random. After 4 iterations: 4*30 + (0+1+2+3) = 126.
  auto result = evaluate(R"(
HloModule invariant

add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

step {
  acc = s32[] parameter(0)
  i = s32[] parameter(1)
  iota = s32[5] iota(), iota_dimension=0
  squares = s32[5] multiply(iota, iota)
  zero = s32[] constant(0)
  total = s32[] reduce(squares, zero), dimensions={0}, to_apply=add
  plus = s32[] add(acc, total)
  ROOT next = s32[] add(plus, i)
}

cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=1
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], s32[]) parameter(0)
  acc = s32[] get-tuple-element(s), index=0
  i = s32[] get-tuple-element(s), index=1
  updated = s32[] call(acc, i), to_apply=step
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(updated, j)
}

ENTRY main {
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero)
  ROOT loop = (s32[], s32[]) while(init), condition=cond, body=body
})");
  REQUIRE(result.tupleSize() == 2);
  CHECK(elements<int32_t>(result.element(0)) == std::vector<int32_t>{126});
  CHECK(elements<int32_t>(result.element(1)) == std::vector<int32_t>{4});
}
