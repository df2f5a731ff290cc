//===- SliceOps.cpp - slice, dynamic-(update-)slice, concatenate, pad -----===//
//
// Dynamic start indices are clamped into range exactly as XLA does:
// start = clamp(start, 0, operand_dim - slice_dim), so a slice never reads
// or writes outside the operand. pad accepts negative low/high padding,
// which removes elements from that edge.
//
//===----------------------------------------------------------------------===//

#include "eval/OperandChecks.h"
#include "eval/StridedCopy.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace mote::eval {

using hlo::errorAt;
using hlo::PrimitiveType;

namespace {

int64_t floorDiv(int64_t a, int64_t b) { // b > 0
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/// An integer index element; unsigned values above INT64_MAX saturate (they
/// get clamped to the last valid start anyway).
int64_t readIndex(const hlo::Literal &index, int64_t linear) {
  if (hlo::isUnsignedInteger(index.shape().elementType())) {
    uint64_t value = index.getAsUint64(linear);
    return value > uint64_t(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(value);
  }
  return index.getAsInt64(linear);
}

/// Reads the start indices that follow the first `leading` operands: one
/// integer scalar per dimension, or (older HLO) a single rank-1 array.
llvm::Expected<Index> readStartIndices(const hlo::Instruction &instruction, Operands operands,
                                       size_t leading, int64_t rank) {
  llvm::ArrayRef<const hlo::Literal *> indices = operands.drop_front(leading);
  Index starts;
  auto bad = [&]() {
    return errorAt(instruction, "expected " + llvm::Twine(rank) +
                                    " integer start indices after the first " +
                                    llvm::Twine(leading) + " operand(s)");
  };
  for (const hlo::Literal *index : indices)
    if (!index || !index->shape().isArray() || !hlo::isInteger(index->shape().elementType()))
      return bad();
  if (indices.size() == 1 && indices[0]->shape().rank() == 1) {
    if (indices[0]->elementCount() != rank)
      return bad();
    for (int64_t i = 0; i < rank; ++i)
      starts.push_back(readIndex(*indices[0], i));
    return starts;
  }
  if (static_cast<int64_t>(indices.size()) != rank)
    return bad();
  for (const hlo::Literal *index : indices) {
    if (!index->shape().isScalar())
      return bad();
    starts.push_back(readIndex(*index, 0));
  }
  return starts;
}

/// Clamps starts so that a box of `sizes` fits inside `dims`.
void clampStarts(Index &starts, llvm::ArrayRef<int64_t> dims, llvm::ArrayRef<int64_t> sizes) {
  for (size_t i = 0; i < starts.size(); ++i)
    starts[i] = std::clamp<int64_t>(starts[i], 0, dims[i] - sizes[i]);
}

/// A view of `dims` (row-major) starting at `starts`.
StridedView viewAt(llvm::ArrayRef<int64_t> dims, llvm::ArrayRef<int64_t> starts) {
  StridedView view = rowMajorView(dims);
  for (size_t i = 0; i < starts.size(); ++i)
    view.offset += starts[i] * view.strides[i];
  return view;
}

llvm::Error copyBox(const hlo::Instruction &instruction, PrimitiveType type,
                    llvm::ArrayRef<int64_t> box, const uint8_t *source, const StridedView &from,
                    uint8_t *destination, const StridedView &to) {
  if (!copyStrided(hlo::storageBytes(type), box, source, from, destination, to))
    return unsupportedElementType(instruction, type);
  return llvm::Error::success();
}

} // namespace

Result evaluateSlice(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 1))
    return std::move(error);
  const hlo::Literal &operand = *operands[0];
  const hlo::Shape &operandShape = operand.shape();
  const auto &slice = instruction.attributes().slice;
  if (static_cast<int64_t>(slice.size()) != operandShape.rank())
    return errorAt(instruction, "slice={...} needs one [start:limit:stride] per dimension");
  Index dims;
  StridedView from = rowMajorView(operandShape.dims());
  for (auto [i, s] : llvm::enumerate(slice)) {
    if (s.start < 0 || s.start > s.limit || s.limit > operandShape.dim(i) || s.stride < 1)
      return errorAt(instruction, "slice [" + llvm::Twine(s.start) + ":" + llvm::Twine(s.limit) +
                                      ":" + llvm::Twine(s.stride) + "] does not fit dimension " +
                                      llvm::Twine(i) + " of size " +
                                      llvm::Twine(operandShape.dim(i)));
    dims.push_back((s.limit - s.start + s.stride - 1) / s.stride);
    from.offset += s.start * from.strides[i];
    from.strides[i] *= s.stride;
  }
  auto result = makeArrayResult(instruction, operandShape.elementType(), dims);
  if (!result)
    return result.takeError();
  if (llvm::Error error =
          copyBox(instruction, operandShape.elementType(), dims, operand.bytes().data(), from,
                  result->bytes().data(), rowMajorView(dims)))
    return std::move(error);
  return result;
}

