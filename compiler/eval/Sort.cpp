//===- Sort.cpp - sort (multi-operand), topk and the TopK custom-call -----===//
//
// sort orders every slice along `dimensions` by the comparator, applied to
// (lhs_0, rhs_0, lhs_1, rhs_1, ...), and permutes all operands alike. It is
// always stable (std::stable_sort), a valid implementation of an unstable
// sort too; a merge sort also stays memory-safe when a comparator is not a
// strict weak order (e.g. `LT` on floats with NaNs). A comparator that is just
// `compare(p2k, p2k+1)` on one operand runs typed; others call the evaluator.
//
// topk returns the k largest (or smallest) elements of each row along the
// last dimension with their s32 indices, in order; ties go to the lower
// index, and floats use the total order (NaN above +inf, -NaN below -inf).
//
//===----------------------------------------------------------------------===//

#include "eval/IndexSpace.h"
#include "eval/OpEvaluators.h"
#include "eval/OperandChecks.h"
#include "eval/ScalarComputation.h"

#include "hlo/Diagnostics.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

namespace mote::eval {

using hlo::errorAt;
using hlo::Literal;

namespace {

/// Calls fn(offset of the slice's first element) for every slice along `dim`.
template <typename Fn> void forEachSlice(llvm::ArrayRef<int64_t> dims, int64_t dim, Fn &&fn) {
  Index outer(dims.begin(), dims.end());
  outer[dim] = 1;
  Index strides = rowMajorStrides(dims);
  forEachIndex(outer, [&](llvm::ArrayRef<int64_t> index) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset += index[d] * strides[d];
    fn(offset);
  });
}

} // namespace

Result evaluateSort(Evaluator &evaluator, const hlo::Instruction &instruction, Operands operands) {
  if (operands.empty())
    return errorAt(instruction, "sort needs at least one operand");
  if (llvm::Error error = expectArrayOperands(instruction, operands, operands.size()))
    return std::move(error);
  if (instruction.calledComputations().size() != 1)
    return errorAt(instruction, "sort needs a comparator computation");
  const hlo::Computation &comparator = *instruction.calledComputation(0);
  const size_t count = operands.size();
  const hlo::Shape &first = operands[0]->shape();
  for (const Literal *operand : operands)
    if (operand->shape().dims() != first.dims())
      return errorAt(instruction, "sort operands must have the same dimensions");
  const hlo::DimVector &dimensions = instruction.attributes().dimensions;
  if (first.rank() > 0 &&
      (dimensions.size() != 1 || dimensions[0] < 0 || dimensions[0] >= first.rank()))
    return errorAt(instruction, "sort needs one dimension of the operands");
  if (comparator.parameterCount() != 2 * count)
    return errorAt(instruction,
                   "the comparator must take " + llvm::Twine(2 * count) + " parameters");

  const hlo::Shape &shape = instruction.shape();
  if (count > 1 && (!shape.isTuple() || shape.tupleSize() != count))
    return errorAt(instruction, "sort of " + llvm::Twine(count) + " operands returns a " +
                                    llvm::Twine(count) + "-tuple");
  std::vector<Literal> results;
  for (size_t i = 0; i < count; ++i) {
    const hlo::Shape &expected = count == 1 ? shape : shape.tupleElement(i);
    if (!expected.compatible(operands[i]->shape()))
      return errorAt(instruction, "result shape " + expected.toString(false) +
                                      " does not match operand " +
                                      operands[i]->shape().toString(false));
    results.emplace_back(expected);
  }
  auto finish = [&]() -> Result {
    if (count == 1)
      return std::move(results[0]);
    return Literal::tuple(std::move(results));
  };
  if (first.rank() == 0) {
    for (size_t i = 0; i < count; ++i)
      std::memcpy(results[i].bytes().data(), operands[i]->bytes().data(),
                  operands[i]->bytes().size());
    return finish();
  }

  const int64_t dim = dimensions[0];
  const int64_t length = first.dim(dim);
  const int64_t stride = rowMajorStrides(first.dims())[dim];
  std::vector<int64_t> order(length);
  auto permute = [&](int64_t base) {
    for (size_t i = 0; i < count; ++i) {
      const size_t size = hlo::storageBytes(operands[i]->shape().elementType());
      const uint8_t *from = operands[i]->bytes().data();
      uint8_t *to = results[i].bytes().data();
      for (int64_t p = 0; p < length; ++p)
        std::memcpy(to + (base + p * stride) * size, from + (base + order[p] * stride) * size,
                    size);
    }
  };

  // Typed comparator: compare(p2k, p2k+1) or compare(p2k+1, p2k) on operand k.
  if (std::optional<ScalarCompare> compare = matchScalarCompare(comparator)) {
    const int64_t key = compare->lhsParameter / 2;
    const bool forward = compare->lhsParameter % 2 == 0;
    if (compare->rhsParameter ==
            (forward ? compare->lhsParameter + 1 : compare->lhsParameter - 1) &&
        key < static_cast<int64_t>(count) &&
        comparator.parameter(compare->lhsParameter)->shape().elementType() ==
            operands[key]->shape().elementType()) {
      bool done = hlo::visitElementType(
          operands[key]->shape().elementType(),
          [&](auto tag) {
            using T = typename decltype(tag)::type;
            if constexpr (isFastBinaryType<T>()) {
              const T *keys = operands[key]->data<T>();
              forEachSlice(first.dims(), dim, [&](int64_t base) {
                std::iota(order.begin(), order.end(), 0);
                std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
                  T x = keys[base + a * stride], y = keys[base + b * stride];
                  return forward ? applyScalarCompare(compare->direction, compare->type, x, y)
                                 : applyScalarCompare(compare->direction, compare->type, y, x);
                });
                permute(base);
              });
              return true;
            }
            return false;
          },
          [] { return false; });
      if (done)
        return finish();
    }
  }

  llvm::SmallVector<hlo::PrimitiveType, 8> types;
  for (const Literal *operand : operands) {
    types.push_back(operand->shape().elementType());
    types.push_back(operand->shape().elementType());
  }
  ScalarCall call(evaluator, instruction, comparator, types);
  llvm::Error failure = llvm::Error::success();
  forEachSlice(first.dims(), dim, [&](int64_t base) {
    if (failure)
      return;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      if (failure)
        return false;
      for (size_t i = 0; i < count; ++i) {
        call.setArgument(2 * i, *operands[i], base + a * stride);
        call.setArgument(2 * i + 1, *operands[i], base + b * stride);
      }
      llvm::Expected<bool> less = call.runPredicate();
      if (!less) {
        failure = less.takeError();
        return false;
      }
      return *less;
    });
    permute(base);
  });
  if (failure)
    return std::move(failure);
  return finish();
}

