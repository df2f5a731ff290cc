//===- Pipeline.cpp - Running passes, and the compile pipeline ------------===//

#include "passes/Pass.h"
#include "passes/Passes.h"

#include "hlo/Diagnostics.h"
#include "hlo/Verifier.h"

#include "llvm/Support/FormatVariadic.h"

namespace mote::passes {

namespace {

/// After layout normalization the entry's parameters and root hold the
/// caller's bytes in physical order, while entry_computation_layout still
/// states the caller's logical view. The verifier compares the two by
/// dimensions, so such a module is checked against the physical view.
llvm::Error verifyNormalizedOrNot(hlo::Module &module) {
  const std::optional<hlo::ProgramShape> &layout = module.entryComputationLayout();
  const hlo::Computation *entry = module.entry();
  if (!layout || !entry || layout->parameters.size() != entry->parameterCount() || !entry->root())
    return hlo::verifyModule(module);
  bool logicalMatches = layout->result.compatible(entry->root()->shape());
  for (size_t i = 0; i < entry->parameterCount() && logicalMatches; ++i)
    logicalMatches =
        entry->parameter(i) && layout->parameters[i].compatible(entry->parameter(i)->shape());
  if (logicalMatches)
    return hlo::verifyModule(module);

  hlo::ProgramShape physical = *layout;
  for (hlo::Shape &parameter : physical.parameters)
    parameter = physicalShape(parameter);
  physical.result = physicalShape(physical.result);
  std::optional<hlo::ProgramShape> saved = layout;
  module.setEntryComputationLayout(std::move(physical));
  llvm::Error error = hlo::verifyModule(module);
  module.setEntryComputationLayout(std::move(saved));
  return error;
}

} // namespace

llvm::Error Pipeline::run(hlo::Module &module) {
  bool changedSinceCheck = false;
  for (size_t i = 0; i < passes_.size(); ++i) {
    const std::unique_ptr<Pass> &pass = passes_[i];
    llvm::Expected<bool> changed = pass->run(module);
    if (!changed)
      return changed.takeError();
    changedSinceCheck |= *changed;
    // Without verification after each pass, the module is still checked
    // once after the last, before anything below the passes reads it.
    bool last = i + 1 == passes_.size();
    if (!changedSinceCheck || (!verify_ && !last))
      continue;
    changedSinceCheck = false;
    if (llvm::Error error = verifyNormalizedOrNot(module)) {
      // Keep the location; say which pass broke the module (a bug in Mote).
      std::string prefix = verify_ ? llvm::formatv("internal error: invalid module after pass "
                                                   "'{0}': ",
                                                   pass->name())
                                         .str()
                                   : std::string("internal error: invalid module after the "
                                                 "passes: ");
      return llvm::handleErrors(
          std::move(error),
          [&](const hlo::LocatedError &located) {
            return hlo::errorAt(located.location(), prefix + located.text());
          },
          [&](const llvm::ErrorInfoBase &other) -> llvm::Error {
            return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                           prefix + other.message());
          });
    }
  }
  return llvm::Error::success();
}

void buildCompilePipeline(Pipeline &pipeline, const PipelineOptions &options) {
  pipeline.setVerifyEachPass(options.verifyEachPass);
  // First, so every later pass sees whole computations: no call or fusion
  // boundary hides an operand from the simplifier, CSE or the schedule.
  pipeline.add(std::make_unique<InlineCalls>());
  // Before layout normalization, which then treats the arithmetic it makes
  // like any other; code generation never sees a batch norm.
  pipeline.add(std::make_unique<BatchNormExpander>());
  // Before simplification: the transposes it adds at the entry boundary and
  // for bitcasts then meet their neighbours, and no rewrite needs to reason
  // about layouts (everything is row-major afterwards).
  pipeline.add(std::make_unique<LayoutNormalization>());
  // On row-major operands; before padding, which would pad the wide values,
  // and before folding, which would fold converts of constant weights into
  // wide constants.
  pipeline.add(std::make_unique<NarrowContractionOperands>());
  // On row-major convolutions; before folding, which then reverses constant
  // kernels at compile time.
  pipeline.add(std::make_unique<ConvolutionPadding>());
  // Likewise before folding, which transposes constant weights once.
  pipeline.add(std::make_unique<DotOperandOrder>());
  pipeline.add(std::make_unique<AlgebraicSimplifier>());
  pipeline.add(std::make_unique<ConstantFolding>(options.maxFoldedElements, options.contraction));
  // After folding, which makes equal constants out of equal subexpressions.
  pipeline.add(std::make_unique<CommonSubexpressionElimination>());
  // After CSE, so equal invariant values inside a body are hoisted once; the
  // hoisted instructions then meet the simplifier and DCE below.
  pipeline.add(std::make_unique<WhileLoopInvariantCodeMotion>());
  // Merged operands expose more identities (select(p, x, x), ...).
  pipeline.add(std::make_unique<AlgebraicSimplifier>());
  // Last: the passes above leave replaced instructions behind.
  pipeline.add(std::make_unique<DeadCodeElimination>());
  // After everything that rewrites instructions: the groups it forms hide
  // their members from the passes above, and code generation emits each as
  // one loop.
  if (options.fusion)
    pipeline.add(std::make_unique<InstructionFusion>());
}

} // namespace mote::passes
