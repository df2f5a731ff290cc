//===- ShapeInferenceDataMovement.cpp - Shapes of data-movement ops --------===//
//
// broadcast, reshape, bitcast, copy, transpose, reverse, iota, slice,
// dynamic-slice, dynamic-update-slice, concatenate and pad.
//
//===----------------------------------------------------------------------===//

#include "hlo/ShapeInferenceRules.h"

namespace mote::hlo::inference {
namespace {

llvm::Error expectSingleArrayOperand(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(1))
    return error;
  return op.expectArray(0, "the operand");
}

llvm::Expected<Shape> inferBroadcast(const OpContext &op) {
  if (llvm::Error error = expectSingleArrayOperand(op))
    return std::move(error);
  auto result = op.requireDeclared("the new dimensions' sizes are not in the operands");
  if (!result)
    return result.takeError();
  const Shape &x = op.operand(0);
  if (!result->isArray())
    return op.error("expected an array result, got " + result->toString(false));
  if (result->elementType() != x.elementType())
    return op.error("result " + result->toString(false) + " and operand " + x.toString(false) +
                    " have different element types");
  const DimVector &dims = op.attributes().dimensions;
  if (static_cast<int64_t>(dims.size()) != x.rank())
    return op.error("dimensions=" + dimsToString(dims) + " has " + llvm::Twine(dims.size()) +
                    " entries but the operand has rank " + llvm::Twine(x.rank()));
  if (!allDistinct(dims))
    return op.error("dimensions=" + dimsToString(dims) + " repeats a dimension");
  for (int64_t i = 0; i < x.rank(); ++i) {
    int64_t to = dims[i];
    if (to < 0 || to >= result->rank())
      return op.error("dimension " + llvm::Twine(to) + " is out of range for result " +
                      result->toString(false));
    if (result->dim(to) != x.dim(i))
      return op.error("operand dimension " + llvm::Twine(i) + " has size " + llvm::Twine(x.dim(i)) +
                      " but result dimension " + llvm::Twine(to) + " has size " +
                      llvm::Twine(result->dim(to)));
  }
  return result;
}

llvm::Expected<Shape> inferReshape(const OpContext &op) {
  if (llvm::Error error = expectSingleArrayOperand(op))
    return std::move(error);
  auto result = op.requireDeclared("the new dimensions are not in the operands");
  if (!result)
    return result.takeError();
  const Shape &x = op.operand(0);
  if (!result->isArray())
    return op.error("expected an array result, got " + result->toString(false));
  if (result->elementType() != x.elementType())
    return op.error("result " + result->toString(false) + " and operand " + x.toString(false) +
                    " have different element types");
  if (result->elementCount() != x.elementCount())
    return op.error("cannot reshape " + x.toString(false) + " (" + llvm::Twine(x.elementCount()) +
                    " elements) to " + result->toString(false) + " (" +
                    llvm::Twine(result->elementCount()) + " elements)");
  return result;
}

llvm::Expected<Shape> inferDynamicReshape(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCountAtLeast(1))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  auto result = op.requireDeclared("the new dimensions are not in the operands");
  if (!result)
    return result.takeError();
  const Shape &x = op.operand(0);
  if (!result->isArray() || result->elementType() != x.elementType())
    return op.error("result " + result->toString(false) + " must be an array of the operand's " +
                    primitiveTypeName(x.elementType()));
  if (op.operandCount() != static_cast<size_t>(result->rank()) + 1)
    return op.error("expected " + llvm::Twine(result->rank() + 1) +
                    " operands (the operand and one size per result dimension), got " +
                    llvm::Twine(op.operandCount()));
  for (size_t i = 1; i < op.operandCount(); ++i)
    if (!op.operand(i).compatible(Shape::scalar(PrimitiveType::S32)))
      return op.error("size operand " + llvm::Twine(i) + " must be s32[], got " +
                      op.operand(i).toString(false));
  if (result->elementCount() != x.elementCount())
    return op.error("cannot reshape " + x.toString(false) + " to " + result->toString(false) +
                    ": element counts differ");
  return result;
}

