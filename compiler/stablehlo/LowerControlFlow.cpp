//===- LowerControlFlow.cpp - while, if, case, calls, custom calls --------===//

#include "stablehlo/Checks.h"
#include "stablehlo/Converter.h"

#include "hlo/Diagnostics.h"

namespace mote::stablehlo {

using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;
using hlo::Shape;

namespace {

void splitTuple(OpContext &context, Instruction *value, size_t count) {
  for (size_t i = 0; i < count; ++i)
    context.results.push_back(context.getTupleElement(value, static_cast<int64_t>(i)));
}

llvm::Error lowerWhile(OpContext &context) {
  if (context.op.regions.size() != 2)
    return context.error("expected cond and body regions");
  std::vector<Instruction *> captures;
  auto condition = context.converter.convertRegion(context.op.regions[0], context.scope,
                                                   RegionParameters::Tuple, "cond", &captures);
  if (!condition)
    return condition.takeError();
  auto body = context.converter.convertRegion(context.op.regions[1], context.scope,
                                              RegionParameters::Tuple, "body", &captures);
  if (!body)
    return body.takeError();
  if (body->returned.size() != context.operands.size())
    return context.error("the body returns " + llvm::Twine(body->returned.size()) + " values for " +
                         llvm::Twine(context.operands.size()) + " loop values");
  context.converter.finishTupleRegion(*condition, captures, /*passCapturesOn=*/false);
  context.converter.finishTupleRegion(*body, captures, /*passCapturesOn=*/true);
  std::vector<Instruction *> state = context.operands;
  state.insert(state.end(), captures.begin(), captures.end());
  Instruction *initial = context.tuple(state);
  Instruction *loop = context.add(Opcode::While, initial->shape(), {initial});
  loop->addCalledComputation(condition->computation);
  loop->addCalledComputation(body->computation);
  splitTuple(context, loop, context.operands.size());
  return llvm::Error::success();
}

/// if and case: each branch a computation of one tuple of captured values.
llvm::Error lowerConditional(OpContext &context) {
  if (context.operands.size() != 1 || context.op.regions.empty())
    return context.error("expected one selector and the branches");
  std::vector<Instruction *> captures;
  std::vector<ConvertedRegion> branches;
  for (size_t i = 0; i < context.op.regions.size(); ++i) {
    auto branch = context.converter.convertRegion(context.op.regions[i], context.scope,
                                                  RegionParameters::Tuple,
                                                  "branch" + std::to_string(i), &captures);
    if (!branch)
      return branch.takeError();
    if (branch->returned.size() != context.op.resultTypes.size())
      return context.error("branch " + llvm::Twine(i) + " returns " +
                           llvm::Twine(branch->returned.size()) + " values, the op has " +
                           llvm::Twine(context.op.resultTypes.size()));
    branches.push_back(std::move(*branch));
  }
  for (ConvertedRegion &branch : branches)
    context.converter.finishTupleRegion(branch, captures, /*passCapturesOn=*/false);
  Instruction *selector = context.operands[0];
  if (selector->shape().rank() != 0)
    return context.error("the selector must be a scalar");
  Instruction *argument = context.tuple(captures);
  std::vector<Instruction *> operands = {selector};
  if (context.op.name == "stablehlo.if") {
    if (branches.size() != 2)
      return context.error("expected two branches");
  } else if (selector->shape().elementType() != PrimitiveType::S32) {
    selector = context.convert(selector, PrimitiveType::S32);
    operands[0] = selector;
  }
  for (size_t i = 0; i < branches.size(); ++i)
    operands.push_back(argument);
  Shape shape = branches.front().computation->root()->shape();
  Instruction *conditional = context.add(Opcode::Conditional, shape, operands);
  for (ConvertedRegion &branch : branches)
    conditional->addCalledComputation(branch.computation);
  if (context.op.resultTypes.size() == 1)
    context.results = {conditional};
  else
    splitTuple(context, conditional, context.op.resultTypes.size());
  return llvm::Error::success();
}

/// Calls `name` with the op's operands; results as the function returns them.
llvm::Error callFunction(OpContext &context, const std::string &name, const Attribute &reference) {
  std::vector<Shape> shapes;
  for (Instruction *operand : context.operands)
    shapes.push_back(operand->shape());
  auto callee = context.converter.functionFor(
      name, reference.location.isValid() ? reference.location : context.location(), shapes);
  if (!callee)
    return callee.takeError();
  size_t resultCount = context.op.resultTypes.size();
  if (resultCount == 0)
    return llvm::Error::success();
  Instruction *call = context.add(Opcode::Call, (*callee)->root()->shape(), context.operands);
  call->addCalledComputation(*callee);
  if (resultCount == 1)
    context.results = {call};
  else
    splitTuple(context, call, resultCount);
  return llvm::Error::success();
}

llvm::Error lowerCall(OpContext &context) {
  const Attribute *callee = context.attribute("callee");
  if (!callee || callee->kind != Attribute::Kind::Symbol)
    return context.error("expected callee = @name");
  // Test files' `call @inputs()` in the entry: its values become parameters.
  if (context.converter.options().liftInputs && callee->text == "inputs" &&
      context.operands.empty() && context.converter.isEntryScope(context.scope)) {
    hlo::Computation &entry = context.computation();
    for (size_t i = 0; i < context.op.resultTypes.size(); ++i) {
      Shape shape = context.resultShape(i);
      if (!shape.isValid() || shape.hasUnboundedDims())
        return context.error("unsupported input type");
      auto parameter = std::make_unique<Instruction>(Opcode::Parameter,
                                                     context.converter.freshName("input"), shape);
      parameter->mutableAttributes().parameterNumber = static_cast<int64_t>(entry.parameterCount());
      parameter->setLocation(context.location());
      context.results.push_back(entry.addInstruction(std::move(parameter)));
    }
    return llvm::Error::success();
  }
  return callFunction(context, callee->text, *callee);
}

llvm::Error lowerComposite(OpContext &context) {
  const Attribute *decomposition = context.attribute("decomposition");
  if (!decomposition || decomposition->kind != Attribute::Kind::Symbol)
    return context.error("expected decomposition = @function");
  return callFunction(context, decomposition->text, *decomposition);
}

llvm::Error lowerCustomCall(OpContext &context) {
  const Attribute *target = context.attribute("call_target_name");
  if (!target)
    return context.error("expected call_target_name");
  if (llvm::StringRef(target->text).starts_with("check."))
    return lowerCheckCustomCall(context, target->text);
  return context.unsupported("custom call target '" + target->text + "' is not supported");
}

} // namespace

void registerControlFlowLowerings(llvm::StringMap<OpLowering> &table) {
  table["stablehlo.while"] = lowerWhile;
  table["stablehlo.if"] = lowerConditional;
  table["stablehlo.case"] = lowerConditional;
  table["func.call"] = lowerCall;
  table["stablehlo.composite"] = lowerComposite;
  table["stablehlo.custom_call"] = lowerCustomCall;
}

} // namespace mote::stablehlo
