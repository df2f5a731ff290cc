//===- Pass.h - HLO-to-HLO passes and the pipeline --------------*- C++ -*-===//
#ifndef MOTE_PASSES_PASS_H
#define MOTE_PASSES_PASS_H

#include "eval/Evaluator.h"
#include "hlo/Module.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace mote::passes {

/// A transformation of a verified module into an equivalent verified module.
class Pass {
public:
  virtual ~Pass() = default;
  virtual llvm::StringRef name() const = 0;
  /// Returns whether the module changed.
  virtual llvm::Expected<bool> run(hlo::Module &module) = 0;
};

/// Runs passes in order. With verification on (the default in debug and test
/// builds, kVerifyEachPassByDefault) the verifier (hlo/Verifier.h: shapes,
/// layouts, constants holding their data, fusions owning their bodies) runs
/// after every pass that changed the module and an error names the pass;
/// with it off, it runs once after the last pass. Either way no pass can hand
/// code generation a module that breaks the verifier's invariants.
class Pipeline {
public:
  void add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  void setVerifyEachPass(bool verify) { verify_ = verify; }
  llvm::Error run(hlo::Module &module);
  const std::vector<std::unique_ptr<Pass>> &passes() const { return passes_; }

private:
  std::vector<std::unique_ptr<Pass>> passes_;
  bool verify_ = true;
};

/// Whether pipelines verify after every pass unless told otherwise: on in
/// debug builds and builds with the test suite (MOTE_VERIFY_EACH_PASS).
#ifdef MOTE_VERIFY_EACH_PASS
inline constexpr bool kVerifyEachPassByDefault = true;
#else
inline constexpr bool kVerifyEachPassByDefault = false;
#endif

struct PipelineOptions {
  /// Constant folding evaluates instructions whose result has at most this
  /// many elements (larger results stay as code, keeping read-only data small).
  int64_t maxFoldedElements = 1 << 16;
  bool verifyEachPass = kVerifyEachPassByDefault;
  /// Fuse producers into consumers (off: every instruction gets a buffer,
  /// which `motec report --no-fusion` shows for comparison).
  bool fusion = true;
  /// The target's arithmetic for dot and convolution sums (constant folding
  /// computes what the target would).
  eval::ContractionArithmetic contraction;
};

/// The passes `motec compile` runs before code generation, in order: inline
/// calls and fusions, algebraic simplification, constant folding, CSE, DCE,
/// then fusion.
void buildCompilePipeline(Pipeline &pipeline, const PipelineOptions &options);

} // namespace mote::passes

#endif // MOTE_PASSES_PASS_H
