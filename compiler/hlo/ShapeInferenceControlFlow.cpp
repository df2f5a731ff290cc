//===- ShapeInferenceControlFlow.cpp - Shapes of calls, tuples and tokens --===//
//
// tuple, get-tuple-element, call, fusion, while, conditional, custom-call,
// token plumbing, dimension-size queries and random number generation.
//
//===----------------------------------------------------------------------===//

#include "hlo/ShapeInferenceRules.h"

namespace mote::hlo::inference {
namespace {

llvm::Expected<Shape> inferTuple(const OpContext &op) {
  std::vector<Shape> elements;
  for (size_t i = 0; i < op.operandCount(); ++i)
    elements.push_back(withoutLayout(op.operand(i)));
  return Shape::tuple(std::move(elements));
}

llvm::Expected<Shape> inferGetTupleElement(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(1))
    return std::move(error);
  const Shape &tuple = op.operand(0);
  if (!tuple.isTuple())
    return op.error("expected a tuple operand, got " + tuple.toString(false));
  int64_t index = op.attributes().tupleIndex;
  if (index < 0 || index >= static_cast<int64_t>(tuple.tupleSize()))
    return op.error("index=" + llvm::Twine(index) + " is out of range for " +
                    tuple.toString(false));
  return withoutLayout(tuple.tupleElement(index));
}

/// Operand `operand` must fit parameter `parameter` of `callee` exactly.
llvm::Error checkArgument(const OpContext &op, const ProgramShape &callee, llvm::StringRef role,
                          size_t parameter, size_t operand) {
  if (callee.parameters[parameter].compatible(op.operand(operand)))
    return llvm::Error::success();
  return op.error(role + " parameter " + llvm::Twine(parameter) + " has shape " +
                  callee.parameters[parameter].toString(false) + " but operand " +
                  llvm::Twine(operand) + " has shape " + op.operand(operand).toString(false));
}

llvm::Expected<Shape> inferCall(const OpContext &op) {
  if (llvm::Error error = op.expectCalleeCount(1))
    return std::move(error);
  bool fusion = op.instruction().opcode() == Opcode::Fusion;
  llvm::StringRef role = fusion ? "fused" : "to_apply";
  auto callee = op.callee(0, role);
  if (!callee)
    return callee.takeError();
  size_t parameters = callee->parameters.size();
  // A fused computation may leave trailing operands unused, as XLA allows.
  if (fusion ? parameters > op.operandCount() : parameters != op.operandCount())
    return op.error(role + " computation takes " + llvm::Twine(parameters) +
                    " parameters but there are " + llvm::Twine(op.operandCount()) + " operands");
  for (size_t i = 0; i < parameters; ++i)
    if (llvm::Error error = checkArgument(op, *callee, role, i, i))
      return std::move(error);
  return callee->result;
}

llvm::Expected<Shape> inferWhile(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(1))
    return std::move(error);
  if (llvm::Error error = op.expectCalleeCount(2))
    return std::move(error);
  auto condition = op.callee(0, "condition");
  if (!condition)
    return condition.takeError();
  auto body = op.callee(1, "body");
  if (!body)
    return body.takeError();
  if (condition->parameters.size() != 1)
    return op.error("condition must take 1 parameter, takes " +
                    llvm::Twine(condition->parameters.size()));
  if (body->parameters.size() != 1)
    return op.error("body must take 1 parameter, takes " + llvm::Twine(body->parameters.size()));
  if (llvm::Error error = checkArgument(op, *condition, "condition", 0, 0))
    return std::move(error);
  if (llvm::Error error = checkArgument(op, *body, "body", 0, 0))
    return std::move(error);
  if (!condition->result.compatible(Shape::scalar(PrimitiveType::Pred)))
    return op.error("condition must return pred[], returns " + condition->result.toString(false));
  if (!body->result.compatible(op.operand(0)))
    return op.error("body returns " + body->result.toString(false) + " but the loop state is " +
                    op.operand(0).toString(false));
  return withoutLayout(op.operand(0));
}

llvm::Expected<Shape> inferConditional(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCountAtLeast(1))
    return std::move(error);
  const Shape &selector = op.operand(0);
  size_t branches = op.instruction().calledComputations().size();
  if (selector.compatible(Shape::scalar(PrimitiveType::Pred))) {
    if (branches != 2)
      return op.error("a pred selector needs 2 branches (true, false), got " +
                      llvm::Twine(branches));
  } else if (selector.compatible(Shape::scalar(PrimitiveType::S32))) {
    if (branches < 1)
      return op.error("an s32 selector needs at least 1 branch");
  } else {
    return op.error("the selector must be pred[] or s32[], got " + selector.toString(false));
  }
  if (op.operandCount() != branches + 1)
    return op.error("expected " + llvm::Twine(branches + 1) +
                    " operands (the selector and one per branch), got " +
                    llvm::Twine(op.operandCount()));
  Shape result;
  for (size_t j = 0; j < branches; ++j) {
    std::string role = "branch " + std::to_string(j);
    auto branch = op.callee(j, role);
    if (!branch)
      return branch.takeError();
    if (branch->parameters.size() != 1)
      return op.error(role + " must take 1 parameter, takes " +
                      llvm::Twine(branch->parameters.size()));
    if (llvm::Error error = checkArgument(op, *branch, role, 0, j + 1))
      return std::move(error);
    if (j == 0)
      result = branch->result;
    else if (!branch->result.compatible(result))
      return op.error(role + " returns " + branch->result.toString(false) +
                      " but branch 0 returns " + result.toString(false));
  }
  return result;
}

