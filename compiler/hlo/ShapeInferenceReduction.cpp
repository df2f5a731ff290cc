//===- ShapeInferenceReduction.cpp - Shapes of ops that apply computations -===//
//
// reduce, reduce-window, select-and-scatter, sort, topk and map: ops whose
// called computation works on scalars and must have the matching signature.
//
//===----------------------------------------------------------------------===//

#include "hlo/ShapeInferenceRules.h"

#include "llvm/ADT/STLExtras.h"

namespace mote::hlo::inference {
namespace {

/// Operands 0..n-1 are arrays with the dimensions of operand 0.
llvm::Error checkSameDimensions(const OpContext &op, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (llvm::Error error = op.expectArray(i, "operand " + std::to_string(i)))
      return error;
    if (i > 0 && !sameDims(op.operand(i), op.operand(0)))
      return op.error("operand " + llvm::Twine(i) + " " + op.operand(i).toString(false) +
                      " must have the dimensions of operand 0 " + op.operand(0).toString(false));
  }
  return llvm::Error::success();
}

/// Splits N inputs + N init values and checks the reducer against them.
llvm::Expected<ProgramShape> checkInputsAndReducer(const OpContext &op, size_t &inputs) {
  size_t count = op.operandCount();
  if (count < 2 || count % 2 != 0)
    return op.error("expected an even number of operands (N inputs then N init values), got " +
                    llvm::Twine(count));
  inputs = count / 2;
  if (llvm::Error error = checkSameDimensions(op, inputs))
    return std::move(error);
  if (llvm::Error error = op.expectCalleeCount(1))
    return std::move(error);
  auto reducer = op.callee(0, "to_apply");
  if (!reducer)
    return reducer.takeError();
  llvm::SmallVector<const Shape *, 4> inits;
  llvm::SmallVector<PrimitiveType, 4> types;
  for (size_t i = 0; i < inputs; ++i) {
    inits.push_back(&op.operand(inputs + i));
    types.push_back(op.operand(i).elementType());
  }
  if (llvm::Error error = checkReducer(op, *reducer, inits, types, "to_apply"))
    return std::move(error);
  return reducer;
}

/// The reducer's result types, one per input.
llvm::SmallVector<PrimitiveType, 4> resultTypes(const ProgramShape &reducer) {
  llvm::SmallVector<PrimitiveType, 4> types;
  if (reducer.result.isTuple()) {
    for (const Shape &element : reducer.result.tupleElements())
      types.push_back(element.elementType());
  } else {
    types.push_back(reducer.result.elementType());
  }
  return types;
}

Shape arrayOrTuple(const ProgramShape &reducer, std::vector<Shape> results) {
  if (!reducer.result.isTuple())
    return results.front();
  return Shape::tuple(std::move(results));
}

llvm::Expected<Shape> inferReduce(const OpContext &op) {
  size_t inputs = 0;
  auto reducer = checkInputsAndReducer(op, inputs);
  if (!reducer)
    return reducer.takeError();
  const Shape &x = op.operand(0);
  const DimVector &reduced = op.attributes().dimensions;
  if (!allInRange(reduced, x.rank()))
    return op.error("dimensions=" + dimsToString(reduced) + " is out of range for " +
                    x.toString(false));
  if (!allDistinct(reduced))
    return op.error("dimensions=" + dimsToString(reduced) + " repeats a dimension");
  DimVector dims;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (!llvm::is_contained(reduced, d))
      dims.push_back(x.dim(d));
  std::vector<Shape> results;
  for (PrimitiveType type : resultTypes(*reducer))
    results.push_back(Shape::array(type, dims));
  return arrayOrTuple(*reducer, std::move(results));
}

llvm::Expected<Shape> inferReduceWindow(const OpContext &op) {
  size_t inputs = 0;
  auto reducer = checkInputsAndReducer(op, inputs);
  if (!reducer)
    return reducer.takeError();
  std::vector<Shape> results;
  for (size_t i = 0; i < inputs; ++i) {
    auto shape = windowOutputShape(op, op.operand(i), op.attributes().window,
                                   op.operand(inputs + i).elementType());
    if (!shape)
      return shape.takeError();
    results.push_back(std::move(*shape));
  }
  return arrayOrTuple(*reducer, std::move(results));
}

llvm::Expected<Shape> inferSelectAndScatter(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(3))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  if (llvm::Error error = op.expectArray(1, "the source"))
    return std::move(error);
  if (llvm::Error error = op.expectCalleeCount(2))
    return std::move(error);
  const Shape &x = op.operand(0), &source = op.operand(1), &init = op.operand(2);
  auto select = op.callee(0, "select");
  if (!select)
    return select.takeError();
  if (select->parameters.size() != 2)
    return op.error("select must take 2 parameters, takes " +
                    llvm::Twine(select->parameters.size()));
  if (!select->result.compatible(Shape::scalar(PrimitiveType::Pred)))
    return op.error("select must return pred[], returns " + select->result.toString(false));
  for (const Shape &parameter : select->parameters)
    if (!parameter.isScalar() ||
        !sameTypeIgnoringFpPrecision(parameter.elementType(), x.elementType()))
      return op.error("select parameters must be scalars of the operand's " +
                      primitiveTypeName(x.elementType()) + ", got " + parameter.toString(false));
  auto scatter = op.callee(1, "scatter");
  if (!scatter)
    return scatter.takeError();
  const Shape *inits[] = {&init};
  PrimitiveType types[] = {source.elementType()};
  if (llvm::Error error = checkReducer(op, *scatter, inits, types, "scatter"))
    return std::move(error);
  auto windowed = windowOutputShape(op, x, op.attributes().window, x.elementType());
  if (!windowed)
    return windowed.takeError();
  if (!sameDims(*windowed, source) ||
      !sameTypeIgnoringFpPrecision(windowed->elementType(), source.elementType()))
    return op.error("source " + source.toString(false) + " must match the windowed operand " +
                    windowed->toString(false));
  return withoutLayout(x);
}

