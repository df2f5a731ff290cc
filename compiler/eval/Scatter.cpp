//===- Scatter.cpp - scatter (variadic) with general dimension numbers ----===//
//
// The result starts as a copy of the inputs. Index vectors are taken in
// row-major order of the update scatter dimensions; for each, the window of
// updates (update_window_dims) is combined into the inputs at the window's
// start: scatter_dims_to_operand_dims places the vector's components,
// input_batching_dims start at the batch's own index along the paired
// scatter_indices_batching_dims, and the window fills the operand dimensions
// that are neither inserted nor batching. As in XLA, a window that does not
// fit entirely inside the operand (negative or too large start) is skipped
// whole. Within a window, elements are combined in row-major order with
// to_apply(current..., update...); `ROOT p1` (replace) and add/multiply/
// maximum/minimum/and/or/xor of the two parameters run typed.
//
//===----------------------------------------------------------------------===//

#include "eval/GatherScatter.h"
#include "eval/OpEvaluators.h"
#include "eval/OperandChecks.h"
#include "eval/ScalarComputation.h"

#include "hlo/Diagnostics.h"

#include <cstring>
#include <vector>

namespace mote::eval {

using hlo::errorAt;
using hlo::Literal;

namespace {

/// Where one index vector's window of updates goes.
struct ScatterGeometry {
  Index windowSizes;          ///< update window dims, in order
  Index windowOperandStrides; ///< operand stride of each window dim
  Index windowUpdateStrides;  ///< updates stride of each window dim
  Index operandWindowExtent;  ///< per operand dim: the window's size there (1 if not windowed)
  Index operandStrides, updateStrides;
  Index scatterUpdateDims; ///< update dims not in update_window_dims, in order
};

} // namespace

Result evaluateScatter(Evaluator &evaluator, const hlo::Instruction &instruction,
                       Operands operands) {
  if (operands.size() < 3 || operands.size() % 2 != 1)
    return errorAt(instruction, "scatter takes N inputs, the indices and N updates");
  if (llvm::Error error = expectArrayOperands(instruction, operands, operands.size()))
    return std::move(error);
  if (instruction.calledComputations().size() != 1)
    return errorAt(instruction, "scatter needs one to_apply computation");
  const hlo::Computation &combiner = *instruction.calledComputation(0);
  const size_t count = operands.size() / 2;
  const Literal &indices = *operands[count];
  const hlo::ScatterDimensionNumbers &numbers = instruction.attributes().scatterDimensions;
  const hlo::Shape &shape = operands[0]->shape();
  const hlo::Shape &updateShape = operands[count + 1]->shape();
  const int64_t rank = shape.rank();
  for (size_t i = 0; i < count; ++i) {
    const hlo::Shape &input = operands[i]->shape();
    const hlo::Shape &update = operands[count + 1 + i]->shape();
    if (input.dims() != shape.dims() || update.dims() != updateShape.dims() ||
        update.elementType() != input.elementType())
      return errorAt(instruction, "scatter inputs (and updates) must share dimensions, and each "
                                  "update must have its input's element type");
  }
  if (!hlo::isInteger(indices.shape().elementType()))
    return errorAt(instruction, "scatter indices must be integers");
  if (numbers.indexVectorDim < 0 || numbers.indexVectorDim > indices.shape().rank())
    return errorAt(instruction, "index_vector_dim is out of range");
  IndexVectors vectors(indices, numbers.indexVectorDim);
  if (vectors.vectorSize() != static_cast<int64_t>(numbers.scatterDimsToOperandDims.size()))
    return errorAt(instruction, "index vectors have " + llvm::Twine(vectors.vectorSize()) +
                                    " components but scatter_dims_to_operand_dims has " +
                                    llvm::Twine(numbers.scatterDimsToOperandDims.size()));

  // Operand dimensions: 1 inserted, 2 batching, 0 windowed.
  llvm::SmallVector<int, 6> kind(rank, 0);
  auto mark = [&](llvm::ArrayRef<int64_t> dims, int value) -> bool {
    for (int64_t d : dims) {
      if (d < 0 || d >= rank || kind[d] != 0)
        return false;
      kind[d] = value;
    }
    return true;
  };
  if (!mark(numbers.insertedWindowDims, 1) || !mark(numbers.inputBatchingDims, 2))
    return errorAt(instruction, "inserted_window_dims and input_batching_dims must be distinct "
                                "operand dimensions");
  for (int64_t d : numbers.scatterDimsToOperandDims)
    if (d < 0 || d >= rank || kind[d] == 2)
      return errorAt(instruction, "scatter_dims_to_operand_dims names an invalid dimension");
  if (numbers.scatterIndicesBatchingDims.size() != numbers.inputBatchingDims.size())
    return errorAt(instruction, "input_batching_dims and scatter_indices_batching_dims differ in "
                                "length");
  for (size_t i = 0; i < numbers.inputBatchingDims.size(); ++i) {
    int64_t dim = numbers.scatterIndicesBatchingDims[i];
    if (dim < 0 || dim >= indices.shape().rank() || dim == numbers.indexVectorDim ||
        indices.shape().dim(dim) != shape.dim(numbers.inputBatchingDims[i]))
      return errorAt(instruction, "scatter_indices_batching_dims must name index dimensions of "
                                  "the batching dimensions' sizes");
  }

  ScatterGeometry g;
  g.operandStrides = rowMajorStrides(shape.dims());
  g.updateStrides = rowMajorStrides(updateShape.dims());
  llvm::SmallVector<bool, 6> isWindowDim(updateShape.rank(), false);
  for (int64_t d : numbers.updateWindowDims) {
    if (d < 0 || d >= updateShape.rank() || isWindowDim[d])
      return errorAt(instruction, "update_window_dims must be distinct update dimensions");
    isWindowDim[d] = true;
  }
  for (int64_t d = 0; d < updateShape.rank(); ++d)
    if (!isWindowDim[d])
      g.scatterUpdateDims.push_back(d);
  llvm::ArrayRef<int64_t> batchDims = vectors.batchDims();
  bool batchMatches = g.scatterUpdateDims.size() == batchDims.size();
  for (size_t i = 0; batchMatches && i < batchDims.size(); ++i)
    batchMatches = updateShape.dim(g.scatterUpdateDims[i]) == batchDims[i];
  if (!batchMatches)
    return errorAt(instruction, "the update scatter dimensions must match the index batch");
  g.operandWindowExtent.assign(rank, 1);
  size_t window = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (kind[d] != 0)
      continue;
    if (window >= numbers.updateWindowDims.size())
      return errorAt(instruction, "update_window_dims must cover the operand dimensions that are "
                                  "neither inserted nor batching");
    int64_t updateDim = numbers.updateWindowDims[window++];
    int64_t size = updateShape.dim(updateDim);
    if (size > shape.dim(d))
      return errorAt(instruction, "update window dimension " + llvm::Twine(updateDim) +
                                      " is larger than operand dimension " + llvm::Twine(d));
    g.operandWindowExtent[d] = size;
    g.windowSizes.push_back(size);
    g.windowOperandStrides.push_back(g.operandStrides[d]);
    g.windowUpdateStrides.push_back(g.updateStrides[updateDim]);
  }
  if (window != numbers.updateWindowDims.size())
    return errorAt(instruction, "update_window_dims must cover the operand dimensions that are "
                                "neither inserted nor batching");