llvm::Expected<Shape> inferDimensionSize(const OpContext &op) {
  bool set = op.instruction().opcode() == Opcode::SetDimensionSize;
  if (llvm::Error error = op.expectOperandCount(set ? 2 : 1))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  const Shape &x = op.operand(0);
  const DimVector &attr = op.attributes().dimensions;
  if (attr.size() != 1)
    return op.error("expected dimensions={d} with exactly one dimension");
  int64_t dim = attr[0];
  if (dim < 0 || dim >= x.rank())
    return op.error("dimension " + llvm::Twine(dim) + " is out of range for " + x.toString(false));
  if (!set)
    return Shape::scalar(PrimitiveType::S32);
  if (!op.operand(1).compatible(Shape::scalar(PrimitiveType::S32)))
    return op.error("the size must be s32[], got " + op.operand(1).toString(false));
  Shape result = withoutLayout(x);
  result.setDynamicDim(dim, true);
  return result;
}

llvm::Expected<Shape> inferRng(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(2))
    return std::move(error);
  const Shape &a = op.operand(0), &b = op.operand(1);
  if (!a.isScalar() || !b.isScalar())
    return op.error("both operands must be scalars, got " + a.toString(false) + " and " +
                    b.toString(false));
  if (a.elementType() != b.elementType())
    return op.error("operands " + a.toString(false) + " and " + b.toString(false) +
                    " have different element types");
  PrimitiveType type = a.elementType();
  if (op.attributes().distribution == RandomDistribution::Normal) {
    if (!isFloatingPoint(type))
      return op.error("rng_normal needs floating-point operands, got " + a.toString(false));
  } else if (!isFloatingPoint(type) && !isInteger(type) && type != PrimitiveType::Pred) {
    return op.error("rng_uniform needs floating-point, integer or pred operands, got " +
                    a.toString(false));
  }
  auto declared = op.requireDeclared("the result dimensions are not in the operands");
  if (!declared)
    return declared.takeError();
  if (!declared->isArray())
    return op.error("expected an array result, got " + declared->toString(false));
  return Shape::array(type, declared->dims());
}

llvm::Expected<Shape> inferRngBitGenerator(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(1))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the state"))
    return std::move(error);
  auto declared = op.requireDeclared("the output dimensions are not in the operands");
  if (!declared)
    return declared.takeError();
  // Like XLA, a result written as a bare array is taken as it is; the
  // evaluator decides whether it can run it.
  if (declared->isArray())
    return declared;
  if (!declared->isTuple() || declared->tupleSize() != 2)
    return op.error("expected a (state, values) tuple result, got " + declared->toString(false));
  if (!declared->tupleElement(0).compatible(op.operand(0)))
    return op.error("result state " + declared->tupleElement(0).toString(false) +
                    " must match the input state " + op.operand(0).toString(false));
  const Shape &values = declared->tupleElement(1);
  if (!values.isArray() ||
      (!isInteger(values.elementType()) && !isFloatingPoint(values.elementType())))
    return op.error("expected integer or floating-point values, got " + values.toString(false));
  return declared;
}

} // namespace

llvm::Expected<Shape> inferControlFlow(const OpContext &op) {
  switch (op.instruction().opcode()) {
  case Opcode::Tuple:
    return inferTuple(op);
  case Opcode::GetTupleElement:
    return inferGetTupleElement(op);
  case Opcode::Call:
  case Opcode::Fusion:
    return inferCall(op);
  case Opcode::While:
    return inferWhile(op);
  case Opcode::Conditional:
    return inferConditional(op);
  case Opcode::CustomCall:
    return op.requireDeclared("a custom call's result is whatever its target makes");
  case Opcode::AfterAll:
    for (size_t i = 0; i < op.operandCount(); ++i)
      if (!op.operand(i).isToken())
        return op.error("operand " + llvm::Twine(i) + " must be a token, got " +
                        op.operand(i).toString(false));
    return Shape::token();
  case Opcode::AddDependency:
    if (llvm::Error error = op.expectOperandCount(2))
      return std::move(error);
    if (!op.operand(1).isToken())
      return op.error("operand 1 must be a token, got " + op.operand(1).toString(false));
    return withoutLayout(op.operand(0));
  case Opcode::OptimizationBarrier:
  case Opcode::Domain:
    if (llvm::Error error = op.expectOperandCount(1))
      return std::move(error);
    return withoutLayout(op.operand(0));
  case Opcode::PartitionId:
  case Opcode::ReplicaId:
    if (llvm::Error error = op.expectOperandCount(0))
      return std::move(error);
    return Shape::scalar(PrimitiveType::U32);
  case Opcode::GetDimensionSize:
  case Opcode::SetDimensionSize:
    return inferDimensionSize(op);
  case Opcode::Rng:
    return inferRng(op);
  case Opcode::RngBitGenerator:
    return inferRngBitGenerator(op);
  case Opcode::RngGetAndUpdateState:
    if (llvm::Error error = op.expectOperandCount(0))
      return std::move(error);
    return Shape::array(PrimitiveType::U64, {2});
  default:
    return op.error("not a control-flow op");
  }
}

} // namespace mote::hlo::inference
