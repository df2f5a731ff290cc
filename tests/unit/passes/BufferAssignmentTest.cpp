//===- BufferAssignmentTest.cpp - Schedules and memory plans --------------===//

#include "AssignmentChecker.h"
#include "PassTestUtil.h"

#include "passes/BufferAssignment.h"
#include "passes/BufferPacking.h"
#include "passes/Schedule.h"

namespace mote::passes::test {
namespace {

using Kind = BufferSlice::Kind;

struct Planned {
  std::unique_ptr<hlo::Module> module;
  Schedule schedule;
  BufferAssignment assignment;
  const hlo::Instruction *operator[](llvm::StringRef name) const {
    for (const auto &computation : module->computations())
      if (const hlo::Instruction *instruction = computation->findInstruction(name))
        return instruction;
    FAIL_CHECK("no instruction " << name.str());
    return nullptr;
  }
};

Planned plan(const std::string &text, uint32_t alignment = 16) {
  Planned planned;
  planned.module = load(text);
  REQUIRE(planned.module);
  planned.schedule = scheduleModule(*planned.module);
  BufferAssignmentOptions options;
  options.alignment = alignment;
  auto assignment = assignBuffers(*planned.module, planned.schedule, options);
  REQUIRE_MESSAGE(bool(assignment), hlo::errorToString(assignment.takeError(), nullptr));
  planned.assignment = std::move(*assignment);
  std::string problems = checkAssignment(*planned.module, planned.schedule, planned.assignment);
  CHECK_MESSAGE(problems.empty(), problems << "\n" << describeBufferAssignment(planned.assignment));
  return planned;
}

TEST_CASE("schedule: operands before users, heaviest operand subtree first, parameters first") {
  auto module = load(R"(
HloModule m
ENTRY %main (a: f32[4], b: f32[1000]) -> f32[4] {
  %a = f32[4] parameter(0)
  %b = f32[1000] parameter(1)
  %small = f32[4] negate(%a)
  %big1 = f32[1000] exponential(%b)
  %big2 = f32[1000] negate(%big1)
  %zero = f32[] constant(0)
  %red = f32[] reduce(%big2, %zero), dimensions={0}, to_apply=%sum
  %bred = f32[4] broadcast(%red), dimensions={}
  %unused = f32[4] sine(%a)
  ROOT %r = f32[4] add(%small, %bred)
}
%sum (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}
)");
  REQUIRE(module);
  Schedule schedule = scheduleModule(*module);
  auto order = schedule.order(module->entry());
  std::vector<std::string> names;
  for (const hlo::Instruction *instruction : order)
    names.push_back(instruction->name().str());
  // The big subtree runs before %small, whose result would otherwise wait
  // through it; %unused is not scheduled; the scalar computation has no order.
  std::vector<std::string> expected = {"a",   "b",    "big1",  "big2", "zero",
                                       "red", "bred", "small", "r"};
  CHECK(names == expected);
  CHECK(schedule.order(module->findComputation("sum")).empty());
}

TEST_CASE("schedule: random draws keep their definition order, dead ones stay out") {
  // By weight alone %late (under the heavy subtree) would draw before
  // %early; the evaluator draws in definition order, so the schedule must.
  auto module = load(R"(
HloModule m
ENTRY %main (a: f32[1000]) -> f32[4] {
  %a = f32[1000] parameter(0)
  %lo = f32[] constant(0)
  %hi = f32[] constant(1)
  %early = f32[4] rng(%lo, %hi), distribution=rng_uniform
  %dead = f32[4] rng(%lo, %hi), distribution=rng_uniform
  %late = f32[1000] rng(%lo, %hi), distribution=rng_uniform
  %big = f32[1000] exponential(%late)
  %zero = f32[] constant(0)
  %red = f32[] reduce(%big, %zero), dimensions={0}, to_apply=%sum
  %bred = f32[4] broadcast(%red), dimensions={}
  ROOT %r = f32[4] add(%early, %bred)
}
%sum (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}
)");
  REQUIRE(module);
  Schedule schedule = scheduleModule(*module);
  std::vector<std::string> draws;
  for (const hlo::Instruction *instruction : schedule.order(module->entry()))
    if (instruction->opcode() == hlo::Opcode::Rng)
      draws.push_back(instruction->name().str());
  CHECK(draws == std::vector<std::string>{"early", "late"});
}

TEST_CASE("buffer-assignment: a chain of equal transposes needs two buffers") {
  Planned p = plan(R"(
HloModule m
ENTRY %main (a: f32[16,16]) -> f32[16,16] {
  %a = f32[16,16] parameter(0)
  %t1 = f32[16,16] transpose(%a), dimensions={1,0}
  %t2 = f32[16,16] transpose(%t1), dimensions={1,0}
  %t3 = f32[16,16] transpose(%t2), dimensions={1,0}
  ROOT %t4 = f32[16,16] transpose(%t3), dimensions={1,0}
}
)");
  CHECK(p.assignment.arenaSize() == 2 * 1024);
  CHECK(p.assignment.lowerBound() == 2 * 1024);
  CHECK(p.assignment.slice(p["a"]).kind == Kind::Parameter);
  CHECK(p.assignment.slice(p["t4"]).kind == Kind::Result);
  CHECK(p.assignment.slice(p["t1"]).offset == p.assignment.slice(p["t3"]).offset);
  CHECK(p.assignment.slice(p["t1"]).offset != p.assignment.slice(p["t2"]).offset);
}

TEST_CASE("buffer-assignment: elementwise chains run in place, never over a parameter") {
  Planned p = plan(R"(
HloModule m
ENTRY %main (a: f32[256]) -> f32[256] {
  %a = f32[256] parameter(0)
  %e1 = f32[256] exponential(%a)
  %e2 = f32[256] negate(%e1)
  %e3 = s32[256] bitcast-convert(%e2)
  %e4 = s32[256] not(%e3)
  %e5 = f32[256] convert(%e4)
  ROOT %e6 = f32[256] abs(%e5)
}
)");
  // e1, e2 share (in place); bitcast-convert is not elementwise: e3 is new;
  // e4 and e5 reuse e3's memory; e6 is the result.
  const BufferAssignment &a = p.assignment;
  CHECK(a.slice(p["e1"]).kind == Kind::Arena);
  CHECK(a.slice(p["e1"]) == a.slice(p["e2"]));
  CHECK(a.slice(p["e3"]) == a.slice(p["e4"]));
  CHECK(a.slice(p["e4"]) == a.slice(p["e5"]));
  CHECK(a.slice(p["e6"]).kind == Kind::Result);
  CHECK(a.arenaSize() == 2 * 1024);
  CHECK(a.lowerBound() == 2 * 1024);
}

TEST_CASE("buffer-assignment: a diamond keeps both branches apart") {
  Planned p = plan(R"(
HloModule m
ENTRY %main (a: f32[100]) -> f32[100] {
  %a = f32[100] parameter(0)
  %x = f32[100] exponential(%a)
  %s = f32[100] sine(%x)
  %c = f32[100] cosine(%x)
  ROOT %d = f32[100] add(%s, %c)
}
)");
  const BufferAssignment &a = p.assignment;
  // x dies at the second of its users, which takes it over; the first not.
  CHECK(a.slice(p["s"]).offset != a.slice(p["c"]).offset);
  bool sTakesX = a.slice(p["s"]) == a.slice(p["x"]);
  bool cTakesX = a.slice(p["c"]) == a.slice(p["x"]);
  CHECK(sTakesX != cTakesX);
  CHECK(a.lowerBound() == 800);
  CHECK(a.arenaSize() == 800);
}

TEST_CASE("buffer-assignment: while state lives over the loop, the init is taken over") {
  Planned p = plan(R"(
HloModule m
%cond (s: (s32[], f32[64])) -> pred[] {
  %s = (s32[], f32[64]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(5)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], f32[64])) -> (s32[], f32[64]) {
  %s = (s32[], f32[64]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %x = f32[64] get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %i2 = s32[] add(%i, %one)
  %sq = f32[64] multiply(%x, %x)
  %h = f32[64] sine(%sq)
  ROOT %t = (s32[], f32[64]) tuple(%i2, %h)
}
ENTRY %main (a: f32[64]) -> f32[64] {
  %a = f32[64] parameter(0)
  %zero = s32[] constant(0)
  %e = f32[64] exponential(%a)
  %init = (s32[], f32[64]) tuple(%zero, %e)
  %w = (s32[], f32[64]) while(%init), condition=%cond, body=%body
  %r = f32[64] get-tuple-element(%w), index=1
  ROOT %out = f32[64] negate(%r)
}
)");
  const BufferAssignment &a = p.assignment;
  CHECK(a.slice(p["e"]) == a.slice(p["w"], 1));
  CHECK(a.slice(p["zero"]).kind == Kind::Constant);
  CHECK(a.slice(p["w"], 0).kind == Kind::Arena); // not the constant: the loop writes it
  const hlo::Computation *body = p.module->findComputation("body");
  CHECK(a.slice(body->parameter(0), 1) == a.slice(p["w"], 1));
  CHECK(a.slice(p["x"]) == a.slice(p["w"], 1));
  // The body reads x after writing sq, so sq may not overwrite the loop state.
  CHECK(a.slice(p["sq"]).offset != a.slice(p["w"], 1).offset);
  CHECK(a.slice(p["sq"]) == a.slice(p["h"]));
  CHECK(a.slice(p["r"]) == a.slice(p["w"], 1));
  CHECK(a.slice(p["out"]).kind == Kind::Result);
}

TEST_CASE("buffer-assignment: parameters, constants, results, empty arrays and aliases") {
  Planned p = plan(R"(
HloModule m
ENTRY %main (a: f32[2,3], b: (s32[4], f32[0])) -> (f32[2,3], f32[6], f32[6], s32[4], f32[0], f32[1,3]) {
  %a = f32[2,3] parameter(0)
  %b = (s32[4], f32[0]) parameter(1)
  %b0 = s32[4] get-tuple-element(%b), index=0
  %b1 = f32[0] get-tuple-element(%b), index=1
  %c = f32[3] constant({1, 2, 3})
  %rc = f32[1,3] reshape(%c)
  %bc = f32[2,3] broadcast(%c), dimensions={1}
  %m = f32[2,3] multiply(%a, %bc)
  %flat = f32[6] reshape(%m)
  %flat2 = f32[6] reshape(%m)
  ROOT %t = (f32[2,3], f32[6], f32[6], s32[4], f32[0], f32[1,3]) tuple(%a, %flat, %flat2, %b0, %b1, %rc)
}
)");
  const BufferAssignment &a = p.assignment;
  CHECK(a.slice(p["a"]).kind == Kind::Parameter);
  CHECK(a.slice(p["a"]).index == 0);
  CHECK(a.slice(p["b0"]).kind == Kind::Parameter);
  CHECK(a.slice(p["b0"]).index == 1);
  CHECK(a.slice(p["b"], 0) == a.slice(p["b0"]));
  CHECK(a.slice(p["b1"]).kind == Kind::Empty);
  CHECK(a.slice(p["c"]).kind == Kind::Constant);
  CHECK(a.slice(p["rc"]).kind == Kind::Constant);
  CHECK(a.slice(p["rc"]).constant == p["c"]);
  // m is used twice by the root (through two reshapes): it stays in the arena.
  CHECK(a.slice(p["m"]).kind == Kind::Arena);
  CHECK(a.slice(p["flat"]) == a.slice(p["m"]));
  CHECK(a.slice(p["t"], 1) == a.slice(p["m"]));
}

TEST_CASE("buffer-assignment: a single result leaf lives in the caller's buffer") {
  Planned p = plan(R"(
HloModule m
ENTRY %main (a: f32[8]) -> (f32[8], f32[8]) {
  %a = f32[8] parameter(0)
  %x = f32[8] exponential(%a)
  %y = f32[8] negate(%x)
  ROOT %t = (f32[8], f32[8]) tuple(%x, %y)
}
)");
  const BufferAssignment &a = p.assignment;
  CHECK(a.slice(p["x"]).kind == Kind::Result);
  CHECK(a.slice(p["x"]).index == 0);
  CHECK(a.slice(p["y"]).kind == Kind::Result);
  CHECK(a.slice(p["y"]).index == 1);
  CHECK(a.arenaSize() == 0);
}

TEST_CASE("buffer-assignment: conditional branches read operands and write the result") {
  Planned p = plan(R"(
HloModule m
%yes (x: f32[32]) -> f32[32] {
  %x = f32[32] parameter(0)
  %e = f32[32] exponential(%x)
  ROOT %n = f32[32] negate(%e)
}
%no (x: f32[32]) -> f32[32] {
  %x = f32[32] parameter(0)
  ROOT %s = f32[32] sine(%x)
}
ENTRY %main (p: pred[], a: f32[32]) -> f32[32] {
  %p = pred[] parameter(0)
  %a = f32[32] parameter(1)
  %b = f32[32] cosine(%a)
  %c = f32[32] conditional(%p, %b, %b), true_computation=%yes, false_computation=%no
  ROOT %r = f32[32] add(%c, %b)
}
)");
  const BufferAssignment &a = p.assignment;
  const hlo::Computation *yes = p.module->findComputation("yes");
  CHECK(a.slice(yes->parameter(0)) == a.slice(p["b"]));
  CHECK(a.slice(p["e"]).offset != a.slice(p["b"]).offset);
  CHECK(a.slice(p["c"]).offset != a.slice(p["b"]).offset);
}

TEST_CASE("buffer-packing: greedy packing and the lower bound on hand-made intervals") {
  // Three buffers live at once at position 2: 100 + 50 + 30 bytes.
  std::vector<PackingItem> items = {{100, 0, 2}, {50, 1, 3}, {30, 2, 4}, {150, 3, 5}};
  CHECK(liveBytesLowerBound(items) == 230); // positions 3: 50 + 30 + 150
  Packing packing = packBuffers(items, 1);
  CHECK(packing.size == 230);
  for (size_t i = 0; i < items.size(); ++i)
    for (size_t j = i + 1; j < items.size(); ++j) {
      bool live = items[i].start <= items[j].end && items[j].start <= items[i].end;
      bool shared = packing.offsets[i] < packing.offsets[j] + items[j].size &&
                    packing.offsets[j] < packing.offsets[i] + items[i].size;
      CHECK_FALSE((live && shared));
    }
  // Buffers of 4 x 16 bytes or more are 16-byte aligned; smaller ones to
  // the largest power of two dividing their size.
  Packing aligned = packBuffers(items, 16);
  CHECK(aligned.offsets[0] % 16 == 0);
  CHECK(aligned.offsets[1] % 2 == 0);
  CHECK(aligned.offsets[2] % 2 == 0);
  CHECK(aligned.offsets[3] % 16 == 0);
}

TEST_CASE("buffer-packing: a chain of outputs and padded copies alternates between the ends") {
  // A network of padded convolutions: output, padded copy, output, output,
  // padded copy... each overlapping the next. Big-first puts every padded
  // copy at the bottom and needs 40% more than the bound; alternating the
  // buffers between the two ends of the arena meets it.
  const uint64_t out = 32000, padded = 48384;
  std::vector<PackingItem> chain = {{out, 3, 5},     {padded, 5, 7},  {out, 7, 11},
                                    {out, 11, 13},   {padded, 13, 15}, {out, 15, 19},
                                    {out, 19, 21},   {padded, 21, 23}, {out, 23, 27},
                                    {out, 27, 29},   {padded, 29, 31}, {out, 31, 35}};
  CHECK(liveBytesLowerBound(chain) == out + padded);
  Packing packing = packBuffers(chain, 16);
  CHECK(packing.size == out + padded);
  for (size_t i = 0; i < chain.size(); ++i)
    for (size_t j = i + 1; j < chain.size(); ++j) {
      bool live = chain[i].start <= chain[j].end && chain[j].start <= chain[i].end;
      bool shared = packing.offsets[i] < packing.offsets[j] + chain[j].size &&
                    packing.offsets[j] < packing.offsets[i] + chain[i].size;
      CHECK_FALSE((live && shared));
    }
}

TEST_CASE("buffer-packing: small buffers pack tightly, big ones stay vector aligned") {
  CHECK(itemAlignment(4, 16) == 4);
  CHECK(itemAlignment(12, 16) == 4);
  CHECK(itemAlignment(1, 16) == 1);
  CHECK(itemAlignment(36, 16) == 4);
  CHECK(itemAlignment(48, 16) == 16);
  CHECK(itemAlignment(64, 16) == 16);
  CHECK(itemAlignment(200, 64) == 8);
  CHECK(itemAlignment(4096, 64) == 64);
  // Three scalars (s32, s32, pred) live at once: 9 bytes, not 3 x 16.
  std::vector<PackingItem> scalars = {{4, 0, 2}, {4, 0, 2}, {1, 1, 2}};
  Packing packing = packBuffers(scalars, 16);
  CHECK(liveBytesLowerBound(scalars) == 9);
  CHECK(packing.size == 9);
}

} // namespace
} // namespace mote::passes::test

namespace mote::passes::test {
namespace {

TEST_CASE("buffer-assignment: a call left in the module is a located error, not a crash") {
  auto module = load(R"(
HloModule m
%f (x: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  ROOT %n = f32[4] negate(%x)
}
ENTRY %main (a: f32[4]) -> f32[4] {
  %a = f32[4] parameter(0)
  ROOT %c = f32[4] call(%a), to_apply=%f
}
)");
  REQUIRE(module);
  Schedule schedule = scheduleModule(*module);
  auto assignment = assignBuffers(*module, schedule, {});
  REQUIRE_FALSE(bool(assignment));
  std::string message = hlo::errorToString(assignment.takeError(), module->sourceManager().get());
  INFO(message);
  CHECK(message.find(":9:") != std::string::npos);
  CHECK(message.find("inlined") != std::string::npos);
}

} // namespace
} // namespace mote::passes::test
