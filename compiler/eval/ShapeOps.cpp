//===- ShapeOps.cpp - broadcast, reshape, bitcast, transpose, reverse, iota ===//
//
// All but iota move elements without looking at them, so they work on bytes
// through copyStrided and need no per-type code.
//
//===----------------------------------------------------------------------===//

#include "eval/OperandChecks.h"
#include "eval/StridedCopy.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <complex>
#include <cstring>

namespace mote::eval {

using hlo::errorAt;
using hlo::PrimitiveType;

namespace {

llvm::Error elementSizeError(const hlo::Instruction &instruction, PrimitiveType type) {
  return unsupportedElementType(instruction, type);
}

/// Whether `permutation` holds each of 0..rank-1 once.
bool isPermutation(llvm::ArrayRef<int64_t> permutation, int64_t rank) {
  if (static_cast<int64_t>(permutation.size()) != rank)
    return false;
  llvm::SmallVector<bool, 8> seen(rank, false);
  for (int64_t p : permutation) {
    if (p < 0 || p >= rank || seen[p])
      return false;
    seen[p] = true;
  }
  return true;
}

/// result[i] = source[permuted index] where result dimension i is source
/// dimension permutation[i].
hlo::Literal transposed(const hlo::Literal &source, llvm::ArrayRef<int64_t> permutation,
                        const hlo::Shape &resultShape) {
  hlo::Literal result(resultShape);
  Index sourceStrides = rowMajorStrides(source.shape().dims());
  StridedView from;
  for (int64_t p : permutation)
    from.strides.push_back(sourceStrides[p]);
  copyStrided(hlo::storageBytes(source.shape().elementType()), resultShape.dims(),
              source.bytes().data(), from, result.bytes().data(), rowMajorView(resultShape.dims()));
  return result;
}

/// Dimensions from most major to most minor under `layout`.
llvm::SmallVector<int64_t, 6> majorToMinor(const hlo::Shape &shape) {
  hlo::Layout layout = shape.layoutOrDefault();
  return llvm::SmallVector<int64_t, 6>(llvm::reverse(layout.minorToMajor));
}

} // namespace

Result evaluateBroadcast(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 1))
    return std::move(error);
  const hlo::Literal &operand = *operands[0];
  const hlo::Shape &shape = instruction.shape();
  auto result = makeArrayResult(instruction, operand.shape().elementType(),
                                shape.isArray() ? shape.dims() : llvm::ArrayRef<int64_t>());
  if (!result)
    return result.takeError();
  const auto &dimensions = instruction.attributes().dimensions;
  if (static_cast<int64_t>(dimensions.size()) != operand.shape().rank())
    return errorAt(instruction, "broadcast dimensions={...} must list one result dimension per "
                                "operand dimension");
  Index operandStrides = rowMajorStrides(operand.shape().dims());
  StridedView from;
  from.strides.assign(shape.rank(), 0);
  llvm::SmallVector<bool, 6> used(shape.rank(), false);
  for (auto [i, target] : llvm::enumerate(dimensions)) {
    if (target < 0 || target >= shape.rank() || used[target] ||
        shape.dim(target) != operand.shape().dim(i))
      return errorAt(instruction, "broadcast dimension " + llvm::Twine(target) +
                                      " does not fit operand dimension " + llvm::Twine(i));
    used[target] = true;
    from.strides[target] = operandStrides[i];
  }
  if (!copyStrided(hlo::storageBytes(operand.shape().elementType()), shape.dims(),
                   operand.bytes().data(), from, result->bytes().data(),
                   rowMajorView(shape.dims())))
    return elementSizeError(instruction, operand.shape().elementType());
  return result;
}

Result evaluateReshape(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 1))
    return std::move(error);
  const hlo::Literal &operand = *operands[0];
  const hlo::Shape &shape = instruction.shape();
  if (!shape.isArray() || shape.elementType() != operand.shape().elementType() ||
      shape.elementCount() != operand.elementCount())
    return errorAt(instruction, "cannot reshape " + operand.shape().toString(false) + " to " +
                                    shape.toString(false));
  hlo::Literal result(shape);
  std::copy(operand.bytes().begin(), operand.bytes().end(), result.bytes().begin());
  return result;
}

