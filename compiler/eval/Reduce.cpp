//===- Reduce.cpp - reduce (variadic) -------------------------------------===//
//
// XLA leaves the order of a reduction unspecified. Here every result element
// is a sequential left fold: acc = init, then acc = f(acc, x) for the reduced
// elements in row-major order of the reduced dimensions. Walking the operand
// in row-major order visits every result element's inputs in exactly that
// order, so both paths below walk the operand once: the typed fast path for a
// single operand reduced by add/multiply/maximum/minimum/and/or/xor (f16 and
// bf16 accumulating in f32, HalfReduction.h), and the general path that
// calls to_apply through the evaluator.
//
//===----------------------------------------------------------------------===//

#include "eval/OpEvaluators.h"
#include "eval/OperandChecks.h"
#include "eval/ScalarComputation.h"

#include "eval/IndexSpace.h"
#include "hlo/Diagnostics.h"

#include <vector>

namespace mote::eval {

using hlo::errorAt;
using hlo::Literal;

namespace {

/// The operand's dimensions with runs of kept or reduced dimensions merged
/// (size-1 dimensions dropped), and for each merged dimension its stride in
/// the result (0 when reduced).
struct ReductionLayout {
  Index sizes;
  Index resultStrides;

  ReductionLayout(llvm::ArrayRef<int64_t> dims, llvm::ArrayRef<bool> reduced) {
    llvm::SmallVector<bool, 6> kinds;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] == 1)
        continue;
      if (!kinds.empty() && kinds.back() == reduced[d]) {
        sizes.back() *= dims[d];
        continue;
      }
      sizes.push_back(dims[d]);
      kinds.push_back(reduced[d]);
    }
    resultStrides.assign(sizes.size(), 0);
    int64_t stride = 1;
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d)
      if (!kinds[d]) {
        resultStrides[d] = stride;
        stride *= sizes[d];
      }
  }

  /// Calls fn(operandOffset, resultOffset, count, resultStride) for each row
  /// of the innermost merged dimension, in row-major order.
  template <typename Fn> void forEachRow(Fn &&fn) const {
    for (int64_t size : sizes)
      if (size == 0)
        return;
    if (sizes.empty()) {
      fn(int64_t(0), int64_t(0), int64_t(1), int64_t(0));
      return;
    }
    const int64_t rank = static_cast<int64_t>(sizes.size());
    const int64_t inner = sizes.back();
    llvm::ArrayRef<int64_t> outer = llvm::ArrayRef<int64_t>(sizes).drop_back();
    Index index(rank - 1, 0);
    int64_t operandOffset = 0;
    do {
      int64_t resultOffset = 0;
      for (int64_t d = 0; d < rank - 1; ++d)
        resultOffset += index[d] * resultStrides[d];
      fn(operandOffset, resultOffset, inner, resultStrides.back());
      operandOffset += inner;
    } while (nextIndex(index, outer));
  }
};

/// The typed fold of `operand` into `result`, accumulating in `A`: T itself,
/// or float for f16/bf16 reductions that fold in f32 (HalfReduction.h), whose
/// accumulators start as the result's init values widened and round into it
/// once at the end.
template <typename T, typename A>
void reduceTyped(const Literal &operand, const ReductionLayout &layout, ScalarBinary op,
                 Literal &result) {
  const T *in = operand.data<T>();
  T *out = result.data<T>();
  std::vector<A> wide;
  A *acc = nullptr;
  if constexpr (std::is_same_v<A, T>) {
    acc = out;
  } else {
    for (int64_t i = 0; i < result.elementCount(); ++i)
      wide.push_back(static_cast<A>(out[i]));
    acc = wide.data();
  }
  auto apply = [op](A acc, T x) {
    A value = static_cast<A>(x);
    return op.swapped ? applyScalarBinary<A>(op.opcode, value, acc)
                      : applyScalarBinary<A>(op.opcode, acc, value);
  };
  layout.forEachRow([&](int64_t from, int64_t to, int64_t count, int64_t stride) {
    if (stride == 0) {
      A sum = acc[to];
      for (int64_t i = 0; i < count; ++i)
        sum = apply(sum, in[from + i]);
      acc[to] = sum;
    } else {
      for (int64_t i = 0; i < count; ++i)
        acc[to + i] = apply(acc[to + i], in[from + i]);
    }
  });
  if constexpr (!std::is_same_v<A, T>)
    for (size_t i = 0; i < wide.size(); ++i)
      out[i] = T(wide[i]);
}

/// Fills every element of `array` with the scalar `value` (same type).
void fill(Literal &array, const Literal &value) {
  size_t size = value.bytes().size();
  uint8_t *data = array.bytes().data();
  for (int64_t i = 0; i < array.elementCount(); ++i)
    std::memcpy(data + i * size, value.bytes().data(), size);
}

} // namespace