Result evaluateDynamicSlice(const hlo::Instruction &instruction, Operands operands) {
  if (operands.empty() || !operands[0]->shape().isArray())
    return errorAt(instruction, "dynamic-slice needs an array operand");
  const hlo::Literal &operand = *operands[0];
  const hlo::Shape &operandShape = operand.shape();
  Index sizes(instruction.attributes().dynamicSliceSizes.begin(),
              instruction.attributes().dynamicSliceSizes.end());
  if (sizes.empty() && instruction.shape().isArray())
    sizes.assign(instruction.shape().dims().begin(), instruction.shape().dims().end());
  if (static_cast<int64_t>(sizes.size()) != operandShape.rank())
    return errorAt(instruction, "dynamic_slice_sizes={...} needs one size per dimension");
  for (auto [i, size] : llvm::enumerate(sizes))
    if (size < 0 || size > operandShape.dim(i))
      return errorAt(instruction, "slice size " + llvm::Twine(size) + " does not fit dimension " +
                                      llvm::Twine(i) + " of size " +
                                      llvm::Twine(operandShape.dim(i)));
  auto starts = readStartIndices(instruction, operands, 1, operandShape.rank());
  if (!starts)
    return starts.takeError();
  clampStarts(*starts, operandShape.dims(), sizes);
  auto result = makeArrayResult(instruction, operandShape.elementType(), sizes);
  if (!result)
    return result.takeError();
  if (llvm::Error error = copyBox(instruction, operandShape.elementType(), sizes,
                                  operand.bytes().data(), viewAt(operandShape.dims(), *starts),
                                  result->bytes().data(), rowMajorView(sizes)))
    return std::move(error);
  return result;
}

llvm::Error updateSliceInPlace(const hlo::Instruction &instruction, hlo::Literal &operand,
                               Operands operands) {
  if (operands.size() < 2 || !operand.shape().isArray() || !operands[1]->shape().isArray())
    return errorAt(instruction, "dynamic-update-slice needs an operand and an update array");
  const hlo::Literal &update = *operands[1];
  const hlo::Shape &operandShape = operand.shape();
  const hlo::Shape &updateShape = update.shape();
  if (updateShape.elementType() != operandShape.elementType() ||
      updateShape.rank() != operandShape.rank())
    return errorAt(instruction, "update " + updateShape.toString(false) + " does not fit into " +
                                    operandShape.toString(false));
  for (int64_t i = 0; i < operandShape.rank(); ++i)
    if (updateShape.dim(i) > operandShape.dim(i))
      return errorAt(instruction, "update " + updateShape.toString(false) +
                                      " is larger than the operand " +
                                      operandShape.toString(false));
  if (!instruction.shape().isArray() || instruction.shape().dims() != operandShape.dims() ||
      instruction.shape().elementType() != operandShape.elementType())
    return errorAt(instruction, "result shape " + instruction.shape().toString(false) +
                                    " does not match the operand " + operandShape.toString(false));
  auto starts = readStartIndices(instruction, operands, 2, operandShape.rank());
  if (!starts)
    return starts.takeError();
  clampStarts(*starts, operandShape.dims(), updateShape.dims());
  return copyBox(instruction, operandShape.elementType(), updateShape.dims(), update.bytes().data(),
                 rowMajorView(updateShape.dims()), operand.bytes().data(),
                 viewAt(operandShape.dims(), *starts));
}

Result evaluateDynamicUpdateSlice(const hlo::Instruction &instruction, Operands operands) {
  if (operands.empty() || !operands[0]->shape().isArray())
    return errorAt(instruction, "dynamic-update-slice needs an operand and an update array");
  hlo::Literal result = *operands[0];
  if (llvm::Error error = updateSliceInPlace(instruction, result, operands))
    return std::move(error);
  result.setLayout(instruction.shape().layout());
  return result;
}

