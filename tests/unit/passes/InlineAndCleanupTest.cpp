//===- InlineAndCleanupTest.cpp - InlineCalls, DCE and CSE ----------------===//

#include "PassTestUtil.h"

#include "passes/Passes.h"

#include "llvm/ADT/StringSet.h"

namespace mote::passes::test {
namespace {

using hlo::Opcode;

const char *kNestedCalls = R"(
HloModule m

%inner (x: f32[2,3]) -> f32[2,3] {
  %x = f32[2,3] parameter(0)
  ROOT %n = f32[2,3] negate(%x)
}

%fused (p: f32[2,3], q: f32[2,3]) -> f32[2,3] {
  %p = f32[2,3] parameter(0)
  %q = f32[2,3] parameter(1)
  %c = f32[2,3] call(%p), to_apply=%inner
  ROOT %a = f32[2,3] add(%c, %q)
}

ENTRY %main (a: f32[2,3], b: f32[2,3]) -> f32[2,3] {
  %a = f32[2,3] parameter(0)
  %b = f32[2,3] parameter(1)
  %f = f32[2,3] fusion(%a, %b), kind=kLoop, calls=%fused
  %n = f32[2,3] call(%f), to_apply=%inner
  ROOT %r = f32[2,3] multiply(%f, %n)
}
)";

TEST_CASE("inline-calls: nested calls and fusions disappear, names stay unique, values agree") {
  auto module = load(kNestedCalls);
  REQUIRE(module);
  auto args = randomArguments(*module);
  hlo::Literal before = evaluate(*module, args);
  InlineCalls pass;
  CHECK(runPass(pass, *module));
  REQUIRE(module->computations().size() == 1);
  const hlo::Computation &entry = *module->entry();
  CHECK(countOpcode(entry, Opcode::Call) == 0);
  CHECK(countOpcode(entry, Opcode::Fusion) == 0);
  CHECK(countOpcode(entry, Opcode::Negate) == 2);
  CHECK(countOpcode(entry, Opcode::Add) == 1);
  llvm::StringSet<> names;
  for (const auto &instruction : entry.instructions())
    CHECK_MESSAGE(names.insert(instruction->name()).second, instruction->name().str());
  CHECK(evaluate(*module, args).bitwiseEqual(before));
  CHECK_FALSE(runPass(pass, *module));
}

TEST_CASE("inline-calls: a call whose root is a parameter forwards the operand") {
  auto module = load(R"(
HloModule m
%id (x: f32[4]) -> f32[4] {
  ROOT %x = f32[4] parameter(0)
}
ENTRY %main (a: f32[4]) -> f32[4] {
  %a = f32[4] parameter(0)
  ROOT %c = f32[4] call(%a), to_apply=%id
}
)");
  REQUIRE(module);
  InlineCalls pass;
  CHECK(runPass(pass, *module));
  CHECK(module->entry()->root() == module->entry()->parameter(0));
}

TEST_CASE("inline-calls: a while body shared by two inlined calls gets its own copy per site") {
  auto module = load(R"(
HloModule m
%cond (s: s32[]) -> pred[] {
  %s = s32[] parameter(0)
  %ten = s32[] constant(10)
  ROOT %lt = pred[] compare(%s, %ten), direction=LT
}
%body (s: s32[]) -> s32[] {
  %s = s32[] parameter(0)
  %one = s32[] constant(1)
  ROOT %next = s32[] add(%s, %one)
}
%loop (x: s32[]) -> s32[] {
  %x = s32[] parameter(0)
  ROOT %w = s32[] while(%x), condition=%cond, body=%body
}
ENTRY %main (a: s32[]) -> s32[] {
  %a = s32[] parameter(0)
  %c1 = s32[] call(%a), to_apply=%loop
  %c2 = s32[] call(%c1), to_apply=%loop
  ROOT %r = s32[] add(%c1, %c2)
}
)");
  REQUIRE(module);
  auto args = randomArguments(*module);
  hlo::Literal before = evaluate(*module, args);
  InlineCalls pass;
  CHECK(runPass(pass, *module));
  CHECK(countOpcode(*module->entry(), Opcode::While) == 2);
  CHECK(module->computations().size() == 5); // entry + two (condition, body) pairs
  std::vector<const hlo::Computation *> bodies;
  for (const auto &instruction : module->entry()->instructions())
    if (instruction->opcode() == Opcode::While)
      bodies.push_back(instruction->calledComputation(1));
  REQUIRE(bodies.size() == 2);
  CHECK(bodies[0] != bodies[1]);
  CHECK(evaluate(*module, args).bitwiseEqual(before));
}

TEST_CASE("dce: drops what the root does not use, keeps parameters and used computations") {
  auto module = load(R"(
HloModule m
%unused (x: f32[]) -> f32[] {
  ROOT %x = f32[] parameter(0)
}
ENTRY %main (a: f32[3], b: f32[3]) -> f32[3] {
  %a = f32[3] parameter(0)
  %b = f32[3] parameter(1)
  %dead1 = f32[3] exponential(%a)
  %dead2 = f32[3] add(%dead1, %a)
  ROOT %r = f32[3] negate(%a)
}
)");
  REQUIRE(module);
  DeadCodeElimination pass;
  CHECK(runPass(pass, *module));
  const hlo::Computation &entry = *module->entry();
  CHECK(entry.instructionCount() == 3);
  CHECK(entry.parameterCount() == 2);
  CHECK(entry.findInstruction("dead1") == nullptr);
  CHECK(entry.findInstruction("b") != nullptr);
  CHECK(module->computations().size() == 1);
  CHECK_FALSE(runPass(pass, *module));
}

TEST_CASE("cse: merges equal instructions and constants, not rng or different attributes") {
  auto module = load(R"(
HloModule m
ENTRY %main (a: f32[4], b: f32[4]) -> (f32[4], f32[4], f32[4], f32[4], f32[4]) {
  %a = f32[4] parameter(0)
  %b = f32[4] parameter(1)
  %x1 = f32[4] add(%a, %b), metadata={op_name="first"}
  %x2 = f32[4] add(%a, %b), metadata={op_name="second"}
  %y1 = f32[4] exponential(%x1)
  %y2 = f32[4] exponential(%x2)
  %c1 = f32[4] constant({1, 2, 3, 4})
  %c2 = f32[4] constant({1, 2, 3, 4})
  %c3 = f32[4] constant({1, 2, 3, 5})
  %s1 = f32[4] add(%y1, %c1)
  %s2 = f32[4] add(%y2, %c2)
  %s3 = f32[4] add(%y2, %c3)
  %lo = f32[] constant(0)
  %hi = f32[] constant(1)
  %r1 = f32[4] rng(%lo, %hi), distribution=rng_uniform
  %r2 = f32[4] rng(%lo, %hi), distribution=rng_uniform
  %cmp1 = pred[4] compare(%a, %b), direction=LT
  %cmp2 = pred[4] compare(%a, %b), direction=GT
  %sel = f32[4] select(%cmp1, %a, %b)
  %sel2 = f32[4] select(%cmp2, %a, %b)
  ROOT %t = (f32[4], f32[4], f32[4], f32[4], f32[4]) tuple(%s1, %s2, %s3, %r1, %r2)
}
)");
  REQUIRE(module);
  // rng output is not part of the comparison: compare the deterministic leaves.
  auto args = randomArguments(*module);
  hlo::Literal before = evaluate(*module, args);
  CommonSubexpressionElimination pass;
  CHECK(runPass(pass, *module));
  const hlo::Computation &entry = *module->entry();
  CHECK(countOpcode(entry, Opcode::Add) == 3); // x, s1 == s2, s3
  CHECK(countOpcode(entry, Opcode::Exp) == 1);
  CHECK(countOpcode(entry, Opcode::Constant) == 4); // c1 == c2, c3, lo, hi
  CHECK(countOpcode(entry, Opcode::Rng) == 2);
  CHECK(countOpcode(entry, Opcode::Compare) == 2); // different directions
  const hlo::Instruction *root = entry.root();
  CHECK(root->operand(0) == root->operand(1));
  CHECK(root->operand(0) != root->operand(2));
  hlo::Literal after = evaluate(*module, args);
  for (size_t i = 0; i < 3; ++i)
    CHECK(after.element(i).bitwiseEqual(before.element(i)));
}

TEST_CASE("cse: instructions that call computations drawing random numbers stay apart") {
  auto module = load(R"(
HloModule m
%cond (s: (s32[], f32[2])) -> pred[] {
  %s = (s32[], f32[2]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(2)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], f32[2])) -> (s32[], f32[2]) {
  %s = (s32[], f32[2]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  %lo = f32[] constant(0)
  %hi = f32[] constant(1)
  %r = f32[2] rng(%lo, %hi), distribution=rng_uniform
  ROOT %t = (s32[], f32[2]) tuple(%next, %r)
}
ENTRY %main (x: f32[2]) -> ((s32[], f32[2]), (s32[], f32[2])) {
  %x = f32[2] parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[2]) tuple(%zero, %x)
  %w1 = (s32[], f32[2]) while(%init), condition=%cond, body=%body
  %w2 = (s32[], f32[2]) while(%init), condition=%cond, body=%body
  ROOT %t = ((s32[], f32[2]), (s32[], f32[2])) tuple(%w1, %w2)
}
)");
  REQUIRE(module);
  CommonSubexpressionElimination pass;
  runPass(pass, *module);
  // Two loops draw twice as many numbers as one: both stay.
  CHECK(countOpcode(*module->entry(), Opcode::While) == 2);
}

TEST_CASE("cse: different layouts are different values") {
  auto module = load(R"(
HloModule m
ENTRY %main (a: f32[2,3]) -> (f32[2,3], f32[2,3]) {
  %a = f32[2,3] parameter(0)
  %c1 = f32[2,3]{1,0} copy(%a)
  %c2 = f32[2,3]{0,1} copy(%a)
  ROOT %t = (f32[2,3], f32[2,3]) tuple(%c1, %c2)
}
)");
  REQUIRE(module);
  CommonSubexpressionElimination pass;
  CHECK_FALSE(runPass(pass, *module));
  CHECK(countOpcode(*module->entry(), Opcode::Copy) == 2);
}

} // namespace
} // namespace mote::passes::test
