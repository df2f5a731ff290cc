//===- OpEvaluators.h - Per-op evaluation functions -------------*- C++ -*-===//
///
/// \file
/// Internal to the evaluator: one function per op family, each in the file
/// named beside it. Operands arrive already evaluated; errors are located at
/// the instruction (hlo::errorAt).
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_EVAL_OPEVALUATORS_H
#define MOTE_EVAL_OPEVALUATORS_H

#include "eval/Evaluator.h"
#include "hlo/Instruction.h"
#include "hlo/Literal.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace mote::eval {

using Operands = llvm::ArrayRef<const hlo::Literal *>;
using Result = llvm::Expected<hlo::Literal>;

// ElementwiseOps.cpp: unary, binary, compare, select, clamp, convert,
// reduce-precision, stochastic-convert, complex/real/imag.
Result evaluateElementwise(const hlo::Instruction &instruction, Operands operands);
// BitcastConvert.cpp
Result evaluateBitcastConvert(const hlo::Instruction &instruction, Operands operands);

// ShapeOps.cpp: broadcast, reshape, bitcast, copy, transpose, reverse, iota.
Result evaluateBroadcast(const hlo::Instruction &instruction, Operands operands);
Result evaluateReshape(const hlo::Instruction &instruction, Operands operands);
Result evaluateBitcast(const hlo::Instruction &instruction, Operands operands);
Result evaluateTranspose(const hlo::Instruction &instruction, Operands operands);
Result evaluateReverse(const hlo::Instruction &instruction, Operands operands);
Result evaluateIota(const hlo::Instruction &instruction, Operands operands);
// SliceOps.cpp: slice, dynamic-slice, dynamic-update-slice, concatenate, pad.
Result evaluateSlice(const hlo::Instruction &instruction, Operands operands);
Result evaluateDynamicSlice(const hlo::Instruction &instruction, Operands operands);
Result evaluateDynamicUpdateSlice(const hlo::Instruction &instruction, Operands operands);
/// dynamic-update-slice writing into `operand` itself (which operands[0] may
/// point to), for when the operand's value dies at this instruction.
llvm::Error updateSliceInPlace(const hlo::Instruction &instruction, hlo::Literal &operand,
                               Operands operands);
Result evaluateConcatenate(const hlo::Instruction &instruction, Operands operands);
Result evaluatePad(const hlo::Instruction &instruction, Operands operands);

// Dot.cpp, Convolution.cpp
Result evaluateDot(const hlo::Instruction &instruction, Operands operands,
                   ContractionArithmetic arithmetic);
Result evaluateConvolution(const hlo::Instruction &instruction, Operands operands,
                           ContractionArithmetic arithmetic);
// Reduce.cpp, ReduceWindow.cpp, SelectAndScatter.cpp (call `to_apply` through the evaluator)
Result evaluateReduce(Evaluator &evaluator, const hlo::Instruction &instruction, Operands operands);
Result evaluateReduceWindow(Evaluator &evaluator, const hlo::Instruction &instruction,
                            Operands operands);
Result evaluateSelectAndScatter(Evaluator &evaluator, const hlo::Instruction &instruction,
                                Operands operands);
// Gather.cpp, Scatter.cpp
Result evaluateGather(const hlo::Instruction &instruction, Operands operands);
Result evaluateScatter(Evaluator &evaluator, const hlo::Instruction &instruction,
                       Operands operands);
// Sort.cpp: sort (multi-operand, stable or not), topk and the TopK custom-call.
Result evaluateSort(Evaluator &evaluator, const hlo::Instruction &instruction, Operands operands);
Result evaluateTopK(const hlo::Instruction &instruction, Operands operands);
// Map.cpp
Result evaluateMap(Evaluator &evaluator, const hlo::Instruction &instruction, Operands operands);
// Random.cpp: rng, rng-bit-generator, rng-get-and-update-state.
Result evaluateRng(Evaluator &evaluator, const hlo::Instruction &instruction, Operands operands);
Result evaluateRngBitGenerator(const hlo::Instruction &instruction, Operands operands);
// LinearAlgebra.cpp: cholesky, triangular-solve, fft.
Result evaluateCholesky(const hlo::Instruction &instruction, Operands operands);
Result evaluateTriangularSolve(const hlo::Instruction &instruction, Operands operands);
Result evaluateFft(const hlo::Instruction &instruction, Operands operands);
// BatchNorm.cpp: batch-norm-training, -inference, -grad.
Result evaluateBatchNorm(const hlo::Instruction &instruction, Operands operands);

// NarrowFloats.cpp: ops that compute on f4, f6 or f8 values run in f32 and
// round back; `evaluate` runs the f32 stand-in of the instruction.
bool computesOnNarrowFloats(const hlo::Instruction &instruction);
Result evaluateWidened(const hlo::Instruction &instruction, Operands operands,
                       llvm::function_ref<Result(const hlo::Instruction &, Operands)> evaluate);

} // namespace mote::eval

#endif // MOTE_EVAL_OPEVALUATORS_H
