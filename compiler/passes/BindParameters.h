//===- BindParameters.h - Weights as constants, chosen results --*- C++ -*-===//
///
/// \file
/// The passes that change a model's interface, run before anything reads
/// it (the signature, the passes, the evaluator).
///
/// Frameworks export a model as a function of its weights: a JAX or Keras
/// predict step takes every weight tensor as a leading parameter and often
/// returns its state again. Binding gives such parameters their trained
/// values at compile time: each bound parameter becomes a constant holding
/// the array, so constant folding, layout choice and the kernels see the
/// weights, and the parameter leaves the interface. The remaining
/// parameters keep their order and are renumbered from 0.
///
/// Selecting outputs keeps some elements of the entry's result tuple; what
/// only the others needed is then dead code. A result that merely returns a
/// bound parameter (a predict step handing its weights back) is a copy of a
/// constant nobody asked for: dropped by default.
///
/// input_output_alias follows both edits: pairs naming a bound parameter or
/// a dropped result go, the others are renumbered.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_PASSES_BINDPARAMETERS_H
#define MOTE_PASSES_BINDPARAMETERS_H

#include "passes/Pass.h"

#include "hlo/Literal.h"

#include <optional>
#include <string>
#include <vector>

namespace mote::passes {

/// An entry parameter (numbered as in the module as loaded) and its value,
/// of exactly the parameter's element type and dimensions.
struct BoundParameter {
  int64_t number = 0;
  hlo::Literal value;
};

/// What the interface passes did, for `motec report`.
struct InterfaceChanges {
  struct Bound {
    int64_t number;   ///< as loaded
    std::string name; ///< the parameter's (now the constant's) name
    uint64_t bytes;
  };
  std::vector<Bound> bound;
  struct DroppedResult {
    int64_t index;      ///< in the result tuple as loaded
    std::string reason; ///< "returns bound parameter 3 (%w) unchanged", ...
  };
  std::vector<DroppedResult> droppedResults;
};

/// Replaces the bound entry parameters by constants. Checks that every
/// number names an array parameter once and that each value has the
/// parameter's type and dimensions (the error names the parameter).
class BindParameters : public Pass {
public:
  BindParameters(std::vector<BoundParameter> bindings, InterfaceChanges *changes = nullptr)
      : bindings_(std::move(bindings)), changes_(changes) {}
  llvm::StringRef name() const override { return "bind-parameters"; }
  llvm::Expected<bool> run(hlo::Module &module) override;

private:
  std::vector<BoundParameter> bindings_;
  InterfaceChanges *changes_;
};

/// Keeps the elements `keep` (in that order) of the entry's result tuple;
/// with `keep` unset, drops the elements that are a bound parameter's
/// constant passed through unchanged (when at least one other remains).
/// A result that is not a tuple is element 0.
class SelectOutputs : public Pass {
public:
  SelectOutputs(std::optional<std::vector<int64_t>> keep, InterfaceChanges *changes = nullptr)
      : keep_(std::move(keep)), changes_(changes) {}
  llvm::StringRef name() const override { return "select-outputs"; }
  llvm::Expected<bool> run(hlo::Module &module) override;

private:
  std::optional<std::vector<int64_t>> keep_;
  InterfaceChanges *changes_;
};

/// The interface options of a compile: bound parameters and chosen outputs.
struct InterfaceOptions {
  std::vector<BoundParameter> bindings;
  std::optional<std::vector<int64_t>> outputs; ///< unset: all but bound pass-throughs
};

/// Adds BindParameters and SelectOutputs for `options` (nothing when it
/// binds nothing and chooses no outputs), recording into `changes`.
void buildInterfacePipeline(Pipeline &pipeline, InterfaceOptions options,
                            InterfaceChanges *changes);

} // namespace mote::passes

#endif // MOTE_PASSES_BINDPARAMETERS_H
