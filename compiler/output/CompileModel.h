//===- CompileModel.h - HLO module to native code, end to end ---*- C++ -*-===//
///
/// \file
/// The whole of `motec compile` below the command line: the pass pipeline,
/// the schedule, buffer assignment, code generation into an LLVM module for
/// one target, LLVM's optimisation, and emission.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_OUTPUT_COMPILEMODEL_H
#define MOTE_OUTPUT_COMPILEMODEL_H

#include "codegen/ModelSignature.h"
#include "codegen/WeightsBlob.h"
#include "eval/Evaluator.h"
#include "hlo/Module.h"
#include "output/CompileProgress.h"
#include "output/ObjectEmitter.h"
#include "target/Target.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace mote::output {

struct CompileOptions {
  target::TargetSpec target;
  /// Symbol prefix (a C identifier); empty means derived from the module name.
  std::string name;
  unsigned optLevel = 3;
  bool fusion = true; ///< PipelineOptions::fusion
  /// f16 dots and convolutions sum in f16 where the target can (opt-in:
  /// codegen::emitEntryFunction's nativeHalfSums).
  bool nativeHalfSums = false;
  /// Large constants go to CompiledModel::weights, read through
  /// mote_call.weights (packages), instead of the object's read-only data.
  bool weightsOutsideCode = false;
  /// Constant rhs operands of tiled contractions stored in their tiles'
  /// panels (codegen::emitEntryFunction's rhsPanels). The panels follow the
  /// target's tile width, so code objects for several feature levels of one
  /// triple would each need their own copy of the weights: packages turn
  /// this off for them, keeping one copy.
  bool rhsPanels = true;
  /// Told as each phase starts (may be null).
  CompileProgress *progress = nullptr;
};

/// Statistics `motec report` and the tests read.
struct CompileStats {
  uint64_t arenaBytes = 0;
  uint64_t arenaLowerBound = 0;
  uint64_t constantBytes = 0;
  size_t instructionCount = 0;             ///< after the pass pipeline
  eval::ContractionArithmetic contraction; ///< how dot and convolution sums were computed
};

struct CompiledModel {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module; ///< optimised
  codegen::ModelSignature signature;
  CompileStats stats;
  /// With CompileOptions::weightsOutsideCode: the constants the code reads
  /// through mote_call.weights. It refers to the compiled hlo::Module's
  /// literals, so that module must outlive it.
  std::unique_ptr<codegen::WeightsBlob> weights;
};

/// Compiles `module` (verified; the passes change it in place). Errors are
/// located at the offending instruction.
llvm::Expected<CompiledModel> compileModel(hlo::Module &module, const CompileOptions &options);

/// A C identifier for `moduleName` (`jit_f.1` -> `jit_f_1`).
std::string symbolPrefixFor(llvm::StringRef moduleName);

} // namespace mote::output

#endif // MOTE_OUTPUT_COMPILEMODEL_H