namespace {

template <typename T>
void topKRows(const Literal &operand, int64_t k, bool largest, Literal &values, Literal &indices) {
  const int64_t n = operand.shape().dims().back();
  const int64_t rows = n == 0 ? 0 : operand.elementCount() / n;
  const T *in = operand.data<T>();
  T *outValues = values.data<T>();
  int32_t *outIndices = indices.data<int32_t>();
  std::vector<int64_t> order(n);
  for (int64_t row = 0; row < rows; ++row) {
    const T *x = in + row * n;
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
      auto ka = totalOrderKey(x[a]), kb = totalOrderKey(x[b]);
      if (ka != kb)
        return largest ? ka > kb : ka < kb;
      return a < b;
    });
    for (int64_t i = 0; i < k; ++i) {
      outValues[row * k + i] = x[order[i]];
      outIndices[row * k + i] = static_cast<int32_t>(order[i]);
    }
  }
}

} // namespace

Result evaluateTopK(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 1))
    return std::move(error);
  const Literal &operand = *operands[0];
  const hlo::Shape &shape = instruction.shape();
  if (operand.shape().rank() < 1 || !shape.isTuple() || shape.tupleSize() != 2 ||
      !shape.tupleElement(0).isArray() || shape.tupleElement(0).rank() != operand.shape().rank())
    return errorAt(instruction, "topk takes an array of rank >= 1 and returns (values, indices)");
  const bool isCustomCall = instruction.opcode() == hlo::Opcode::CustomCall;
  const int64_t k = isCustomCall ? shape.tupleElement(0).dims().back() : instruction.attributes().k;
  const bool largest = isCustomCall || instruction.attributes().largest;
  const int64_t n = operand.shape().dims().back();
  if (k < 0 || k > n)
    return errorAt(instruction,
                   "k = " + llvm::Twine(k) + " is outside [0, " + llvm::Twine(n) + "]");
  Index dims(operand.shape().dims().begin(), operand.shape().dims().end());
  dims.back() = k;
  hlo::PrimitiveType type = operand.shape().elementType();
  const hlo::Shape &valuesShape = shape.tupleElement(0);
  const hlo::Shape &indicesShape = shape.tupleElement(1);
  if (!valuesShape.compatible(hlo::Shape::array(type, dims)) ||
      !indicesShape.compatible(hlo::Shape::array(hlo::PrimitiveType::S32, dims)))
    return errorAt(instruction,
                   "topk result must be (" + hlo::Shape::array(type, dims).toString(false) + ", " +
                       hlo::Shape::array(hlo::PrimitiveType::S32, dims).toString(false) + ")");
  Literal values(valuesShape), indices(indicesShape);
  bool done = hlo::visitElementType(
      type,
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (isFastBinaryType<T>()) {
          topKRows<T>(operand, k, largest, values, indices);
          return true;
        }
        return false;
      },
      [] { return false; });
  if (!done)
    return unsupportedElementType(instruction, type);
  std::vector<Literal> elements;
  elements.push_back(std::move(values));
  elements.push_back(std::move(indices));
  return Literal::tuple(std::move(elements));
}

} // namespace mote::eval