llvm::Expected<Shape> inferTranspose(const OpContext &op) {
  if (llvm::Error error = expectSingleArrayOperand(op))
    return std::move(error);
  const Shape &x = op.operand(0);
  const DimVector &perm = op.attributes().dimensions;
  if (static_cast<int64_t>(perm.size()) != x.rank() || !allInRange(perm, x.rank()) ||
      !allDistinct(perm))
    return op.error("dimensions=" + dimsToString(perm) + " is not a permutation of the " +
                    llvm::Twine(x.rank()) + " dimensions of " + x.toString(false));
  DimVector dims;
  for (int64_t from : perm)
    dims.push_back(x.dim(from));
  return Shape::array(x.elementType(), dims);
}

llvm::Expected<Shape> inferReverse(const OpContext &op) {
  if (llvm::Error error = expectSingleArrayOperand(op))
    return std::move(error);
  const Shape &x = op.operand(0);
  const DimVector &dims = op.attributes().dimensions;
  if (!allDistinct(dims))
    return op.error("dimensions=" + dimsToString(dims) + " repeats a dimension");
  if (!allInRange(dims, x.rank()))
    return op.error("dimensions=" + dimsToString(dims) + " is out of range for " +
                    x.toString(false));
  return withoutLayout(x);
}

llvm::Expected<Shape> inferIota(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(0))
    return std::move(error);
  auto result = op.requireDeclared("iota's dimensions are not in the operands");
  if (!result)
    return result.takeError();
  if (!result->isArray() || result->rank() == 0)
    return op.error("expected an array result of rank at least 1, got " + result->toString(false));
  int64_t dim = op.attributes().iotaDimension;
  if (dim < 0 || dim >= result->rank())
    return op.error("iota_dimension=" + llvm::Twine(dim) + " is out of range for " +
                    result->toString(false));
  PrimitiveType type = result->elementType();
  if (!isInteger(type) && !isFloatingPoint(type) && !isComplex(type))
    return op.error("expected an integer, floating-point or complex result, got " +
                    result->toString(false));
  return result;
}

llvm::Expected<Shape> inferSlice(const OpContext &op) {
  if (llvm::Error error = expectSingleArrayOperand(op))
    return std::move(error);
  const Shape &x = op.operand(0);
  const std::vector<SliceDimension> &slice = op.attributes().slice;
  if (static_cast<int64_t>(slice.size()) != x.rank())
    return op.error("slice has " + llvm::Twine(slice.size()) +
                    " dimensions but the operand has rank " + llvm::Twine(x.rank()));
  DimVector dims;
  for (int64_t i = 0; i < x.rank(); ++i) {
    const SliceDimension &s = slice[i];
    std::string where = "slice dimension " + std::to_string(i) + " [" + std::to_string(s.start) +
                        ":" + std::to_string(s.limit) + ":" + std::to_string(s.stride) + "]";
    if (s.start < 0)
      return op.error(where + " has a negative start");
    if (s.limit > x.dim(i))
      return op.error(where + " has a limit beyond the dimension size " + llvm::Twine(x.dim(i)));
    if (s.start > s.limit)
      return op.error(where + " has a start after its limit");
    if (s.stride <= 0)
      return op.error(where + " has a non-positive stride");
    // ceil((limit - start) / stride), without overflowing for huge strides.
    int64_t span = s.limit - s.start;
    dims.push_back(span == 0 ? 0 : (span - 1) / s.stride + 1);
  }
  return Shape::array(x.elementType(), dims);
}