  // Results start as copies of the inputs.
  const hlo::Shape &resultShape = instruction.shape();
  if (count > 1 && (!resultShape.isTuple() || resultShape.tupleSize() != count))
    return errorAt(instruction, "scatter of " + llvm::Twine(count) + " inputs returns a " +
                                    llvm::Twine(count) + "-tuple");
  std::vector<Literal> results;
  for (size_t i = 0; i < count; ++i) {
    const hlo::Shape &expected = count == 1 ? resultShape : resultShape.tupleElement(i);
    const hlo::Shape &input = operands[i]->shape();
    if (!expected.isArray() || expected.elementType() != input.elementType() ||
        expected.dims() != input.dims())
      return errorAt(instruction, "result shape " + expected.toString(false) +
                                      " does not match input " + input.toString(false));
    results.emplace_back(expected);
    std::memcpy(results.back().bytes().data(), operands[i]->bytes().data(),
                operands[i]->bytes().size());
  }

  // Calls fn(operandOffset, updateOffset) for every element to combine.
  auto forEachUpdate = [&](auto &&fn) {
    Index vector(vectors.vectorSize()), start(rank);
    forEachIndex(batchDims, [&](llvm::ArrayRef<int64_t> batch) {
      vectors.read(batch, vector);
      std::fill(start.begin(), start.end(), 0);
      for (size_t k = 0; k < numbers.scatterDimsToOperandDims.size(); ++k)
        start[numbers.scatterDimsToOperandDims[k]] = vector[k];
      for (size_t i = 0; i < numbers.inputBatchingDims.size(); ++i)
        start[numbers.inputBatchingDims[i]] =
            batch[vectors.batchPosition(numbers.scatterIndicesBatchingDims[i])];
      int64_t operandBase = 0, updateBase = 0;
      for (int64_t d = 0; d < rank; ++d) {
        if (start[d] < 0 || start[d] > shape.dim(d) - g.operandWindowExtent[d])
          return;
        operandBase += start[d] * g.operandStrides[d];
      }
      for (size_t i = 0; i < batch.size(); ++i)
        updateBase += batch[i] * g.updateStrides[g.scatterUpdateDims[i]];
      forEachWindowElement(g.windowSizes, operandBase, g.windowOperandStrides, updateBase,
                           g.windowUpdateStrides, fn);
    });
  };
  auto finish = [&]() -> Result {
    for (Literal &literal : results)
      wrapSubByteIntegers(literal);
    if (count == 1)
      return std::move(results[0]);
    return Literal::tuple(std::move(results));
  };

