//===- FusionTest.cpp - Which producers fuse into which consumers ---------===//

#include "AssignmentChecker.h"
#include "PassTestUtil.h"

#include "passes/BufferAssignment.h"
#include "passes/Passes.h"
#include "passes/Schedule.h"

#include <algorithm>

namespace mote::passes::test {
namespace {

using hlo::Opcode;

/// The module after InstructionFusion, checked to verify and to compute what
/// it computed before on seeded random inputs.
std::unique_ptr<hlo::Module> fuse(const std::string &text) {
  auto module = load(text);
  REQUIRE(module);
  auto reference = load(text);
  InstructionFusion fusion;
  runPass(fusion, *module);
  std::vector<hlo::Literal> args = randomArguments(*reference, 7);
  hlo::Literal before = evaluate(*reference, args), after = evaluate(*module, args);
  CHECK_MESSAGE(after.bitwiseEqual(before), hlo::printModule(*module));
  return module;
}

const hlo::Instruction *find(const hlo::Module &module, llvm::StringRef name) {
  const hlo::Instruction *found = module.entry()->findInstruction(name);
  REQUIRE_MESSAGE(found, "no instruction " << name.str() << " in\n" << hlo::printModule(module));
  return found;
}

/// Opcodes inside a fusion instruction's computation, parameters aside.
std::vector<std::string> fusedOpcodes(const hlo::Instruction &fusion) {
  REQUIRE(fusion.opcode() == Opcode::Fusion);
  std::vector<std::string> names;
  for (const auto &instruction : fusion.calledComputation(0)->instructions())
    if (instruction->opcode() != Opcode::Parameter)
      names.push_back(hlo::opcodeName(instruction->opcode()).str());
  std::sort(names.begin(), names.end());
  return names;
}

size_t countInEntry(const hlo::Module &module, Opcode opcode) {
  return std::count_if(module.entry()->instructions().begin(),
                       module.entry()->instructions().end(),
                       [&](const auto &instruction) { return instruction->opcode() == opcode; });
}

TEST_CASE("fusion: an elementwise chain with a broadcast becomes one loop") {
  auto module = fuse(R"(
HloModule m
ENTRY %main (x: f32[4,8], bias: f32[8]) -> f32[4,8] {
  %x = f32[4,8] parameter(0)
  %bias = f32[8] parameter(1)
  %b = f32[4,8] broadcast(%bias), dimensions={1}
  %s = f32[4,8] add(%x, %b)
  %zero = f32[] constant(0)
  %z = f32[4,8] broadcast(%zero), dimensions={}
  ROOT %relu = f32[4,8] maximum(%s, %z)
}
)");
  const hlo::Instruction *root = module->entry()->root();
  CHECK(root->name() == "relu");
  CHECK(root->attributes().fusionKind == "kLoop");
  CHECK(fusedOpcodes(*root) ==
        std::vector<std::string>{"add", "broadcast", "broadcast", "constant", "maximum"});
  CHECK(root->operandCount() == 2); // x and bias, nothing else read from memory
  CHECK(countInEntry(*module, Opcode::Fusion) == 1);
}

TEST_CASE("fusion: a reduction reads its input through the fused chain") {
  auto module = fuse(R"(
HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main (x: f32[16,32]) -> f32[16] {
  %x = f32[16,32] parameter(0)
  %sq = f32[16,32] multiply(%x, %x)
  %e = f32[16,32] exponential(%sq)
  %zero = f32[] constant(0)
  ROOT %r = f32[16] reduce(%e, %zero), dimensions={1}, to_apply=%add
}
)");
  const hlo::Instruction *root = module->entry()->root();
  CHECK(root->attributes().fusionKind == "kInput");
  CHECK(fusedOpcodes(*root) ==
        std::vector<std::string>{"constant", "exponential", "multiply", "reduce"});
}

TEST_CASE("fusion: an expensive op read many times per element is stored once") {
  // Behind the broadcast, each op on v would run 100 times per element.
  auto withOp = [](const std::string &op) {
    return fuse(R"(
HloModule m
ENTRY %main (x: f32[100,8], v: f32[8]) -> f32[100,8] {
  %x = f32[100,8] parameter(0)
  %v = f32[8] parameter(1)
  %e = f32[8] )" + op + R"((%v)
  %b = f32[100,8] broadcast(%e), dimensions={1}
  ROOT %s = f32[100,8] add(%x, %b)
}
)");
  };
  auto expensive = withOp("exponential");
  CHECK(fusedOpcodes(*expensive->entry()->root()) == std::vector<std::string>{"add", "broadcast"});
  CHECK(find(*expensive, "e")->opcode() == Opcode::Exp);
  // A cheap op in the same place fuses.
  auto cheap = withOp("negate");
  CHECK(fusedOpcodes(*cheap->entry()->root()) ==
        std::vector<std::string>{"add", "broadcast", "negate"});
}

TEST_CASE("fusion: a value read by two loops is stored, unless it is nearly free") {
  auto module = fuse(R"(
HloModule m
ENTRY %main (x: f32[64], y: f32[64], s: f32[]) -> (f32[64], f32[64]) {
  %x = f32[64] parameter(0)
  %y = f32[64] parameter(1)
  %s = f32[] parameter(2)
  %bs = f32[64] broadcast(%s), dimensions={}
  %t = f32[64] tanh(%x)
  %a = f32[64] add(%t, %bs)
  %m = f32[64] multiply(%t, %y)
  %m2 = f32[64] multiply(%m, %bs)
  ROOT %out = (f32[64], f32[64]) tuple(%a, %m2)
}
)");
  // tanh is stored once for both readers; the broadcast is duplicated into
  // both fusions and no longer exists on its own.
  CHECK(find(*module, "t")->opcode() == Opcode::Tanh);
  CHECK(fusedOpcodes(*find(*module, "a")) == std::vector<std::string>{"add", "broadcast"});
  CHECK(fusedOpcodes(*find(*module, "m2")) ==
        std::vector<std::string>{"broadcast", "multiply", "multiply"});
  CHECK(countInEntry(*module, Opcode::Broadcast) == 0);
}

TEST_CASE("fusion: dot and convolution read stored operands") {
  auto module = fuse(R"(
HloModule m
ENTRY %main (a: f32[8,16], b: f32[8,16], w: f32[16,4]) -> f32[8,4] {
  %a = f32[8,16] parameter(0)
  %b = f32[8,16] parameter(1)
  %w = f32[16,4] parameter(2)
  %s = f32[8,16] add(%a, %b)
  ROOT %d = f32[8,4] dot(%s, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
  CHECK(module->entry()->root()->opcode() == Opcode::Dot);
  // A group of one is left as the plain instruction.
  CHECK(find(*module, "s")->opcode() == Opcode::Add);
  CHECK(countInEntry(*module, Opcode::Fusion) == 0);
}

TEST_CASE("fusion: bias and activation fuse into the dot that feeds them") {
  auto module = fuse(R"(
HloModule m
ENTRY %main (a: f32[8,16], w: f32[16,4], bias: f32[4], r: f32[8,4]) -> f32[8,4] {
  %a = f32[8,16] parameter(0)
  %w = f32[16,4] parameter(1)
  %bias = f32[4] parameter(2)
  %r = f32[8,4] parameter(3)
  %t = f32[16,8] transpose(%a), dimensions={1,0}
  %d = f32[8,4] dot(%t, %w), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  %b = f32[8,4] broadcast(%bias), dimensions={1}
  %s = f32[8,4] add(%d, %b)
  %l = f32[8,4] logistic(%s)
  %g = f32[8,4] multiply(%s, %l)
  ROOT %o = f32[8,4] add(%g, %r)
}
)");
  const hlo::Instruction *root = module->entry()->root();
  REQUIRE(root->opcode() == Opcode::Fusion);
  CHECK(root->attributes().fusionKind == "kOutput");
  CHECK(fusedOpcodes(*root) ==
        std::vector<std::string>{"add", "add", "broadcast", "dot", "logistic", "multiply"});
  // The kernel reads its operands from buffers: the transpose is stored.
  CHECK(find(*module, "t")->opcode() == Opcode::Transpose);
  // Partial sums reach the result before the rewrite reads r.
  for (size_t i = 0; i < root->operandCount(); ++i)
    CHECK_FALSE(fusionReadsOperandInPlace(*root, i));
}

TEST_CASE("fusion: an output fusion may end in a pad that only adds edges") {
  const std::string text = R"(
HloModule m
ENTRY %main (a: f32[4,6], w: f32[6,5], v: f32[]) -> (f32[6,8], f32[3,5]) {
  %a = f32[4,6] parameter(0)
  %w = f32[6,5] parameter(1)
  %v = f32[] parameter(2)
  %d = f32[4,5] dot(%a, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %e = f32[4,5] exponential(%d)
  %p = f32[6,8] pad(%e, %v), padding=1_1x0_3
  %d2 = f32[4,5] dot(%a, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="other"}
  %n = f32[4,5] negate(%d2)
  %cut = f32[3,5] pad(%n, %v), padding=0_-1x0_0
  ROOT %r = (f32[6,8], f32[3,5]) tuple(%p, %cut)
}
)";
  auto module = fuse(text);
  const hlo::Instruction *padded = find(*module, "p");
  REQUIRE(padded->opcode() == Opcode::Fusion);
  CHECK(padded->attributes().fusionKind == "kOutput");
  CHECK(fusedOpcodes(*padded) == std::vector<std::string>{"dot", "exponential", "pad"});
  // A pad that cuts elements off is not a place the kernel can write into.
  CHECK(find(*module, "cut")->attributes().fusionKind == "kLoop");
}

TEST_CASE("fusion: a dot read at other indices is stored") {
  auto module = fuse(R"(
HloModule m
ENTRY %main (a: f32[4,4], w: f32[4,4]) -> f32[4,4] {
  %a = f32[4,4] parameter(0)
  %w = f32[4,4] parameter(1)
  %d = f32[4,4] dot(%a, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %t = f32[4,4] transpose(%d), dimensions={1,0}
  ROOT %s = f32[4,4] add(%d, %t)
}
)");
  CHECK(find(*module, "d")->opcode() == Opcode::Dot);
  CHECK(module->entry()->root()->attributes().fusionKind == "kLoop");
}

TEST_CASE("fusion: integer dots output-fuse like float ones; two dots in one group stay apart") {
  auto module = fuse(R"(
HloModule m
ENTRY %main (a: s32[4,4], b: f32[4,4], c: f32[4,4]) -> (s32[4,4], f32[4,4]) {
  %a = s32[4,4] parameter(0)
  %b = f32[4,4] parameter(1)
  %c = f32[4,4] parameter(2)
  %di = s32[4,4] dot(%a, %a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %ni = s32[4,4] negate(%di)
  %d1 = f32[4,4] dot(%b, %c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %d2 = f32[4,4] dot(%c, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %s = f32[4,4] add(%d1, %d2)
  ROOT %r = (s32[4,4], f32[4,4]) tuple(%ni, %s)
}
)");
  CHECK(find(*module, "ni")->opcode() == Opcode::Fusion);
  CHECK(find(*module, "ni")->attributes().fusionKind == "kOutput");
  CHECK(countInEntry(*module, Opcode::Dot) == 1); // one of d1 and d2
  CHECK(countInEntry(*module, Opcode::Fusion) == 2);
}

TEST_CASE("fusion: a rescale to s8 fuses into its integer dot, not into the reduction after it") {
  auto module = fuse(R"(
HloModule m
%add (x: s32[], y: s32[]) -> s32[] {
  %x = s32[] parameter(0)
  %y = s32[] parameter(1)
  ROOT %s = s32[] add(%x, %y)
}
ENTRY %main (a: s8[4,8], w: s8[8,16]) -> s32[4] {
  %a = s8[4,8] parameter(0)
  %w = s8[8,16] parameter(1)
  %d = s32[4,16] dot(%a, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %f = f32[4,16] convert(%d)
  %q = s8[4,16] convert(%f)
  %wide = s32[4,16] convert(%q)
  %zero = s32[] constant(0)
  ROOT %r = s32[4] reduce(%wide, %zero), dimensions={1}, to_apply=%add
}
)");
  // The s8 result is stored, not the dot's s32 one.
  CHECK(countInEntry(*module, Opcode::Dot) == 0);
  CHECK(find(*module, "q")->opcode() == Opcode::Fusion);
  CHECK(find(*module, "q")->attributes().fusionKind == "kOutput");
  CHECK(find(*module, "r")->attributes().fusionKind == "kInput");
}

TEST_CASE("fusion: groups stay small") {
  std::string text = "HloModule m\nENTRY %main (x: f32[8]) -> f32[8] {\n  %x = f32[8] parameter(0)\n";
  std::string previous = "x";
  for (int i = 0; i < 150; ++i) {
    std::string name = "n" + std::to_string(i);
    text += "  %" + name + " = f32[8] negate(%" + previous + ")\n";
    previous = name;
  }
  text += "  ROOT %r = f32[8] negate(%" + previous + ")\n}\n";
  auto module = fuse(text);
  size_t fusions = 0;
  for (const auto &instruction : module->entry()->instructions())
    if (instruction->opcode() == Opcode::Fusion) {
      ++fusions;
      CHECK(fusedOpcodes(*instruction).size() <= 64);
    }
  CHECK(fusions == 3); // 151 negations in groups of at most 64
}

TEST_CASE("fusion: which operands a fusion may overwrite") {
  auto module = fuse(R"(
HloModule m
ENTRY %main (x: f32[4,4], y: f32[4,4], v: f32[4]) -> f32[4,4] {
  %x = f32[4,4] parameter(0)
  %y = f32[4,4] parameter(1)
  %v = f32[4] parameter(2)
  %t = f32[4,4] transpose(%y), dimensions={1,0}
  %b = f32[4,4] broadcast(%v), dimensions={0}
  %s = f32[4,4] add(%x, %t)
  ROOT %r = f32[4,4] multiply(%s, %b)
}
)");
  const hlo::Instruction *root = module->entry()->root();
  REQUIRE(root->operandCount() == 3);
  // x is read at the index stored; y through a transpose and v through a
  // broadcast are read elsewhere, so their memory must stay intact.
  CHECK(root->operand(0)->name() == "x");
  CHECK(fusionReadsOperandInPlace(*root, 0));
  CHECK_FALSE(fusionReadsOperandInPlace(*root, 1));
  CHECK_FALSE(fusionReadsOperandInPlace(*root, 2));
}

/// Buffer assignment of a module as written (fusions included, no passes).
BufferAssignment assign(const hlo::Module &module) {
  Schedule schedule = scheduleModule(module);
  auto assignment = assignBuffers(module, schedule, BufferAssignmentOptions());
  REQUIRE_MESSAGE(bool(assignment), hlo::errorToString(assignment.takeError(), nullptr));
  std::string problems = checkAssignment(module, schedule, *assignment);
  CHECK_MESSAGE(problems.empty(), problems);
  return std::move(*assignment);
}

TEST_CASE("fusion: a fusion takes over the buffer of an operand that dies at it") {
  const std::string text = R"(
HloModule m
%fused (p0: f32[256], p1: f32[256]) -> f32[256] {
  %p0 = f32[256] parameter(0)
  %p1 = f32[256] parameter(1)
  %n = f32[256] READ(%p0)
  ROOT %m = f32[256] multiply(%n, %p1)
}
ENTRY %main (x: f32[256], y: f32[256]) -> f32[256] {
  %x = f32[256] parameter(0)
  %y = f32[256] parameter(1)
  %e = f32[256] exponential(%x)
  %f = f32[256] fusion(%e, %y), kind=kLoop, calls=%fused
  ROOT %g = f32[256] sine(%f)
}
)";
  auto replace = [&](const std::string &read) {
    std::string result = text;
    result.replace(result.find("READ(%p0)"), 9, read);
    return result;
  };
  auto inPlace = load(replace("negate(%p0)"));
  REQUIRE(inPlace);
  BufferAssignment assignment = assign(*inPlace);
  const hlo::Instruction *e = find(*inPlace, "e"), *f = find(*inPlace, "f");
  CHECK(assignment.slice(f) == assignment.slice(e));
  CHECK(assignment.arenaSize() == 1024);

  // Read in reverse, element i needs e[255 - i] after f[i] is stored.
  auto reversed = load(replace("reverse(%p0), dimensions={0}"));
  REQUIRE(reversed);
  BufferAssignment separate = assign(*reversed);
  CHECK(separate.slice(find(*reversed, "f")) != separate.slice(find(*reversed, "e")));
  CHECK(separate.arenaSize() == 2048);
}

} // namespace
} // namespace mote::passes::test