/// Start indices: one integer scalar per operand dimension, all the same type
/// (or, in old dumps, a single rank-1 vector of them).
llvm::Error checkStartIndices(const OpContext &op, size_t first, const Shape &operand) {
  size_t count = op.operandCount() - first;
  if (count == 1 && op.operand(first).isArray() && op.operand(first).rank() == 1) {
    const Shape &indices = op.operand(first);
    if (!isInteger(indices.elementType()))
      return op.error("start indices must be integers, got " + indices.toString(false));
    if (indices.dim(0) != operand.rank())
      return op.error("start index vector " + indices.toString(false) + " must have " +
                      llvm::Twine(operand.rank()) + " elements");
    return llvm::Error::success();
  }
  if (static_cast<int64_t>(count) != operand.rank())
    return op.error("expected " + llvm::Twine(operand.rank()) +
                    " start indices (one per operand dimension), got " + llvm::Twine(count));
  for (size_t i = first; i < op.operandCount(); ++i) {
    const Shape &index = op.operand(i);
    if (!index.isScalar() || !isInteger(index.elementType()))
      return op.error("start index operand " + llvm::Twine(i) + " must be an integer scalar, got " +
                      index.toString(false));
    if (!index.compatible(op.operand(first)))
      return op.error("start indices must all have the same type, got " +
                      op.operand(first).toString(false) + " and " + index.toString(false));
  }
  return llvm::Error::success();
}

llvm::Expected<Shape> inferDynamicSlice(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCountAtLeast(1))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  const Shape &x = op.operand(0);
  if (llvm::Error error = checkStartIndices(op, 1, x))
    return std::move(error);
  const DimVector &sizes = op.attributes().dynamicSliceSizes;
  if (static_cast<int64_t>(sizes.size()) != x.rank())
    return op.error("dynamic_slice_sizes=" + dimsToString(sizes) + " has " +
                    llvm::Twine(sizes.size()) + " entries but the operand has rank " +
                    llvm::Twine(x.rank()));
  for (int64_t i = 0; i < x.rank(); ++i)
    if (sizes[i] < 0 || sizes[i] > x.dim(i))
      return op.error("slice size " + llvm::Twine(sizes[i]) + " of dimension " + llvm::Twine(i) +
                      " must be in [0, " + llvm::Twine(x.dim(i)) + "]");
  return Shape::array(x.elementType(), sizes);
}

llvm::Expected<Shape> inferDynamicUpdateSlice(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCountAtLeast(2))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  if (llvm::Error error = op.expectArray(1, "the update"))
    return std::move(error);
  const Shape &x = op.operand(0), &update = op.operand(1);
  if (llvm::Error error = checkStartIndices(op, 2, x))
    return std::move(error);
  if (update.rank() != x.rank())
    return op.error("update " + update.toString(false) + " must have the rank of the operand " +
                    x.toString(false));
  if (!sameTypeIgnoringFpPrecision(update.elementType(), x.elementType()))
    return op.error("update " + update.toString(false) + " and operand " + x.toString(false) +
                    " have different element types");
  for (int64_t i = 0; i < x.rank(); ++i)
    if (update.dim(i) > x.dim(i))
      return op.error("update dimension " + llvm::Twine(i) + " (" + llvm::Twine(update.dim(i)) +
                      ") is larger than the operand's (" + llvm::Twine(x.dim(i)) + ")");
  return withoutLayout(x);
}

llvm::Expected<Shape> inferConcatenate(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCountAtLeast(1))
    return std::move(error);
  const DimVector &attr = op.attributes().dimensions;
  if (attr.size() != 1)
    return op.error("expected dimensions={d} with exactly one dimension");
  int64_t dim = attr[0];
  for (size_t i = 0; i < op.operandCount(); ++i)
    if (llvm::Error error = op.expectArray(i, "every operand"))
      return std::move(error);
  const Shape &first = op.operand(0);
  if (dim < 0 || dim >= first.rank())
    return op.error("dimension " + llvm::Twine(dim) + " is out of range for " +
                    first.toString(false));
  DimVector dims(first.dims().begin(), first.dims().end());
  PrimitiveType type = first.elementType();
  for (size_t i = 1; i < op.operandCount(); ++i) {
    const Shape &other = op.operand(i);
    if (other.rank() != first.rank())
      return op.error("operand " + llvm::Twine(i) + " " + other.toString(false) +
                      " has a different rank from operand 0 " + first.toString(false));
    if (!sameTypeIgnoringFpPrecision(other.elementType(), first.elementType()))
      return op.error("operand " + llvm::Twine(i) + " " + other.toString(false) +
                      " has a different element type from operand 0 " + first.toString(false));
    for (int64_t d = 0; d < first.rank(); ++d)
      if (d != dim && other.dim(d) != first.dim(d))
        return op.error("operand " + llvm::Twine(i) + " " + other.toString(false) +
                        " differs from operand 0 " + first.toString(false) + " in dimension " +
                        llvm::Twine(d) + ", which is not the concatenated one");
    std::optional<int64_t> sum = checkedAdd(dims[dim], other.dim(dim));
    if (!sum)
      return op.error("the concatenated dimension's size overflows");
    dims[dim] = *sum;
    type = higherPrecisionType(type, other.elementType());
  }
  return Shape::array(type, dims);
}