/// A comparator of 2N scalars (two per operand) returning pred[].
llvm::Error checkComparator(const OpContext &op, const ProgramShape &comparator) {
  size_t n = op.operandCount();
  if (comparator.parameters.size() != 2 * n)
    return op.error("comparator must take " + llvm::Twine(2 * n) + " parameters, takes " +
                    llvm::Twine(comparator.parameters.size()));
  if (!comparator.result.compatible(Shape::scalar(PrimitiveType::Pred)))
    return op.error("comparator must return pred[], returns " + comparator.result.toString(false));
  for (size_t i = 0; i < 2 * n; ++i) {
    const Shape &parameter = comparator.parameters[i];
    PrimitiveType expected = op.operand(i / 2).elementType();
    if (!parameter.isScalar() || !sameTypeIgnoringFpPrecision(parameter.elementType(), expected))
      return op.error("comparator parameter " + llvm::Twine(i) + " must be " +
                      primitiveTypeName(expected) + "[], got " + parameter.toString(false));
  }
  return llvm::Error::success();
}

llvm::Expected<Shape> inferSort(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCountAtLeast(1))
    return std::move(error);
  if (llvm::Error error = checkSameDimensions(op, op.operandCount()))
    return std::move(error);
  const DimVector &dimension = op.attributes().dimensions;
  if (dimension.size() != 1)
    return op.error("expected dimensions={d} with exactly one dimension");
  if (dimension[0] < 0 || dimension[0] >= op.operand(0).rank())
    return op.error("sort dimension " + llvm::Twine(dimension[0]) + " is out of range for " +
                    op.operand(0).toString(false));
  if (llvm::Error error = op.expectCalleeCount(1))
    return std::move(error);
  auto comparator = op.callee(0, "to_apply");
  if (!comparator)
    return comparator.takeError();
  if (llvm::Error error = checkComparator(op, *comparator))
    return std::move(error);
  if (op.operandCount() == 1)
    return withoutLayout(op.operand(0));
  std::vector<Shape> results;
  for (size_t i = 0; i < op.operandCount(); ++i)
    results.push_back(withoutLayout(op.operand(i)));
  return Shape::tuple(std::move(results));
}

llvm::Expected<Shape> inferTopK(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(1))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  const Shape &x = op.operand(0);
  int64_t k = op.attributes().k;
  if (x.rank() < 1)
    return op.error("the operand must have rank at least 1, got " + x.toString(false));
  if (k < 0 || k > x.dim(x.rank() - 1))
    return op.error("k=" + llvm::Twine(k) + " must be within [0, " +
                    llvm::Twine(x.dim(x.rank() - 1)) + "], the operand's last dimension");
  DimVector dims(x.dims().begin(), x.dims().end());
  dims.back() = k;
  return Shape::tuple(
      {Shape::array(x.elementType(), dims), Shape::array(PrimitiveType::S32, dims)});
}

llvm::Expected<Shape> inferMap(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCountAtLeast(1))
    return std::move(error);
  if (llvm::Error error = checkSameDimensions(op, op.operandCount()))
    return std::move(error);
  if (llvm::Error error = op.expectCalleeCount(1))
    return std::move(error);
  auto mapped = op.callee(0, "to_apply");
  if (!mapped)
    return mapped.takeError();
  if (mapped->parameters.size() != op.operandCount())
    return op.error("to_apply takes " + llvm::Twine(mapped->parameters.size()) +
                    " parameters but map has " + llvm::Twine(op.operandCount()) + " operands");
  if (!mapped->result.isScalar())
    return op.error("to_apply must return a scalar, returns " + mapped->result.toString(false));
  for (size_t i = 0; i < mapped->parameters.size(); ++i) {
    const Shape &parameter = mapped->parameters[i];
    PrimitiveType expected = op.operand(i).elementType();
    if (!parameter.isScalar() || !sameTypeIgnoringFpPrecision(parameter.elementType(), expected))
      return op.error("to_apply parameter " + llvm::Twine(i) + " must be " +
                      primitiveTypeName(expected) + "[], got " + parameter.toString(false));
  }
  return Shape::array(mapped->result.elementType(), op.operand(0).dims());
}

} // namespace

llvm::Expected<Shape> inferReduction(const OpContext &op) {
  switch (op.instruction().opcode()) {
  case Opcode::Reduce:
    return inferReduce(op);
  case Opcode::ReduceWindow:
    return inferReduceWindow(op);
  case Opcode::SelectAndScatter:
    return inferSelectAndScatter(op);
  case Opcode::Sort:
    return inferSort(op);
  case Opcode::TopK:
    return inferTopK(op);
  default:
    return inferMap(op);
  }
}

} // namespace mote::hlo::inference
