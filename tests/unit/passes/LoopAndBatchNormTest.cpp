//===- LoopAndBatchNormTest.cpp - Loop-invariant hoisting, batch-norm expansion ===//

#include "PassTestUtil.h"

#include "passes/Passes.h"

#include "hlo/Verifier.h"

#include <algorithm>
#include <cmath>

namespace mote::passes::test {
namespace {

using hlo::Opcode;

/// Largest |a - b| / max(1, |a|) over the f32 leaves of two equal-shaped values.
double maxRelativeDifference(const hlo::Literal &a, const hlo::Literal &b) {
  if (a.shape().isTuple()) {
    double worst = 0;
    for (size_t i = 0; i < a.tupleSize(); ++i)
      worst = std::max(worst, maxRelativeDifference(a.element(i), b.element(i)));
    return worst;
  }
  double worst = 0;
  for (int64_t i = 0; i < a.elementCount(); ++i) {
    const double x = a.get<float>(i), y = b.get<float>(i);
    worst = std::max(worst, std::fabs(x - y) / std::max(1.0, std::fabs(x)));
  }
  return worst;
}

const hlo::Instruction *findWhile(const hlo::Computation &computation) {
  for (const auto &instruction : computation.instructions())
    if (instruction->opcode() == Opcode::While)
      return instruction.get();
  return nullptr;
}

constexpr const char *kLoopWithInvariantWork = R"(
HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
cond {
  p = (s32[], s32[], s32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], s32[], s32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = s32[] get-tuple-element(p), index=1
  w = s32[8] get-tuple-element(p), index=2
  io = s32[8] iota(), iota_dimension=0
  sq = s32[8] multiply(io, w)
  zero = s32[] constant(0)
  total = s32[] reduce(sq, zero), dimensions={0}, to_apply=add
  one = s32[] constant(1)
  next = s32[] add(i, one)
  more = s32[] add(acc, total)
  more2 = s32[] add(more, i)
  ROOT t = (s32[], s32[], s32[8]) tuple(next, more2, w)
}
ENTRY main {
  w = s32[8] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[], s32[8]) tuple(zero, zero, w)
  loop = (s32[], s32[], s32[8]) while(init), condition=cond, body=body
  ROOT r = s32[] get-tuple-element(loop), index=1
}
)";

TEST_CASE("while-loop-invariant-code-motion: a reduction over pass-through state moves out") {
  auto module = load(kLoopWithInvariantWork);
  REQUIRE(module);
  auto args = randomArguments(*module);
  hlo::Literal before = evaluate(*module, args);

  WhileLoopInvariantCodeMotion pass;
  CHECK(runPass(pass, *module));
  CHECK_FALSE(static_cast<bool>(hlo::verifyModule(*module)));
  DeadCodeElimination dce;
  runPass(dce, *module);

  const hlo::Instruction *loop = findWhile(*module->entry());
  REQUIRE(loop);
  // The state carries the hoisted sum; the body no longer reduces.
  CHECK(loop->shape().tupleSize() == 4);
  CHECK(countOpcode(*loop->calledComputation(1), Opcode::Reduce) == 0);
  CHECK(countOpcode(*module->entry(), Opcode::Reduce) == 1);
  hlo::Literal after = evaluate(*module, args);
  CHECK_MESSAGE(after.bitwiseEqual(before), before.toString() << " vs " << after.toString());
}

TEST_CASE("while-loop-invariant-code-motion: loop-varying and cheap work stays") {
  auto module = load(R"(
HloModule m
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  c = f32[] constant(2)
  b = f32[4] broadcast(c), dimensions={}
  y = f32[4] multiply(x, b)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[4]) tuple(next, y)
}
ENTRY main {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  ROOT loop = (s32[], f32[4]) while(init), condition=cond, body=body
}
)");
  REQUIRE(module);
  WhileLoopInvariantCodeMotion pass;
  // x changes every trip, and a broadcast of a constant is not worth a buffer.
  CHECK_FALSE(runPass(pass, *module));
}

TEST_CASE("batch-norm-expander: training, inference and grad become arithmetic") {
  auto module = load(R"(
HloModule m
ENTRY main {
  x = f32[2,3,4] parameter(0)
  scale = f32[3] parameter(1)
  offset = f32[3] parameter(2)
  mean = f32[3] parameter(3)
  v = f32[3] parameter(4)
  dy = f32[2,3,4] parameter(5)
  va = f32[3] multiply(v, v)
  t = (f32[2,3,4], f32[3], f32[3]) batch-norm-training(x, scale, offset), epsilon=0.001, feature_index=1
  i = f32[2,3,4] batch-norm-inference(x, scale, offset, mean, va), epsilon=0.001, feature_index=1
  g = (f32[2,3,4], f32[3], f32[3]) batch-norm-grad(x, scale, mean, va, dy), epsilon=0.001, feature_index=1
  ROOT out = ((f32[2,3,4], f32[3], f32[3]), f32[2,3,4], (f32[2,3,4], f32[3], f32[3])) tuple(t, i, g)
}
)");
  REQUIRE(module);
  auto args = randomArguments(*module);
  hlo::Literal before = evaluate(*module, args);
  BatchNormExpander pass;
  CHECK(runPass(pass, *module));
  CHECK_FALSE(static_cast<bool>(hlo::verifyModule(*module)));
  DeadCodeElimination dce;
  runPass(dce, *module);
  for (Opcode opcode :
       {Opcode::BatchNormTraining, Opcode::BatchNormInference, Opcode::BatchNormGrad})
    CHECK(countOpcode(*module->entry(), opcode) == 0);
  // f32 arithmetic against the evaluator's double: close, not identical.
  hlo::Literal after = evaluate(*module, args);
  CHECK(after.shape().compatible(before.shape()));
  CHECK(maxRelativeDifference(before, after) < 1e-4);
}

} // namespace
} // namespace mote::passes::test