Result evaluateReduce(Evaluator &evaluator, const hlo::Instruction &instruction,
                      Operands operands) {
  if (operands.empty() || operands.size() % 2 != 0)
    return errorAt(instruction, "reduce needs as many init values as operands");
  const size_t count = operands.size() / 2;
  if (llvm::Error error = expectArrayOperands(instruction, operands, operands.size()))
    return std::move(error);
  if (instruction.calledComputations().size() != 1)
    return errorAt(instruction, "reduce needs one to_apply computation");
  const hlo::Computation &reducer = *instruction.calledComputation(0);
  const hlo::Shape &first = operands[0]->shape();
  for (size_t i = 0; i < count; ++i) {
    const hlo::Shape &shape = operands[i]->shape();
    if (shape.dims() != first.dims())
      return errorAt(instruction, "reduce operands must have the same dimensions");
    const hlo::Shape &init = operands[count + i]->shape();
    if (!init.isScalar() || init.elementType() != shape.elementType())
      return errorAt(instruction, "init value " + llvm::Twine(i) + " must be a scalar of " +
                                      hlo::primitiveTypeName(shape.elementType()));
  }
  llvm::SmallVector<bool, 6> reduced(first.rank(), false);
  for (int64_t dim : instruction.attributes().dimensions) {
    if (dim < 0 || dim >= first.rank() || reduced[dim])
      return errorAt(instruction, "reduce dimension " + llvm::Twine(dim) + " is invalid");
    reduced[dim] = true;
  }
  Index resultDims;
  for (int64_t d = 0; d < first.rank(); ++d)
    if (!reduced[d])
      resultDims.push_back(first.dim(d));

  // Results, checked against the instruction's shape.
  const hlo::Shape &shape = instruction.shape();
  if (count > 1 && (!shape.isTuple() || shape.tupleSize() != count))
    return errorAt(instruction, "reduce of " + llvm::Twine(count) + " operands returns a " +
                                    llvm::Twine(count) + "-tuple");
  std::vector<Literal> results;
  for (size_t i = 0; i < count; ++i) {
    const hlo::Shape &expected = count == 1 ? shape : shape.tupleElement(i);
    hlo::PrimitiveType type = operands[i]->shape().elementType();
    if (!expected.isArray() || expected.elementType() != type || expected.dims() != resultDims)
      return errorAt(instruction, "result shape " + expected.toString(false) +
                                      " does not match the evaluated " +
                                      hlo::Shape::array(type, resultDims).toString(false));
    results.emplace_back(expected);
    fill(results.back(), *operands[count + i]);
  }
  auto finish = [&]() -> Result {
    for (Literal &literal : results)
      wrapSubByteIntegers(literal);
    if (count == 1)
      return std::move(results[0]);
    return Literal::tuple(std::move(results));
  };

  ReductionLayout layout(first.dims(), reduced);
  hlo::PrimitiveType type = first.elementType();
  if (count == 1) {
    if (std::optional<ScalarBinary> op = matchScalarBinary(reducer, type)) {
      const bool widened = halfReductionInF32(instruction).has_value();
      bool done = hlo::visitElementType(
          type,
          [&](auto tag) {
            using T = typename decltype(tag)::type;
            if constexpr (isFastBinaryType<T>()) {
              if constexpr (std::is_same_v<T, hlo::BFloat16> || std::is_same_v<T, hlo::Float16>)
                if (widened) {
                  reduceTyped<T, float>(*operands[0], layout, *op, results[0]);
                  return true;
                }
              reduceTyped<T, T>(*operands[0], layout, *op, results[0]);
              return true;
            }
            return false;
          },
          [] { return false; });
      if (done)
        return finish();
    }
  }

  // General path: to_apply(acc_0..acc_n-1, x_0..x_n-1) per element.
  llvm::SmallVector<hlo::PrimitiveType, 8> types;
  for (size_t i = 0; i < count; ++i)
    types.push_back(operands[i]->shape().elementType());
  for (size_t i = 0; i < count; ++i)
    types.push_back(operands[i]->shape().elementType());
  ScalarCall call(evaluator, instruction, reducer, types);
  std::vector<Literal> values;
  llvm::Error failure = llvm::Error::success();
  layout.forEachRow([&](int64_t from, int64_t to, int64_t rowLength, int64_t stride) {
    for (int64_t i = 0; i < rowLength && !failure; ++i) {
      const int64_t target = to + i * stride;
      for (size_t j = 0; j < count; ++j) {
        call.setArgument(j, results[j], target);
        call.setArgument(count + j, *operands[j], from + i);
      }
      if (llvm::Error error = call.run(count, values)) {
        failure = std::move(error);
        return;
      }
      for (size_t j = 0; j < count; ++j) {
        if (values[j].shape().elementType() != types[j]) {
          failure =
              errorAt(instruction, "to_apply returns " + values[j].shape().toString() + " for a " +
                                       hlo::primitiveTypeName(types[j]) + " accumulator");
          return;
        }
        std::memcpy(results[j].bytes().data() + target * values[j].bytes().size(),
                    values[j].bytes().data(), values[j].bytes().size());
      }
    }
  });
  if (failure)
    return std::move(failure);
  return finish();
}

} // namespace mote::eval