llvm::Expected<Shape> inferPad(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(2))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  const Shape &x = op.operand(0), &value = op.operand(1);
  if (!value.isScalar())
    return op.error("padding value must be a scalar, got " + value.toString(false));
  if (!sameTypeIgnoringFpPrecision(x.elementType(), value.elementType()))
    return op.error("operand " + x.toString(false) + " and padding value " + value.toString(false) +
                    " have different element types");
  const std::vector<PaddingDimension> &padding = op.attributes().padding;
  if (static_cast<int64_t>(padding.size()) != x.rank())
    return op.error("padding has " + llvm::Twine(padding.size()) +
                    " dimensions but the operand has rank " + llvm::Twine(x.rank()));
  DimVector dims;
  for (int64_t i = 0; i < x.rank(); ++i) {
    const PaddingDimension &p = padding[i];
    if (p.interior < 0)
      return op.error("interior padding of dimension " + llvm::Twine(i) + " is negative (" +
                      llvm::Twine(p.interior) + ")");
    std::optional<int64_t> size = checkedMul(std::max<int64_t>(x.dim(i) - 1, 0), p.interior);
    for (int64_t term : {x.dim(i), p.low, p.high})
      size = size ? checkedAdd(*size, term) : std::nullopt;
    if (!size)
      return op.error("padding of dimension " + llvm::Twine(i) + " makes its size overflow");
    if (*size < 0)
      return op.error("padding makes dimension " + llvm::Twine(i) + " negative (" +
                      llvm::Twine(*size) + ")");
    dims.push_back(*size);
  }
  return Shape::array(higherPrecisionType(x.elementType(), value.elementType()), dims);
}

} // namespace

llvm::Expected<Shape> inferDataMovement(const OpContext &op) {
  switch (op.instruction().opcode()) {
  case Opcode::Broadcast:
    return inferBroadcast(op);
  case Opcode::Reshape:
    return inferReshape(op);
  case Opcode::DynamicReshape:
    return inferDynamicReshape(op);
  case Opcode::Bitcast:
    if (llvm::Error error = op.expectOperandCount(1))
      return std::move(error);
    // A bitcast reinterprets the buffer: only the written shape says what as.
    return op.requireDeclared("a bitcast's shape is not derived from its operand");
  case Opcode::Copy:
    if (llvm::Error error = op.expectOperandCount(1))
      return std::move(error);
    return withoutLayout(op.operand(0));
  case Opcode::Transpose:
    return inferTranspose(op);
  case Opcode::Reverse:
    return inferReverse(op);
  case Opcode::Iota:
    return inferIota(op);
  case Opcode::Slice:
    return inferSlice(op);
  case Opcode::DynamicSlice:
    return inferDynamicSlice(op);
  case Opcode::DynamicUpdateSlice:
    return inferDynamicUpdateSlice(op);
  case Opcode::Concatenate:
    return inferConcatenate(op);
  case Opcode::Pad:
    return inferPad(op);
  default:
    return op.error("not a data-movement op");
  }
}

} // namespace mote::hlo::inference
