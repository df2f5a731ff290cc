//===- Gather.cpp - gather with general dimension numbers -----------------===//
//
// For each index vector (the batch), the slice of `slice_sizes` starting at
// the vector's position is copied into the output: start_index_map says which
// operand dimension each vector component starts, operand_batching_dims start
// at the batch's own index along the paired start_indices_batching_dims, and
// the remaining operand dimensions of the slice (not collapsed, not batching)
// land on offset_dims in order. Starts are clamped so the slice fits, as XLA
// specifies.
//
//===----------------------------------------------------------------------===//

#include "eval/GatherScatter.h"
#include "eval/OpEvaluators.h"
#include "eval/OperandChecks.h"

#include "hlo/Diagnostics.h"

#include <algorithm>
#include <cstring>

namespace mote::eval {

using hlo::errorAt;
using hlo::Literal;

Result evaluateGather(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 2))
    return std::move(error);
  const Literal &operand = *operands[0];
  const Literal &indices = *operands[1];
  const hlo::GatherDimensionNumbers &numbers = instruction.attributes().gatherDimensions;
  const hlo::DimVector &sliceSizes = instruction.attributes().gatherSliceSizes;
  const hlo::Shape &shape = operand.shape();
  const int64_t rank = shape.rank();
  if (!hlo::isInteger(indices.shape().elementType()))
    return errorAt(instruction, "gather indices must be integers");
  if (numbers.indexVectorDim < 0 || numbers.indexVectorDim > indices.shape().rank())
    return errorAt(instruction, "index_vector_dim is out of range");
  if (static_cast<int64_t>(sliceSizes.size()) != rank)
    return errorAt(instruction, "slice_sizes must have one entry per operand dimension");
  for (int64_t d = 0; d < rank; ++d)
    if (sliceSizes[d] < 0 || sliceSizes[d] > shape.dim(d))
      return errorAt(instruction, "slice size " + llvm::Twine(sliceSizes[d]) +
                                      " does not fit operand dimension " + llvm::Twine(d));
  IndexVectors vectors(indices, numbers.indexVectorDim);
  if (vectors.vectorSize() != static_cast<int64_t>(numbers.startIndexMap.size()))
    return errorAt(instruction, "index vectors have " + llvm::Twine(vectors.vectorSize()) +
                                    " components but start_index_map has " +
                                    llvm::Twine(numbers.startIndexMap.size()));

  // Classify operand dimensions: 1 collapsed, 2 batching, 0 part of the window.
  llvm::SmallVector<int, 6> kind(rank, 0);
  auto mark = [&](llvm::ArrayRef<int64_t> dims, int value) -> bool {
    for (int64_t d : dims) {
      if (d < 0 || d >= rank || kind[d] != 0 || sliceSizes[d] > 1)
        return false;
      kind[d] = value;
    }
    return true;
  };
  if (!mark(numbers.collapsedSliceDims, 1) || !mark(numbers.operandBatchingDims, 2))
    return errorAt(instruction, "collapsed_slice_dims and operand_batching_dims must be distinct "
                                "operand dimensions of slice size at most 1");
  for (int64_t d : numbers.startIndexMap)
    if (d < 0 || d >= rank || kind[d] == 2)
      return errorAt(instruction, "start_index_map names an invalid operand dimension");
  if (numbers.startIndicesBatchingDims.size() != numbers.operandBatchingDims.size())
    return errorAt(instruction, "operand_batching_dims and start_indices_batching_dims differ "
                                "in length");
  for (size_t i = 0; i < numbers.operandBatchingDims.size(); ++i) {
    int64_t dim = numbers.startIndicesBatchingDims[i];
    if (dim < 0 || dim >= indices.shape().rank() || dim == numbers.indexVectorDim ||
        indices.shape().dim(dim) != shape.dim(numbers.operandBatchingDims[i]))
      return errorAt(instruction, "start_indices_batching_dims must name index dimensions of "
                                  "the batching dimensions' sizes");
  }
  Index windowDims;
  for (int64_t d = 0; d < rank; ++d)
    if (kind[d] == 0)
      windowDims.push_back(d);
  if (windowDims.size() != numbers.offsetDims.size())
    return errorAt(instruction, "offset_dims must name one output dimension per slice dimension "
                                "that is neither collapsed nor batching");

  // Output: offset dims hold the window, the others the batch, in order.
  llvm::ArrayRef<int64_t> batchDims = vectors.batchDims();
  const int64_t outputRank = static_cast<int64_t>(batchDims.size() + windowDims.size());
  llvm::SmallVector<int64_t, 6> windowPosition(outputRank, -1);
  for (size_t j = 0; j < numbers.offsetDims.size(); ++j) {
    int64_t d = numbers.offsetDims[j];
    if (d < 0 || d >= outputRank || windowPosition[d] != -1 ||
        (j > 0 && d < numbers.offsetDims[j - 1]))
      return errorAt(instruction, "offset_dims must be sorted, distinct output dimensions");
    windowPosition[d] = static_cast<int64_t>(j);
  }
  Index outputDims, batchOutputDims;
  for (int64_t d = 0, b = 0; d < outputRank; ++d) {
    if (windowPosition[d] >= 0) {
      outputDims.push_back(sliceSizes[windowDims[windowPosition[d]]]);
    } else {
      batchOutputDims.push_back(d);
      outputDims.push_back(batchDims[b++]);
    }
  }
  auto result = makeArrayResult(instruction, shape.elementType(), outputDims);
  if (!result)
    return result.takeError();

  const Index operandStrides = rowMajorStrides(shape.dims());
  const Index outputStrides = rowMajorStrides(outputDims);
  Index windowSizes, windowOperandStrides, windowOutputStrides;
  for (size_t j = 0; j < windowDims.size(); ++j) {
    windowSizes.push_back(sliceSizes[windowDims[j]]);
    windowOperandStrides.push_back(operandStrides[windowDims[j]]);
    windowOutputStrides.push_back(outputStrides[numbers.offsetDims[j]]);
  }
  // The innermost window dimension is copied as a run.
  int64_t runLength = 1, runOperandStride = 0, runOutputStride = 0;
  if (!windowSizes.empty()) {
    runLength = windowSizes.pop_back_val();
    runOperandStride = windowOperandStrides.pop_back_val();
    runOutputStride = windowOutputStrides.pop_back_val();
  }
  const size_t size = hlo::storageBytes(shape.elementType());
  const uint8_t *from = operand.bytes().data();
  uint8_t *to = result->bytes().data();

  Index vector(vectors.vectorSize()), start(rank);
  forEachIndex(batchDims, [&](llvm::ArrayRef<int64_t> batch) {
    vectors.read(batch, vector);
    std::fill(start.begin(), start.end(), 0);
    for (size_t k = 0; k < numbers.startIndexMap.size(); ++k) {
      int64_t d = numbers.startIndexMap[k];
      start[d] = std::clamp<int64_t>(vector[k], 0, shape.dim(d) - sliceSizes[d]);
    }
    for (size_t i = 0; i < numbers.operandBatchingDims.size(); ++i)
      start[numbers.operandBatchingDims[i]] =
          batch[vectors.batchPosition(numbers.startIndicesBatchingDims[i])];
    int64_t operandBase = 0, outputBase = 0;
    for (int64_t d = 0; d < rank; ++d)
      operandBase += start[d] * operandStrides[d];
    for (size_t i = 0; i < batch.size(); ++i)
      outputBase += batch[i] * outputStrides[batchOutputDims[i]];
    forEachWindowElement(windowSizes, operandBase, windowOperandStrides, outputBase,
                         windowOutputStrides, [&](int64_t source, int64_t target) {
                           if (runLength == 0)
                             return; // an empty slice: nothing to copy, maybe no memory
                           if (runOperandStride == 1 && runOutputStride == 1) {
                             std::memcpy(to + target * size, from + source * size,
                                         runLength * size);
                             return;
                           }
                           for (int64_t i = 0; i < runLength; ++i)
                             std::memcpy(to + (target + i * runOutputStride) * size,
                                         from + (source + i * runOperandStride) * size, size);
                         });
  });
  return result;
}

} // namespace mote::eval
