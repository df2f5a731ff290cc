//===- Passes.h - The HLO-to-HLO passes before code generation -*- C++ -*-===//
///
/// \file
/// One class per pass; each keeps the module verified and equivalent for all
/// inputs (NaN and -0 included). buildCompilePipeline (Pass.h) orders them.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_PASSES_PASSES_H
#define MOTE_PASSES_PASSES_H

#include "eval/Evaluator.h"
#include "passes/Pass.h"

namespace mote::passes {

/// Replaces every `call` and `fusion` by the instructions of the computation
/// it runs (recursively), then drops computations nothing calls. A while
/// body, condition or conditional branch that several sites share is cloned,
/// so that each runs from one place (buffer assignment needs that).
class InlineCalls : public Pass {
public:
  llvm::StringRef name() const override { return "inline-calls"; }
  llvm::Expected<bool> run(hlo::Module &module) override;
};

/// Rewrites batch-norm-training, -inference and -grad into reductions,
/// broadcasts and elementwise arithmetic (XLA's BatchNormExpander formulas).
class BatchNormExpander : public Pass {
public:
  llvm::StringRef name() const override { return "batch-norm-expander"; }
  llvm::Expected<bool> run(hlo::Module &module) override;
};

/// Computes expensive loop-invariant values of a while body once before the
/// loop and carries them through the loop state (XLA's pass of that name).
class WhileLoopInvariantCodeMotion : public Pass {
public:
  llvm::StringRef name() const override { return "while-loop-invariant-code-motion"; }
  llvm::Expected<bool> run(hlo::Module &module) override;
};

/// Removes instructions the root does not depend on (parameters stay), and
/// computations nothing calls.
class DeadCodeElimination : public Pass {
public:
  llvm::StringRef name() const override { return "dce"; }
  llvm::Expected<bool> run(hlo::Module &module) override;
};

/// Merges instructions that compute the same value: same opcode, operands,
/// shape (layout included), typed attributes and called computations. Never
/// merges nondeterministic or side-effecting ops (rng, custom-call).
class CommonSubexpressionElimination : public Pass {
public:
  llvm::StringRef name() const override { return "cse"; }
  llvm::Expected<bool> run(hlo::Module &module) override;
};

/// Evaluates, with the reference evaluator, instructions whose operands are
/// all constants, when the result is small: at most `maxElements`, and no
/// bigger than its largest operand unless tiny, so read-only data never grows
/// much (a broadcast of a scalar stays a broadcast). Dots and convolutions
/// fold with the target's `arithmetic`, so a folded result is what the
/// compiled code would have computed.
class ConstantFolding : public Pass {
public:
  ConstantFolding(int64_t maxElements, eval::ContractionArithmetic arithmetic)
      : maxElements_(maxElements), arithmetic_(arithmetic) {}
  llvm::StringRef name() const override { return "constant-folding"; }
  llvm::Expected<bool> run(hlo::Module &module) override;

  /// Results of at most this many elements fold even if bigger than their operands.
  static constexpr int64_t kTinyElements = 64;

private:
  int64_t maxElements_;
  eval::ContractionArithmetic arithmetic_;
};

/// Removes operations that do nothing (identity reshape, transpose,
/// broadcast, convert, slice, pad, concatenate, copy, reverse...) and merges
/// chains (reshape of reshape, transpose of transpose, broadcast of
/// broadcast, get-tuple-element of tuple). Every rewrite is exact.
class AlgebraicSimplifier : public Pass {
public:
  llvm::StringRef name() const override { return "algebraic-simplifier"; }
  llvm::Expected<bool> run(hlo::Module &module) override;
};

/// Makes every array in the module row-major. Inside the module layouts are
/// free (semantics are logical), except for bitcasts, which become
/// transposes around a row-major bitcast. At the entry boundary the caller's
/// bytes keep their order: a parameter leaf with a non-default layout in
/// entry_computation_layout becomes a row-major parameter of its physical
/// dimensions followed by a transpose back, and a result leaf likewise is
/// transposed to its physical dimensions. entry_computation_layout keeps the
/// caller's view (it is filled from the entry's own shapes when absent).
class LayoutNormalization : public Pass {
public:
  llvm::StringRef name() const override { return "layout-normalization"; }
  llvm::Expected<bool> run(hlo::Module &module) override;
};

/// Moves a convolution's positive padding into a `pad` of its input and its
/// window reversal into a `reverse` of its kernel (convolutions of the types
/// ContractionTypes.h tiles, without lhs dilation or batch groups), so code generation can tile it
/// as a strided contraction. Sums are unchanged: padding takes part in them as 0 * w either way.
class ConvolutionPadding : public Pass {
public:
  llvm::StringRef name() const override { return "convolution-padding"; }
  llvm::Expected<bool> run(hlo::Module &module) override;
};

/// Gives integer dots and convolutions their narrow operands back: a
/// `convert` of narrower integers is read as its operand, and a wide integer
/// constant whose values fit in s8, u8 or s16 becomes one of that type
/// (NarrowContractionOperands.cpp says when that is exact: always, for the
/// contractions it touches).
class NarrowContractionOperands : public Pass {
public:
  llvm::StringRef name() const override { return "narrow-contraction-operands"; }
  llvm::Expected<bool> run(hlo::Module &module) override;
};

/// Transposes the rhs of a tiled dot (ContractionTypes.h) whose free dimension is not its
/// innermost into [batch, contracting, free] order, so the tiled kernel
/// reads it as vectors instead of element by element.
class DotOperandOrder : public Pass {
public:
  llvm::StringRef name() const override { return "dot-operand-order"; }
  llvm::Expected<bool> run(hlo::Module &module) override;
};

/// Fuses producers into the consumers that read them (loop fusion of
/// elementwise and data-movement chains, input fusion into reductions,
/// output fusion of elementwise consumers into a dot or convolution), so
/// their values are computed where they are read and never stored: each
/// group becomes a `fusion` instruction (kind kLoop, kInput for a reduce
/// root, kOutput around a dot or convolution) whose computation code
/// generation emits as one loop nest or one tiled kernel. Runs on every
/// computation that owns buffers; fused computations run as elemental code
/// and own none.
class InstructionFusion : public Pass {
public:
  llvm::StringRef name() const override { return "fusion"; }
  llvm::Expected<bool> run(hlo::Module &module) override;
};

/// Whether a fusion made by InstructionFusion reads operand `operand` only
/// at the index of the element it stores (so it may write over that
/// operand's buffer, like an elementwise op).
bool fusionReadsOperandInPlace(const hlo::Instruction &fusion, size_t operand);

/// The row-major shape holding the same bytes as `shape` read in its physical
/// order: dims permuted major to minor, layouts dropped (recursively).
hlo::Shape physicalShape(const hlo::Shape &shape);

} // namespace mote::passes

#endif // MOTE_PASSES_PASSES_H
