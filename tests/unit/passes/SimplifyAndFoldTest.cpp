//===- SimplifyAndFoldTest.cpp - AlgebraicSimplifier and ConstantFolding --===//

#include "PassTestUtil.h"

#include "passes/Passes.h"

#include <cmath>

namespace mote::passes::test {
namespace {

using hlo::Opcode;

/// Runs `pass` then DCE; checks the values before and after agree bit for bit.
void checkSameValues(Pass &pass, hlo::Module &module, bool expectChange = true) {
  auto args = randomArguments(module);
  hlo::Literal before = evaluate(module, args);
  CHECK(runPass(pass, module) == expectChange);
  DeadCodeElimination dce;
  runPass(dce, module);
  hlo::Literal after = evaluate(module, args);
  CHECK_MESSAGE(after.bitwiseEqual(before), before.toString() << " vs " << after.toString());
}

TEST_CASE("algebraic-simplifier: identities vanish, chains merge, values agree bit for bit") {
  auto module = load(R"(
HloModule m
ENTRY %main (a: f32[2,3], b: f32[3,2]) -> (f32[2,3], f32[3,2], f32[6], f32[2,3], f32[4,2,3]) {
  %a = f32[2,3] parameter(0)
  %b = f32[3,2] parameter(1)
  %r1 = f32[6] reshape(%a)
  %r2 = f32[3,2] reshape(%r1)
  %r3 = f32[2,3] reshape(%r2)
  %t0 = f32[2,3] transpose(%r3), dimensions={0,1}
  %cv = f32[2,3] convert(%t0)
  %sl = f32[2,3] slice(%cv), slice={[0:2], [0:3]}
  %zero = f32[] constant(0)
  %pd = f32[2,3] pad(%sl, %zero), padding=0_0x0_0
  %cc = f32[2,3] concatenate(%pd), dimensions={0}
  %cp = f32[2,3] copy(%cc)
  %rv = f32[2,3] reverse(%cp), dimensions={}
  %bc = f32[2,3] broadcast(%rv), dimensions={0,1}
  %t1 = f32[2,3] transpose(%b), dimensions={1,0}
  %t2 = f32[3,2] transpose(%t1), dimensions={1,0}
  %t3 = f32[2,3] transpose(%t2), dimensions={1,0}
  %add = f32[2,3] add(%bc, %t3)
  %tp = (f32[2,3], f32[3,2]) tuple(%add, %b)
  %g1 = f32[3,2] get-tuple-element(%tp), index=1
  %flat = f32[6] reshape(%r3)
  %s = f32[] constant(2)
  %b1 = f32[3] broadcast(%s), dimensions={}
  %b2 = f32[4,2,3] broadcast(%b1), dimensions={2}
  %i0 = s32[] constant(0)
  %ds = f32[2,3] dynamic-slice(%bc, %i0, %i0), dynamic_slice_sizes={2,3}
  ROOT %t = (f32[2,3], f32[3,2], f32[6], f32[2,3], f32[4,2,3]) tuple(%add, %g1, %flat, %ds, %b2)
}
)");
  REQUIRE(module);
  AlgebraicSimplifier pass;
  checkSameValues(pass, *module);
  const hlo::Computation &entry = *module->entry();
  const hlo::Instruction *root = entry.root();
  const hlo::Instruction *a = entry.parameter(0), *b = entry.parameter(1);
  // add(a, transpose(b)): every identity between went away, three transposes are one.
  const hlo::Instruction *add = root->operand(0);
  REQUIRE(add->opcode() == Opcode::Add);
  CHECK(add->operand(0) == a);
  CHECK(add->operand(1)->opcode() == Opcode::Transpose);
  CHECK(add->operand(1)->operand(0) == b);
  CHECK(root->operand(1) == b);
  CHECK(root->operand(2)->opcode() == Opcode::Reshape);
  CHECK(root->operand(2)->operand(0) == a);
  CHECK(root->operand(3) == a);
  const hlo::Instruction *broadcast = root->operand(4);
  REQUIRE(broadcast->opcode() == Opcode::Broadcast);
  CHECK(broadcast->operand(0)->opcode() == Opcode::Constant);
  CHECK(broadcast->attributes().dimensions.empty());
  CHECK(countOpcode(entry, Opcode::Transpose) == 1);
  CHECK(countOpcode(entry, Opcode::Copy) == 0);
}

TEST_CASE("algebraic-simplifier: leaves real work alone") {
  auto module = load(R"(
HloModule m
ENTRY %main (a: f32[2,3]) -> (f32[3,2], f32[2,2], f32[3,2], f32[2,3]) {
  %a = f32[2,3] parameter(0)
  %t = f32[3,2] transpose(%a), dimensions={1,0}
  %s = f32[2,2] slice(%a), slice={[0:2], [1:3]}
  %r = f32[3,2] reshape(%a)
  %v = f32[2,3] reverse(%a), dimensions={1}
  ROOT %tuple = (f32[3,2], f32[2,2], f32[3,2], f32[2,3]) tuple(%t, %s, %r, %v)
}
)");
  REQUIRE(module);
  AlgebraicSimplifier pass;
  CHECK_FALSE(runPass(pass, *module));
}

TEST_CASE("algebraic-simplifier: transpose of transpose composes permutations") {
  auto module = load(R"(
HloModule m
ENTRY %main (a: f32[2,3,4]) -> f32[3,4,2] {
  %a = f32[2,3,4] parameter(0)
  %t1 = f32[4,2,3] transpose(%a), dimensions={2,0,1}
  ROOT %t2 = f32[3,4,2] transpose(%t1), dimensions={2,0,1}
}
)");
  REQUIRE(module);
  AlgebraicSimplifier pass;
  checkSameValues(pass, *module);
  const hlo::Instruction *root = module->entry()->root();
  CHECK(root->operand(0) == module->entry()->parameter(0));
  CHECK(root->attributes().dimensions == hlo::DimVector{1, 2, 0});
}

TEST_CASE("constant-folding: folds small results, keeps broadcasts of scalars as code") {
  auto module = load(R"(
HloModule m
ENTRY %main (a: f32[100]) -> (f32[100], f32[4], f32[100]) {
  %a = f32[100] parameter(0)
  %c = f32[4] constant({1, -2, 3.5, -0})
  %n = f32[4] negate(%c)
  %e = f32[4] exponential(%n)
  %two = f32[] constant(2)
  %big = f32[100] broadcast(%two), dimensions={}
  %small = f32[4] broadcast(%two), dimensions={}
  %m = f32[4] multiply(%e, %small)
  %io = s32[100] iota(), iota_dimension=0
  %f = f32[100] convert(%io)
  %x = f32[100] add(%a, %big)
  ROOT %t = (f32[100], f32[4], f32[100]) tuple(%x, %m, %f)
}
)");
  REQUIRE(module);
  ConstantFolding pass(1 << 16, {});
  checkSameValues(pass, *module);
  const hlo::Instruction *root = module->entry()->root();
  CHECK(root->operand(1)->opcode() == Opcode::Constant);
  // Would grow read-only data from one scalar (or nothing) to 100 elements.
  CHECK(root->operand(0)->operand(1)->opcode() == Opcode::Broadcast);
  CHECK(root->operand(2)->opcode() == Opcode::Convert);
  CHECK(root->operand(2)->operand(0)->opcode() == Opcode::Iota);
  // The expected value, worked out independently: exp(-x) * 2.
  const hlo::Literal &m = *root->operand(1)->attributes().literal;
  const float inputs[4] = {1, -2, 3.5f, -0.0f};
  for (int i = 0; i < 4; ++i)
    CHECK(m.get<float>(i) == doctest::Approx(std::exp(-inputs[i]) * 2).epsilon(1e-6));
}

TEST_CASE("constant-folding: respects the element limit and skips rng") {
  // %c stays (the tuple returns it), so folding %n would add read-only data.
  auto module = load(R"(
HloModule m
ENTRY %main () -> (f32[8], f32[8], f32[8]) {
  %c = f32[8] constant({1, 2, 3, 4, 5, 6, 7, 8})
  %n = f32[8] negate(%c)
  %lo = f32[] constant(0)
  %hi = f32[] constant(1)
  %r = f32[8] rng(%lo, %hi), distribution=rng_uniform
  ROOT %t = (f32[8], f32[8], f32[8]) tuple(%n, %r, %c)
}
)");
  REQUIRE(module);
  ConstantFolding tooSmall(4, {});
  CHECK_FALSE(runPass(tooSmall, *module));
  ConstantFolding pass(1 << 16, {});
  CHECK(runPass(pass, *module));
  const hlo::Instruction *root = module->entry()->root();
  CHECK(root->operand(0)->opcode() == Opcode::Constant);
  CHECK(root->operand(1)->opcode() == Opcode::Rng);
}

TEST_CASE("constant-folding: a large constant read once is rearranged whatever the limit") {
  // Bound weights transposed into the order a kernel reads them: the
  // transpose replaces its operand, so read-only data does not grow. A dot
  // of constants is no mere rearrangement and stays.
  auto module = load(R"(
HloModule m
ENTRY %main (x: f32[3]) -> (f32[3,2], f32[2]) {
  %w = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  %t = f32[3,2] transpose(%w), dimensions={1,0}
  %v = f32[2,3] constant({{1, 0, 0}, {0, 1, 0}})
  %u = f32[3] constant({1, 1, 1})
  %d = f32[2] dot(%v, %u), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %r = (f32[3,2], f32[2]) tuple(%t, %d)
}
)");
  REQUIRE(module);
  ConstantFolding pass(1, {});
  CHECK(runPass(pass, *module));
  const hlo::Instruction *root = module->entry()->root();
  REQUIRE(root->operand(0)->opcode() == Opcode::Constant);
  CHECK(root->operand(0)->attributes().literal->toString() == "f32[3,2] {{1, 4}, {2, 5}, {3, 6}}");
  CHECK(root->operand(1)->opcode() == Opcode::Dot);
}

TEST_CASE("constant-folding: dots fold with the target's contraction arithmetic") {
  // x = 1 + 2^-12 and r = x * x rounded to f32 (1 + 2^-11): the dot
  // 1 * -r + x * x is 0 with a rounded product, and x * x - r = 2^-24
  // exactly with a fused multiply-add.
  const char *text = R"(
HloModule m
ENTRY %main () -> f32[] {
  %a = f32[2] constant({1, 1.000244140625})
  %b = f32[2] constant({-1.00048828125, 1.000244140625})
  ROOT %d = f32[] dot(%a, %b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}
)";
  auto folded = [&](eval::ContractionArithmetic arithmetic) {
    auto module = load(text);
    REQUIRE(module);
    ConstantFolding pass(1 << 16, arithmetic);
    CHECK(runPass(pass, *module));
    const hlo::Instruction *root = module->entry()->root();
    REQUIRE(root->opcode() == Opcode::Constant);
    return root->attributes().literal->get<float>(0);
  };
  CHECK(folded({}) == 0.0f);
  eval::ContractionArithmetic fused;
  fused.fusedF32 = true;
  CHECK(folded(fused) == std::ldexp(1.0f, -24));
}

} // namespace
} // namespace mote::passes::test
