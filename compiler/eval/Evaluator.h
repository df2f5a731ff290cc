//===- Evaluator.h - Reference evaluator for HLO ----------------*- C++ -*-===//
///
/// \file
/// Executes an HLO module op by op with XLA's semantics. It is the test oracle
/// for generated code and the constant folder, so it is written to be obvious
/// and exact; it is fast enough for real models only where that costs no
/// clarity (typed inner loops, no per-element allocation).
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_EVAL_EVALUATOR_H
#define MOTE_EVAL_EVALUATOR_H

#include "hlo/Literal.h"
#include "hlo/Module.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mote::eval {

/// How dot and convolution add each floating-point product to the running
/// sum: a rounded product, then a rounded add; or one fused multiply-add,
/// rounded once. Compiled code fuses where the target has the instruction
/// (twice the arithmetic per cycle on most CPUs), so the evaluator takes
/// the target's choice (codegen::contractionArithmetic) to match it bit for
/// bit. The order of the sum is the same either way.
struct ContractionArithmetic {
  bool fusedF32 = false; ///< sums in f32 (those of f16 and bf16 operands too)
  bool fusedF64 = false; ///< sums in f64
  bool operator==(const ContractionArithmetic &) const = default;
};

struct EvaluatorOptions {
  /// A while loop running longer than this is reported as an error instead of
  /// hanging the tool.
  uint64_t maxWhileIterations = uint64_t(1) << 31;
  /// A while loop whose condition and body (nested loops included) have
  /// evaluated more instructions than this is reported as a runaway. The
  /// budget counts instructions, not elements: a loop of a few large ops
  /// runs as long as it needs, while a loop of scalar steps that never ends
  /// stops within seconds (2^28 instructions: about 12 s of CPU time for a
  /// two-instruction body on a 2.2 GHz x86-64, where 2^24 took 0.76 s). Real
  /// modules need that much: XLA's in_place_dynamic_update_slice_fusion
  /// benchmark evaluates about 2^26.4 instructions in its loop.
  uint64_t maxLoopInstructions = uint64_t(1) << 28;
  /// Seed for `rng` (XLA leaves its values unspecified; ours are reproducible).
  uint64_t rngSeed = 42;
  ContractionArithmetic contraction;
};

class Evaluator {
public:
  explicit Evaluator(const hlo::Module &module, EvaluatorOptions options = {});
  ~Evaluator();

  /// Runs the entry computation on `arguments` (one per entry parameter, whose
  /// shapes must match the parameters').
  llvm::Expected<hlo::Literal> run(llvm::ArrayRef<hlo::Literal> arguments);

  /// Runs any computation of the module (used for to_apply, bodies, branches).
  llvm::Expected<hlo::Literal> call(const hlo::Computation &computation,
                                    llvm::ArrayRef<const hlo::Literal *> arguments);
  /// Like call(), but takes the arguments over so their storage can become
  /// the results' (a while loop hands its state to the body this way, so a
  /// dynamic-update-slice of a big loop-carried array runs in place).
  llvm::Expected<hlo::Literal> callOwned(const hlo::Computation &computation,
                                         std::vector<hlo::Literal> arguments);

  const EvaluatorOptions &options() const { return options_; }
  /// Instructions evaluated so far (each step of each computation call).
  uint64_t instructionsExecuted() const { return instructionsExecuted_; }
  /// State of `rng-get-and-update-state` and `rng`, advanced as they run.
  uint64_t &rngState() { return rngState_; }

private:
  /// The order in which a computation's live instructions run and when each
  /// value can be freed; built once per computation (Evaluator.cpp).
  struct Plan;

  llvm::Expected<hlo::Literal> evaluateInstruction(const hlo::Instruction &instruction,
                                                   llvm::ArrayRef<const hlo::Literal *> operands);
  llvm::Expected<Plan *> planFor(const hlo::Computation &computation);
  llvm::Expected<hlo::Literal> execute(const hlo::Computation &computation,
                                       llvm::ArrayRef<const hlo::Literal *> arguments,
                                       llvm::MutableArrayRef<hlo::Literal> ownedArguments);

  const hlo::Module &module_;
  EvaluatorOptions options_;
  uint64_t rngState_ = 0;
  llvm::DenseMap<const hlo::Computation *, std::unique_ptr<Plan>> plans_;
  unsigned callDepth_ = 0;
  bool checked_ = false;
  uint64_t instructionsExecuted_ = 0;
};

/// Whether every instruction reachable from the entry can be evaluated: a
/// supported opcode (not a multi-device op), supported element types, no
/// elided constants. Returns the first problem, located at its instruction,
/// e.g. "all-reduce is not supported on a single device".
llvm::Error checkEvaluable(const hlo::Module &module);

} // namespace mote::eval

#endif // MOTE_EVAL_EVALUATOR_H
