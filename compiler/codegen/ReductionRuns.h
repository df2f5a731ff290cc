//===- ReductionRuns.h - Float reductions folded from staged runs -*- C++ -*-===//
///
/// \file
/// Internal to code generation: how a reduce that folds floats (f32, f64,
/// or f16 and bf16 widened to f32 as eval/HalfReduction.h says) reads its
/// innermost reduced dimension.
///
/// Every result element folds its inputs one after another in the
/// evaluator's order, so its sum is a chain of dependent float operations
/// that no vectorizer may reorder. What can run in vector lanes is
/// everything before the chain: reading the operand, computing what is
/// fused into it (softmax's exp(x - max)) and widening half elements to
/// f32, which one element at a time costs more than the add it feeds (on
/// x86-64 a scalar f16 is a move to a vector register and a vcvtph2ps,
/// both on one port). So the innermost reduced dimension is read in runs
/// of at most kRunLength elements (kRunBytes for f64): for each result
/// element of a group, a loop with no carried dependence computes the run
/// into a stack buffer (the vectorizer turns it into full-width code),
/// then one loop folds the buffered runs of the whole group in order, one
/// step of each result element's chain per iteration. A group of several
/// result elements keeps that many independent chains in flight, so the
/// fold is bound by the adds' throughput rather than their latency. Each
/// chain folds exactly the elements the unstaged loop would, in the same
/// order: the results are the same bits. Integer folds are left as they
/// are: their adds are associative, so the vectorizer already splits them
/// across lanes.
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

/// Elements of the innermost reduced dimension staged at a time, and the
/// bytes of one result element's run (f64 runs are half as long).
constexpr int64_t kRunLength = 64;
constexpr int64_t kRunBytes = kRunLength * 4;
/// Result elements whose chains one fold loop interleaves (with
/// kRunBytes, 2 KiB of stack).
constexpr size_t kRunGroup = 8;

/// Marks `module` as code whose reduces read in runs when `target`'s vector
/// unit pays for the buffer and keeps f32 subnormals (x86-64, AArch64,
/// RISC-V V); leaves it unmarked otherwise.
void markReductionRuns(llvm::Module &module, const target::TargetSpec *target);

/// Whether a reduce folding with `fold` over an innermost reduced dimension
/// of `length` elements, emitted by `builder`, is read in runs: folds in f32
/// or f64 over at least 8 elements, in a module markReductionRuns marked.
bool foldsInRuns(llvm::IRBuilderBase &builder, const ReductionFold &fold, int64_t length);

/// Whether `reduce`, emitted into `module`, is a reduce whose result
/// FunctionEmitter::emitReduceInRuns computes a group of elements at a
/// time: an f32 or f64 reduce, or an f16 or bf16 one folding in f32, over
/// its operand's innermost dimension, with a result of rank >= 1, in a
/// marked module.
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