/// A bitcast reinterprets the physical buffer: the operand's elements are laid
/// out in memory by its layout, and the result reads that memory through its
/// own layout. Both steps are transposes between logical and physical order.
Result evaluateBitcast(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 1))
    return std::move(error);
  const hlo::Literal &operand = *operands[0];
  const hlo::Shape &operandShape = instruction.operand(0)->shape();
  const hlo::Shape &shape = instruction.shape();
  if (!shape.isArray() ||
      hlo::storageBytes(shape.elementType()) != hlo::storageBytes(operand.shape().elementType()) ||
      shape.elementCount() != operand.elementCount() ||
      operandShape.dims() != operand.shape().dims())
    return errorAt(instruction, "cannot bitcast " + operand.shape().toString(false) + " to " +
                                    shape.toString(false));
  llvm::SmallVector<int64_t, 6> operandOrder = majorToMinor(operandShape);
  llvm::SmallVector<int64_t, 6> resultOrder = majorToMinor(shape);
  if (!isPermutation(operandOrder, operandShape.rank()) ||
      !isPermutation(resultOrder, shape.rank()))
    return errorAt(instruction, "bitcast needs valid layouts on its operand and result");

  // Logical operand -> physical buffer (dimensions in major-to-minor order).
  llvm::SmallVector<int64_t, 6> physicalDims;
  for (int64_t d : operandOrder)
    physicalDims.push_back(operandShape.dim(d));
  hlo::Literal physical = transposed(
      operand, operandOrder, hlo::Shape::array(operand.shape().elementType(), physicalDims));

  // The same bytes seen as the result's physical array, then back to logical.
  llvm::SmallVector<int64_t, 6> resultPhysicalDims;
  for (int64_t d : resultOrder)
    resultPhysicalDims.push_back(shape.dim(d));
  hlo::Literal resultPhysical(hlo::Shape::array(shape.elementType(), resultPhysicalDims));
  std::copy(physical.bytes().begin(), physical.bytes().end(), resultPhysical.bytes().begin());
  // Logical result dimension resultOrder[j] is physical dimension j.
  llvm::SmallVector<int64_t, 6> inverse(shape.rank());
  for (auto [j, d] : llvm::enumerate(resultOrder))
    inverse[d] = static_cast<int64_t>(j);
  hlo::Literal result = transposed(resultPhysical, inverse, shape);
  return result;
}

Result evaluateTranspose(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 1))
    return std::move(error);
  const hlo::Literal &operand = *operands[0];
  const auto &permutation = instruction.attributes().dimensions;
  if (!isPermutation(permutation, operand.shape().rank()))
    return errorAt(instruction,
                   "transpose dimensions={...} must be a permutation of the operand's " +
                       llvm::Twine(operand.shape().rank()) + " dimensions");
  llvm::SmallVector<int64_t, 6> dims;
  for (int64_t p : permutation)
    dims.push_back(operand.shape().dim(p));
  auto result = makeArrayResult(instruction, operand.shape().elementType(), dims);
  if (!result)
    return result.takeError();
  return transposed(operand, permutation, instruction.shape());
}

Result evaluateReverse(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 1))
    return std::move(error);
  const hlo::Literal &operand = *operands[0];
  const hlo::Shape &operandShape = operand.shape();
  auto result = makeArrayResult(instruction, operandShape.elementType(), operandShape.dims());
  if (!result)
    return result.takeError();
  StridedView from = rowMajorView(operandShape.dims());
  llvm::SmallVector<bool, 6> reversed(operandShape.rank(), false);
  for (int64_t d : instruction.attributes().dimensions) {
    if (d < 0 || d >= operandShape.rank() || reversed[d])
      return errorAt(instruction,
                     "reverse dimension " + llvm::Twine(d) + " is out of range or repeated");
    reversed[d] = true;
    // Start at the last index of d and walk backwards.
    from.offset += (operandShape.dim(d) - 1) * from.strides[d];
    from.strides[d] = -from.strides[d];
  }
  if (!copyStrided(hlo::storageBytes(operandShape.elementType()), operandShape.dims(),
                   operand.bytes().data(), from, result->bytes().data(),
                   rowMajorView(operandShape.dims())))
    return elementSizeError(instruction, operandShape.elementType());
  return result;
}

Result evaluateIota(const hlo::Instruction &instruction, Operands operands) {
  if (!operands.empty())
    return errorAt(instruction, "iota takes no operands");
  const hlo::Shape &shape = instruction.shape();
  int64_t dimension = instruction.attributes().iotaDimension;
  if (!shape.isArray() || dimension < 0 || dimension >= shape.rank())
    return errorAt(instruction, "iota_dimension=" + llvm::Twine(dimension) +
                                    " is not a dimension of " + shape.toString(false));
  hlo::Literal result(shape);
  // Row-major order repeats each value `stride` times, counts up to `size`,
  // and starts over for the next index of the outer dimensions.
  const int64_t stride = rowMajorStrides(shape.dims())[dimension];
  const int64_t size = shape.dim(dimension);
  const int64_t count = result.elementCount();
  bool supported = hlo::visitElementType(
      shape.elementType(),
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        uint8_t *out = result.bytes().data();
        int64_t position = 0;
        while (position < count) {
          for (int64_t value = 0; value < size; ++value) {
            T element;
            if constexpr (std::is_same_v<T, hlo::BFloat16> || std::is_same_v<T, hlo::Float16>)
              element = T(static_cast<float>(value));
            else if constexpr (std::is_same_v<T, std::complex<float>> ||
                               std::is_same_v<T, std::complex<double>>)
              element = T(static_cast<typename T::value_type>(value));
            else
              element = static_cast<T>(value);
            for (int64_t k = 0; k < stride; ++k, ++position)
              std::memcpy(out + position * sizeof(T), &element, sizeof(T));
          }
        }
        return true;
      },
      [] { return false; });
  if (!supported)
    return unsupportedElementType(instruction, shape.elementType());
  wrapSubByteIntegers(result);
  return result;
}

} // namespace mote::eval