  const hlo::PrimitiveType type = shape.elementType();
  if (count == 1) {
    const bool replace =
        returnsSecondParameter(combiner) && combiner.parameter(0)->shape().elementType() == type;
    std::optional<ScalarBinary> op = matchScalarBinary(combiner, type);
    if (replace || op) {
      bool done = hlo::visitElementType(
          type,
          [&](auto tag) {
            using T = typename decltype(tag)::type;
            if constexpr (isFastBinaryType<T>()) {
              T *out = results[0].data<T>();
              const T *updates = operands[2]->data<T>();
              if (replace)
                forEachUpdate([&](int64_t to, int64_t from) { out[to] = updates[from]; });
              else
                forEachUpdate([&](int64_t to, int64_t from) {
                  out[to] = op->swapped ? applyScalarBinary<T>(op->opcode, updates[from], out[to])
                                        : applyScalarBinary<T>(op->opcode, out[to], updates[from]);
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
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < count; ++i)
      types.push_back(operands[i]->shape().elementType());
  ScalarCall call(evaluator, instruction, combiner, types);
  std::vector<Literal> values;
  llvm::Error failure = llvm::Error::success();
  forEachUpdate([&](int64_t to, int64_t from) {
    if (failure)
      return;
    for (size_t i = 0; i < count; ++i) {
      call.setArgument(i, results[i], to);
      call.setArgument(count + i, *operands[count + 1 + i], from);
    }
    if (llvm::Error error = call.run(count, values)) {
      failure = std::move(error);
      return;
    }
    for (size_t i = 0; i < count; ++i) {
      if (values[i].shape().elementType() != types[i]) {
        failure = errorAt(instruction, "to_apply returns " + values[i].shape().toString() +
                                           " for a " + hlo::primitiveTypeName(types[i]) + " input");
        return;
      }
      size_t size = values[i].bytes().size();
      std::memcpy(results[i].bytes().data() + to * size, values[i].bytes().data(), size);
    }
  });
  if (failure)
    return std::move(failure);
  return finish();
}

} // namespace mote::eval
