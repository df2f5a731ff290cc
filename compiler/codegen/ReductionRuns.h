//===- ReductionRuns.h - Half reductions folded from widened runs -*- C++ -*-===//
///
/// \file
/// Internal to code generation: how an f16 or bf16 reduce that folds in f32
/// (eval/HalfReduction.h) reads its innermost reduced dimension.
///
/// Every result element folds its inputs one after another in the
/// evaluator's order, so its sum is a chain of dependent f32 operations
/// that no vectorizer may reorder. What can run in vector lanes is
/// everything before the chain: reading the operand (and computing what is
/// fused into it) and widening it to f32, which one element at a time costs
/// more than the add it feeds (on x86-64 a scalar f16 is a move to a vector
/// register and a vcvtph2ps, both on one port). So the innermost reduced
/// dimension is read in runs of at most kRunLength elements: for each
/// result element of a group, a loop with no carried dependence widens the
/// run into a stack buffer (the vectorizer turns it into full-width
/// conversions), then one loop folds the buffered runs of the whole group
/// in order, one step of each result element's chain per iteration. A
/// group of several result elements keeps that many independent chains in
/// flight, so the fold is bound by the adds' throughput rather than their
/// latency. Each chain folds exactly the elements the unstaged loop would,
/// in the same order: the results are the same bits.
///
/// Only where it pays and keeps those bits: targets whose vector unit keeps
/// f32 subnormals (x86-64, AArch64, RISC-V V). Without a vector unit
/// (Cortex-M4/M7, RV32, scalar riscv64) the buffer only adds a store and a
/// load per element and 2 KiB of stack; Helium (Cortex-M55) would sum the
/// buffered runs in lanes that flush f32 subnormals. IrEmitter marks the
/// module for the targets that read in runs (markReductionRuns), and every
/// other target keeps the one-element-at-a-time fold.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_REDUCTIONRUNS_H
#define MOTE_CODEGEN_REDUCTIONRUNS_H

#include "codegen/ElementalEmitter.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"

namespace mote::target {
struct TargetSpec;
} // namespace mote::target

namespace mote::codegen {

/// Elements of the innermost reduced dimension widened at a time.
constexpr int64_t kRunLength = 64;
/// Result elements whose chains one fold loop interleaves (with
/// kRunLength, 2 KiB of f32 on the stack).
constexpr size_t kRunGroup = 8;

/// Marks `module` as code whose reduces read in runs when `target`'s vector
/// unit pays for the buffer and keeps f32 subnormals (x86-64, AArch64,
/// RISC-V V); leaves it unmarked otherwise.
void markReductionRuns(llvm::Module &module, const target::TargetSpec *target);

/// Whether a reduce folding with `fold` over an innermost reduced dimension
/// of `length` elements, emitted by `builder`, is read in runs: widened
/// folds of at least 8 in a module markReductionRuns marked.
bool foldsInRuns(llvm::IRBuilderBase &builder, const ReductionFold &fold, int64_t length);

/// Whether `reduce`, emitted into `module`, is a reduce whose result
/// FunctionEmitter::emitReduceInRuns computes a group of elements at a
/// time: an f16 or bf16 reduce folding in f32 over its operand's innermost
/// dimension, with a result of rank >= 1, in a marked module.
bool reducesInRuns(const hlo::Instruction &reduce, const llvm::Module &module);

/// Folds positions [0, length) of the innermost reduced dimension into
/// `accumulators` (one a result element, each holding fold's accumulator
/// type), in order, from runs widened into a stack buffer. `read(k, p)` is
/// the element result element k folds at innermost position p.
void emitFoldInRuns(llvm::IRBuilderBase &builder, llvm::Type *indexType, ReductionFold &fold,
                    llvm::ArrayRef<llvm::AllocaInst *> accumulators, int64_t length,
                    llvm::function_ref<llvm::Value *(size_t k, llvm::Value *position)> read);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_REDUCTIONRUNS_H
