//===- ControlFlow.h - while, conditional and the value-passing ops -*- C++ -*-===//
///
/// \file
/// Internal to the evaluator: the ops that run other computations or pass
/// values through, dispatched from Evaluator.cpp.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_EVAL_CONTROLFLOW_H
#define MOTE_EVAL_CONTROLFLOW_H

#include "eval/OpEvaluators.h"

namespace mote::eval {

/// Runs condition and body until the condition is false. `ownedInit`, when
/// given, is the initial state the caller no longer needs (moved from).
Result evaluateWhile(Evaluator &evaluator, const hlo::Instruction &instruction,
                     const hlo::Literal &init, hlo::Literal *ownedInit);
/// Branch 0 for a true pred, 1 for false; an s32 index out of range runs the
/// last branch.
Result evaluateConditional(Evaluator &evaluator, const hlo::Instruction &instruction,
                           Operands operands);
/// call and fusion: the called computation on the operands.
Result evaluateCall(Evaluator &evaluator, const hlo::Instruction &instruction, Operands operands);
/// custom-call: only the well-known TopK target.
Result evaluateCustomCall(const hlo::Instruction &instruction, Operands operands);
/// u64[2] {state, 0}; then the state advances by the `delta` attribute.
Result evaluateRngGetAndUpdateState(Evaluator &evaluator, const hlo::Instruction &instruction);
/// tuple, get-tuple-element and the ops that return an operand unchanged
/// (copy, add-dependency, opt-barrier, domain, set-dimension-size), plus
/// after-all, partition-id, replica-id and get-dimension-size.
Result evaluateValueOp(const hlo::Instruction &instruction, Operands operands);

} // namespace mote::eval

#endif // MOTE_EVAL_CONTROLFLOW_H