Result evaluateConcatenate(const hlo::Instruction &instruction, Operands operands) {
  if (operands.empty())
    return errorAt(instruction, "concatenate needs at least one operand");
  if (llvm::Error error = expectArrayOperands(instruction, operands, operands.size()))
    return std::move(error);
  const auto &attributes = instruction.attributes();
  const hlo::Shape &first = operands[0]->shape();
  if (attributes.dimensions.size() != 1 || attributes.dimensions[0] < 0 ||
      attributes.dimensions[0] >= first.rank())
    return errorAt(instruction, "concatenate needs dimensions={d} naming one operand dimension");
  const int64_t dimension = attributes.dimensions[0];
  Index dims(first.dims().begin(), first.dims().end());
  dims[dimension] = 0;
  for (const hlo::Literal *operand : operands) {
    const hlo::Shape &shape = operand->shape();
    bool fits = shape.elementType() == first.elementType() && shape.rank() == first.rank();
    for (int64_t i = 0; fits && i < first.rank(); ++i)
      fits = i == dimension || shape.dim(i) == first.dim(i);
    if (!fits)
      return errorAt(instruction, "cannot concatenate " + shape.toString(false) + " with " +
                                      first.toString(false) + " along dimension " +
                                      llvm::Twine(dimension));
    dims[dimension] += shape.dim(dimension);
  }
  auto result = makeArrayResult(instruction, first.elementType(), dims);
  if (!result)
    return result.takeError();
  StridedView to = rowMajorView(dims);
  for (const hlo::Literal *operand : operands) {
    const hlo::Shape &shape = operand->shape();
    if (llvm::Error error =
            copyBox(instruction, first.elementType(), shape.dims(), operand->bytes().data(),
                    rowMajorView(shape.dims()), result->bytes().data(), to))
      return std::move(error);
    to.offset += shape.dim(dimension) * to.strides[dimension];
  }
  return result;
}

Result evaluatePad(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 2))
    return std::move(error);
  const hlo::Literal &operand = *operands[0];
  const hlo::Literal &value = *operands[1];
  const hlo::Shape &operandShape = operand.shape();
  PrimitiveType type = operandShape.elementType();
  if (!value.shape().isScalar() || value.shape().elementType() != type)
    return errorAt(instruction,
                   "the padding value must be a " + hlo::primitiveTypeName(type) + " scalar");
  const auto &padding = instruction.attributes().padding;
  if (static_cast<int64_t>(padding.size()) != operandShape.rank())
    return errorAt(instruction, "padding= needs one low_high[_interior] per dimension");
  Index dims;
  for (auto [i, p] : llvm::enumerate(padding)) {
    int64_t n = operandShape.dim(i);
    int64_t size = p.low + p.high + n + std::max<int64_t>(n - 1, 0) * p.interior;
    if (p.interior < 0 || size < 0)
      return errorAt(instruction,
                     "padding of dimension " + llvm::Twine(i) + " leaves a negative size");
    dims.push_back(size);
  }
  auto result = makeArrayResult(instruction, type, dims);
  if (!result)
    return result.takeError();
  const int bytes = hlo::storageBytes(type);
  uint8_t *out = result->bytes().data();
  for (int64_t i = 0, n = result->elementCount(); i < n; ++i)
    std::memcpy(out + i * bytes, value.bytes().data(), bytes);

  // Operand element i of a dimension lands at low + i * (interior + 1); copy
  // the operand elements whose position falls inside the result.
  Index box;
  StridedView from = rowMajorView(operandShape.dims());
  StridedView to = rowMajorView(dims);
  for (auto [i, p] : llvm::enumerate(padding)) {
    const int64_t step = p.interior + 1;
    const int64_t first = p.low >= 0 ? 0 : floorDiv(-p.low + step - 1, step);
    const int64_t last = std::min(operandShape.dim(i) - 1, floorDiv(dims[i] - 1 - p.low, step));
    box.push_back(std::max<int64_t>(last - first + 1, 0));
    from.offset += first * from.strides[i];
    to.offset += (p.low + first * step) * to.strides[i];
    to.strides[i] *= step;
  }
  if (llvm::Error error = copyBox(instruction, type, box, operand.bytes().data(), from, out, to))
    return std::move(error);
  return result;
}

} // namespace mote::eval
