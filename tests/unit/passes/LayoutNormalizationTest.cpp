//===- LayoutNormalizationTest.cpp - Row-major everywhere, caller bytes kept ===//

#include "PassTestUtil.h"

#include "passes/Passes.h"

namespace mote::passes::test {
namespace {

using hlo::Opcode;

TEST_CASE("layout-normalization: column-major parameter and result keep the caller's bytes") {
  auto module = load(R"(
HloModule m, entry_computation_layout={(f32[2,3]{0,1}, f32[3]{0})->f32[2,3]{0,1}}
ENTRY %main (a: f32[2,3], b: f32[3]) -> f32[2,3] {
  %a = f32[2,3]{0,1} parameter(0)
  %b = f32[3]{0} parameter(1)
  %bb = f32[2,3]{0,1} broadcast(%b), dimensions={1}
  %n = f32[2,3]{1,0} negate(%a)
  ROOT %s = f32[2,3]{0,1} subtract(%n, %bb)
}
)");
  REQUIRE(module);
  const hlo::ProgramShape callerView = *module->entryComputationLayout();
  auto args = randomArguments(*module);
  hlo::Literal before = evaluate(*module, args);

  LayoutNormalization pass;
  CHECK(runPassAllowingPhysicalEntry(pass, *module));
  const hlo::Computation &entry = *module->entry();
  for (const auto &instruction : entry.instructions()) {
    llvm::SmallVector<const hlo::Shape *, 4> leaves;
    instruction->shape().collectLeaves(leaves);
    for (const hlo::Shape *leaf : leaves)
      CHECK_MESSAGE(leaf->hasDefaultLayout(), instruction->name().str());
  }
  // The caller's view is unchanged; the entry takes and returns physical order.
  CHECK(module->entryComputationLayout()->toString() == callerView.toString());
  CHECK(entry.parameter(0)->shape().dims() == llvm::ArrayRef<int64_t>{3, 2});
  CHECK(entry.parameter(0)->name() == "a");
  CHECK(entry.parameter(1)->shape().dims() == llvm::ArrayRef<int64_t>{3});
  CHECK(entry.root()->shape().dims() == llvm::ArrayRef<int64_t>{3, 2});
  CHECK(entry.root()->opcode() == Opcode::Transpose);

  std::vector<hlo::Literal> physicalArgs;
  physicalArgs.push_back(physicalOf(args[0], callerView.parameters[0]));
  physicalArgs.push_back(args[1]);
  hlo::Literal after = evaluate(*module, physicalArgs);
  CHECK(after.bitwiseEqual(physicalOf(before, callerView.result)));
}

TEST_CASE("layout-normalization: a bitcast that changes the layout keeps its meaning") {
  // Reading a {0,1} array as its physical f32[3,2] is a transpose.
  auto module = load(R"(
HloModule m
ENTRY %main (a: f32[2,3]) -> f32[3,2] {
  %a = f32[2,3]{1,0} parameter(0)
  %c = f32[2,3]{0,1} copy(%a)
  ROOT %b = f32[3,2]{1,0} bitcast(%c)
}
)");
  REQUIRE(module);
  auto args = randomArguments(*module);
  hlo::Literal before = evaluate(*module, args);
  LayoutNormalization pass;
  CHECK(runPass(pass, *module));
  AlgebraicSimplifier simplifier;
  runPass(simplifier, *module);
  DeadCodeElimination dce;
  runPass(dce, *module);
  CHECK(evaluate(*module, args).bitwiseEqual(before));
  // copy + bitcast reduce to one transpose of the parameter.
  const hlo::Instruction *root = module->entry()->root();
  CHECK(root->opcode() == Opcode::Transpose);
  CHECK(root->operand(0) == module->entry()->parameter(0));
}

TEST_CASE("layout-normalization: tuple parameters and results are relaid leaf by leaf") {
  auto module = load(R"(
HloModule m, entry_computation_layout={((f32[2,3]{0,1}, s32[4]{0}))->(f32[2,3]{0,1}, s32[4]{0})}
ENTRY %main (p: (f32[2,3], s32[4])) -> (f32[2,3], s32[4]) {
  %p = (f32[2,3]{0,1}, s32[4]{0}) parameter(0)
  %x = f32[2,3]{0,1} get-tuple-element(%p), index=0
  %y = s32[4]{0} get-tuple-element(%p), index=1
  %nx = f32[2,3]{1,0} negate(%x)
  %ny = s32[4]{0} negate(%y)
  ROOT %t = (f32[2,3]{0,1}, s32[4]{0}) tuple(%nx, %ny)
}
)");
  REQUIRE(module);
  const hlo::ProgramShape callerView = *module->entryComputationLayout();
  auto args = randomArguments(*module);
  hlo::Literal before = evaluate(*module, args);
  LayoutNormalization pass;
  CHECK(runPassAllowingPhysicalEntry(pass, *module));
  std::vector<hlo::Literal> elements;
  elements.push_back(physicalOf(args[0].element(0), callerView.parameters[0].tupleElement(0)));
  elements.push_back(args[0].element(1));
  std::vector<hlo::Literal> physicalArgs;
  physicalArgs.push_back(hlo::Literal::tuple(std::move(elements)));
  hlo::Literal after = evaluate(*module, physicalArgs);
  CHECK(after.element(0).bitwiseEqual(
      physicalOf(before.element(0), callerView.result.tupleElement(0))));
  CHECK(after.element(1).bitwiseEqual(before.element(1)));
}

TEST_CASE("pipeline: verifies after each pass and runs end to end on a layout boundary") {
  auto module = load(R"(
HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[3,2]{1,0}}
ENTRY %main (a: f32[2,3]) -> f32[3,2] {
  %a = f32[2,3]{0,1} parameter(0)
  ROOT %t = f32[3,2]{1,0} transpose(%a), dimensions={1,0}
}
)");
  REQUIRE(module);
  Pipeline pipeline;
  PipelineOptions options;
  options.verifyEachPass = true;
  buildCompilePipeline(pipeline, options);
  llvm::Error error = pipeline.run(*module);
  REQUIRE_MESSAGE(!error, hlo::errorToString(std::move(error), nullptr));
  // The caller's column-major f32[2,3] bytes are exactly the row-major f32[3,2] result.
  CHECK(module->entry()->root() == module->entry()->parameter(0));
}

} // namespace
} // namespace mote::passes::test
