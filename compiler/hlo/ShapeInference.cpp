//===- ShapeInference.cpp - Result shapes of HLO ops -----------------------===//
//
// The entry point and the helpers shared by the per-family rule files.
//
//===----------------------------------------------------------------------===//

#include "hlo/ShapeInference.h"

#include "hlo/Diagnostics.h"
#include "hlo/ShapeInferenceRules.h"

#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/raw_ostream.h"

#include <tuple>

namespace mote::hlo {
namespace inference {

llvm::Error OpContext::error(const llvm::Twine &message) const {
  return errorAt(instruction_, opName() + ": " + message);
}

llvm::Error OpContext::expectOperandCount(size_t expected) const {
  if (operandCount() == expected)
    return llvm::Error::success();
  return error("expected " + llvm::Twine(expected) + " operand" + (expected == 1 ? "" : "s") +
               ", got " + llvm::Twine(operandCount()));
}

llvm::Error OpContext::expectOperandCountAtLeast(size_t minimum) const {
  if (operandCount() >= minimum)
    return llvm::Error::success();
  return error("expected at least " + llvm::Twine(minimum) + " operand" +
               (minimum == 1 ? "" : "s") + ", got " + llvm::Twine(operandCount()));
}

llvm::Error OpContext::expectArray(size_t i, llvm::StringRef role) const {
  if (operand(i).isArray())
    return llvm::Error::success();
  return error("expected " + role + " to be an array, got " + operand(i).toString(false));
}

llvm::Expected<Shape> OpContext::requireDeclared(llvm::StringRef why) const {
  if (const Shape *shape = declared())
    return withoutLayout(*shape);
  return error("needs an explicit result shape (" + why + ")");
}

llvm::Expected<PrimitiveType> OpContext::requireDeclaredArrayType() const {
  const Shape *shape = declared();
  if (!shape)
    return error("needs an explicit result shape to know the result element type");
  if (!shape->isArray())
    return error("expected an array result shape, got " + shape->toString(false));
  return shape->elementType();
}

llvm::Error OpContext::expectCalleeCount(size_t expected) const {
  size_t count = instruction_.calledComputations().size();
  if (count == expected)
    return llvm::Error::success();
  return error("expected " + llvm::Twine(expected) + " called computation" +
               (expected == 1 ? "" : "s") + ", got " + llvm::Twine(count));
}

llvm::Expected<ProgramShape> OpContext::callee(size_t index, llvm::StringRef role) const {
  if (index >= instruction_.calledComputations().size() || !instruction_.calledComputation(index))
    return error("missing " + role + " computation");
  const Computation &computation = *instruction_.calledComputation(index);
  std::string named = (role + " computation %" + computation.name()).str();
  if (!computation.root())
    return error(named + " has no root instruction");
  ProgramShape signature;
  for (size_t i = 0; i < computation.parameterCount(); ++i) {
    const Instruction *parameter = computation.parameter(i);
    if (!parameter)
      return error(named + " has no parameter number " + llvm::Twine(i));
    if (!parameter->shape().isValid())
      return error(named + " parameter " + llvm::Twine(i) + " has no shape");
    signature.parameters.push_back(withoutLayout(parameter->shape()));
  }
  if (!computation.root()->shape().isValid())
    return error(named + " root has no shape");
  signature.result = withoutLayout(computation.root()->shape());
  return signature;
}

std::string dimsToString(llvm::ArrayRef<int64_t> dims) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '{';
  for (size_t i = 0; i < dims.size(); ++i)
    os << (i ? "," : "") << dims[i];
  os << '}';
  return text;
}

Shape withoutLayout(const Shape &shape) {
  Shape copy = shape;
  if (copy.isTuple()) {
    for (Shape &element : copy.mutableTupleElements())
      element = withoutLayout(element);
  } else {
    copy.setLayout(std::nullopt);
  }
  return copy;
}

bool sameTypeIgnoringFpPrecision(PrimitiveType a, PrimitiveType b) {
  return a == b || (isFloatingPoint(a) && isFloatingPoint(b));
}

/// Exponent and significand bits of a floating-point type; zeros otherwise.
static std::pair<int, int> floatFormat(PrimitiveType type) {
  switch (type) {
  case PrimitiveType::F64:
    return {11, 53};
  case PrimitiveType::F32:
    return {8, 24};
  case PrimitiveType::BF16:
    return {8, 8};
  case PrimitiveType::F16:
    return {5, 11};
  case PrimitiveType::F8E5M2:
  case PrimitiveType::F8E5M2FNUZ:
    return {5, 3};
  case PrimitiveType::F8E3M4:
    return {3, 5};
  case PrimitiveType::F8E8M0FNU:
    return {8, 1};
  case PrimitiveType::F6E2M3FN:
    return {2, 4};
  case PrimitiveType::F6E3M2FN:
    return {3, 3};
  case PrimitiveType::F4E2M1FN:
    return {2, 2};
  default:
    return isF8(type) ? std::pair{4, 4} : std::pair{0, 0};
  }
}

/// XLA's order of precision: complex first, then floating-point range, then
/// floating-point precision, then width, then signedness.
static std::tuple<bool, int, int, int, bool> precisionRank(PrimitiveType type) {
  PrimitiveType component = isComplex(type) ? complexComponentType(type) : type;
  auto [exponent, significand] = floatFormat(component);
  return {isComplex(type), isFloatingPoint(component) ? exponent : -1,
          isFloatingPoint(component) ? significand : -1, bitWidth(component),
          isSignedInteger(component)};
}

PrimitiveType higherPrecisionType(PrimitiveType a, PrimitiveType b) {
  return precisionRank(b) > precisionRank(a) ? b : a;
}

bool sameDims(const Shape &a, const Shape &b) {
  return a.isArray() && b.isArray() && a.dims() == b.dims();
}

bool compatibleIgnoringFpPrecision(const Shape &a, const Shape &b) {
  if (a.isTuple() || b.isTuple()) {
    if (!a.isTuple() || !b.isTuple() || a.tupleSize() != b.tupleSize())
      return false;
    for (size_t i = 0; i < a.tupleSize(); ++i)
      if (!compatibleIgnoringFpPrecision(a.tupleElement(i), b.tupleElement(i)))
        return false;
    return true;
  }
  if (a.isArray() && b.isArray())
    return sameTypeIgnoringFpPrecision(a.elementType(), b.elementType()) && a.dims() == b.dims();
  return a.compatible(b);
}

bool allDistinct(llvm::ArrayRef<int64_t> values) {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t value : values)
    if (!seen.insert(value).second)
      return false;
  return true;
}

bool allInRange(llvm::ArrayRef<int64_t> values, int64_t bound) {
  for (int64_t value : values)
    if (value < 0 || value >= bound)
      return false;
  return true;
}

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) { return llvm::checkedAdd(a, b); }

std::optional<int64_t> checkedMul(int64_t a, int64_t b) { return llvm::checkedMul(a, b); }

/// Size of `size` elements after inserting `dilation - 1` holes between them.
static std::optional<int64_t> dilatedBound(int64_t size, int64_t dilation) {
  if (size == 0)
    return 0;
  std::optional<int64_t> spread = checkedMul(size - 1, dilation);
  return spread ? checkedAdd(*spread, 1) : std::nullopt;
}

llvm::Expected<Shape> windowOutputShape(const OpContext &op, const Shape &base,
                                        const Window &window, PrimitiveType type) {
  if (static_cast<int64_t>(window.size()) != base.rank())
    return op.error("window has " + llvm::Twine(window.size()) +
                    " dimensions but the operand has rank " + llvm::Twine(base.rank()));
  DimVector dims;
  for (size_t i = 0; i < window.size(); ++i) {
    const WindowDimension &w = window[i];
    std::string where = "window dimension " + std::to_string(i);
    if (w.size <= 0)
      return op.error(where + " has non-positive size " + llvm::Twine(w.size));
    if (w.stride <= 0)
      return op.error(where + " has non-positive stride " + llvm::Twine(w.stride));
    if (w.baseDilation < 1 || w.windowDilation < 1)
      return op.error(where + " has a dilation factor below 1");
    std::optional<int64_t> dilatedBase = dilatedBound(base.dim(i), w.baseDilation);
    std::optional<int64_t> padded =
        dilatedBase ? checkedAdd(*dilatedBase, w.paddingLow) : std::nullopt;
    padded = padded ? checkedAdd(*padded, w.paddingHigh) : std::nullopt;
    std::optional<int64_t> window = dilatedBound(w.size, w.windowDilation);
    if (!padded || !window)
      return op.error(where + " makes sizes overflow");
    // XLA's StridedBound: no output when the window does not fit at all.
    int64_t out = (*padded <= 0 || *window > *padded) ? 0 : (*padded - *window) / w.stride + 1;
    dims.push_back(out);
  }
  return Shape::array(type, dims);
}

llvm::Error checkReducer(const OpContext &op, const ProgramShape &reducer,
                         llvm::ArrayRef<const Shape *> initShapes,
                         llvm::ArrayRef<PrimitiveType> inputTypes, llvm::StringRef role) {
  size_t inputs = inputTypes.size();
  if (reducer.parameters.size() != 2 * inputs)
    return op.error(role + " must take " + llvm::Twine(2 * inputs) + " parameters, takes " +
                    llvm::Twine(reducer.parameters.size()));
  llvm::SmallVector<const Shape *, 4> accumulators;
  if (reducer.result.isTuple()) {
    if (reducer.result.tupleSize() != inputs)
      return op.error(role + " must return " +
                      (inputs == 1 ? std::string("a scalar")
                                   : "a tuple of " + std::to_string(inputs) + " scalars") +
                      ", returns " + reducer.result.toString(false));
    for (const Shape &element : reducer.result.tupleElements())
      accumulators.push_back(&element);
  } else if (reducer.result.isArray() && inputs == 1) {
    accumulators.push_back(&reducer.result);
  } else {
    return op.error(role + " must return a tuple of " + llvm::Twine(inputs) + " scalars, returns " +
                    reducer.result.toString(false));
  }
  for (const Shape *accumulator : accumulators)
    if (!accumulator->isScalar())
      return op.error(role + " must return scalars, returns " + reducer.result.toString(false));
  for (size_t i = 0; i < inputs; ++i) {
    const Shape &accumulator = *accumulators[i];
    if (!reducer.parameters[i].compatible(accumulator))
      return op.error(role + " parameter " + llvm::Twine(i) + " has shape " +
                      reducer.parameters[i].toString(false) + " but its result " + llvm::Twine(i) +
                      " is " + accumulator.toString(false));
    if (!compatibleIgnoringFpPrecision(accumulator, *initShapes[i]))
      return op.error(role + " result " + llvm::Twine(i) + " is " + accumulator.toString(false) +
                      " but init value " + llvm::Twine(i) + " is " +
                      initShapes[i]->toString(false));
    const Shape &input = reducer.parameters[inputs + i];
    if (!input.isScalar() || !sameTypeIgnoringFpPrecision(input.elementType(), inputTypes[i]))
      return op.error(role + " parameter " + llvm::Twine(inputs + i) + " has shape " +
                      input.toString(false) + " but input " + llvm::Twine(i) +
                      " has element type " + primitiveTypeName(inputTypes[i]));
    if (!sameTypeIgnoringFpPrecision(input.elementType(), accumulator.elementType()))
      return op.error(role + " parameter " + llvm::Twine(inputs + i) + " has shape " +
                      input.toString(false) + " but the accumulator is " +
                      accumulator.toString(false));
  }
  return llvm::Error::success();
}

/// Parameters, constants, custom calls and collectives: the text says the shape.
static llvm::Expected<Shape> inferLeaf(const OpContext &op) {
  const Instruction &instruction = op.instruction();
  if (instruction.opcode() == Opcode::Constant) {
    if (llvm::Error error = op.expectOperandCount(0))
      return std::move(error);
    if (const auto &literal = instruction.attributes().literal; literal && literal->isValid())
      return withoutLayout(literal->shape());
    return op.requireDeclared("its value is elided");
  }
  if (instruction.opcode() == Opcode::Parameter) {
    if (llvm::Error error = op.expectOperandCount(0))
      return std::move(error);
    if (instruction.attributes().parameterNumber < 0)
      return op.error("negative parameter number " +
                      llvm::Twine(instruction.attributes().parameterNumber));
    return op.requireDeclared("a parameter's shape cannot be inferred");
  }
  // Collectives and host transfers are rejected later by the evaluator;
  // their shapes are taken as written.
  return op.requireDeclared("the shape of " + op.opName().str() + " is not inferred");
}

static llvm::Expected<Shape> dispatch(const OpContext &op) {
  switch (op.instruction().opcode()) {
  case Opcode::Parameter:
  case Opcode::Constant:
    return inferLeaf(op);
  case Opcode::BitcastConvert:
    return inferElementwise(op);
  case Opcode::Bitcast:
  case Opcode::Broadcast:
  case Opcode::Concatenate:
  case Opcode::Copy:
  case Opcode::DynamicReshape:
  case Opcode::DynamicSlice:
  case Opcode::DynamicUpdateSlice:
  case Opcode::Pad:
  case Opcode::Reshape:
  case Opcode::Reverse:
  case Opcode::Slice:
  case Opcode::Transpose:
  case Opcode::Iota:
    return inferDataMovement(op);
  case Opcode::Gather:
  case Opcode::Scatter:
    return inferGatherScatter(op);
  case Opcode::Dot:
  case Opcode::Convolution:
    return inferContraction(op);
  case Opcode::BatchNormGrad:
  case Opcode::BatchNormInference:
  case Opcode::BatchNormTraining:
  case Opcode::Cholesky:
  case Opcode::TriangularSolve:
  case Opcode::Fft:
    return inferLinearAlgebra(op);
  case Opcode::Reduce:
  case Opcode::ReduceWindow:
  case Opcode::SelectAndScatter:
  case Opcode::Sort:
  case Opcode::TopK:
  case Opcode::Map:
    return inferReduction(op);
  case Opcode::Tuple:
  case Opcode::GetTupleElement:
  case Opcode::Call:
  case Opcode::Conditional:
  case Opcode::While:
  case Opcode::Fusion:
  case Opcode::CustomCall:
  case Opcode::AfterAll:
  case Opcode::AddDependency:
  case Opcode::OptimizationBarrier:
  case Opcode::Domain:
  case Opcode::PartitionId:
  case Opcode::ReplicaId:
  case Opcode::GetDimensionSize:
  case Opcode::SetDimensionSize:
  case Opcode::Rng:
  case Opcode::RngBitGenerator:
  case Opcode::RngGetAndUpdateState:
    return inferControlFlow(op);
  default:
    break;
  }
  if (isMultiDevice(op.instruction().opcode()))
    return inferLeaf(op);
  return inferElementwise(op);
}

} // namespace inference

llvm::Expected<Shape> inferShape(const Instruction &instruction) {
  for (size_t i = 0; i < instruction.operandCount(); ++i) {
    const Instruction *operand = instruction.operand(i);
    if (!operand)
      return errorAt(instruction, "operand " + llvm::Twine(i) + " is missing");
    if (!operand->shape().isValid())
      return errorAt(instruction,
                     "operand " + llvm::Twine(i) + " (%" + operand->name() + ") has no shape");
  }
  return inference::dispatch(inference::OpContext(instruction));
}

} // namespace mote::hlo
