//===- ShapeInferenceGatherScatter.cpp - Shapes of gather and scatter ------===//
//
// Both ops pair an operand with a tensor of start indices whose
// index_vector_dim holds index vectors (a trailing size-1 dimension is implied
// when index_vector_dim equals the indices' rank). Batching dimensions pair an
// operand dimension with an indices dimension of the same size.
//
//===----------------------------------------------------------------------===//

#include "hlo/ShapeInferenceRules.h"

#include "llvm/ADT/STLExtras.h"

namespace mote::hlo::inference {
namespace {

bool contains(llvm::ArrayRef<int64_t> values, int64_t value) {
  return llvm::is_contained(values, value);
}

/// Sorted, without repeats, each in [0, bound).
llvm::Error checkDimList(const OpContext &op, llvm::StringRef name, llvm::ArrayRef<int64_t> dims,
                         int64_t bound, bool mustBeSorted) {
  if (mustBeSorted && !std::is_sorted(dims.begin(), dims.end()))
    return op.error(name + "=" + dimsToString(dims) + " must be sorted");
  if (!allDistinct(dims))
    return op.error(name + "=" + dimsToString(dims) + " repeats a dimension");
  if (!allInRange(dims, bound))
    return op.error(name + "=" + dimsToString(dims) + " must be within [0, " + llvm::Twine(bound) +
                    ")");
  return llvm::Error::success();
}

/// The indices' dimensions with the implied trailing index vector dimension.
llvm::Expected<DimVector> expandedIndices(const OpContext &op, const Shape &indices,
                                          int64_t indexVectorDim) {
  if (!indices.isArray() || !isInteger(indices.elementType()))
    return op.error("start indices must be an integer array, got " + indices.toString(false));
  if (indexVectorDim < 0 || indexVectorDim > indices.rank())
    return op.error("index_vector_dim=" + llvm::Twine(indexVectorDim) + " must be within [0, " +
                    llvm::Twine(indices.rank()) + "]");
  DimVector dims(indices.dims().begin(), indices.dims().end());
  if (indexVectorDim == indices.rank())
    dims.push_back(1);
  return dims;
}

/// Checks batching dimension pairs shared by gather and scatter.
llvm::Error checkBatching(const OpContext &op, const Shape &operand, const Shape &indices,
                          llvm::ArrayRef<int64_t> operandBatching,
                          llvm::ArrayRef<int64_t> indicesBatching, int64_t indexVectorDim,
                          llvm::StringRef operandName, llvm::StringRef indicesName) {
  if (llvm::Error error = checkDimList(op, operandName, operandBatching, operand.rank(), true))
    return error;
  if (llvm::Error error = checkDimList(op, indicesName, indicesBatching, indices.rank(), false))
    return error;
  if (operandBatching.size() != indicesBatching.size())
    return op.error(operandName + " and " + indicesName + " must have the same length");
  if (contains(indicesBatching, indexVectorDim))
    return op.error(indicesName +
                    " must not contain index_vector_dim=" + llvm::Twine(indexVectorDim));
  for (size_t i = 0; i < operandBatching.size(); ++i)
    if (operand.dim(operandBatching[i]) != indices.dim(indicesBatching[i]))
      return op.error("batching operand dimension " + llvm::Twine(operandBatching[i]) +
                      " has size " + llvm::Twine(operand.dim(operandBatching[i])) +
                      " but indices dimension " + llvm::Twine(indicesBatching[i]) + " has size " +
                      llvm::Twine(indices.dim(indicesBatching[i])));
  return llvm::Error::success();
}

llvm::Expected<Shape> inferGather(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(2))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  const Shape &operand = op.operand(0), &indices = op.operand(1);
  const GatherDimensionNumbers &dn = op.attributes().gatherDimensions;
  const DimVector &sliceSizes = op.attributes().gatherSliceSizes;
  auto expanded = expandedIndices(op, indices, dn.indexVectorDim);
  if (!expanded)
    return expanded.takeError();
  int64_t outputRank = dn.offsetDims.size() + expanded->size() - 1;
  if (llvm::Error error = checkDimList(op, "offset_dims", dn.offsetDims, outputRank, true))
    return std::move(error);
  if (static_cast<int64_t>(dn.startIndexMap.size()) != (*expanded)[dn.indexVectorDim])
    return op.error("start_index_map has " + llvm::Twine(dn.startIndexMap.size()) +
                    " entries but index vectors have " +
                    llvm::Twine((*expanded)[dn.indexVectorDim]) + " elements");
  if (llvm::Error error =
          checkDimList(op, "start_index_map", dn.startIndexMap, operand.rank(), false))
    return std::move(error);
  if (llvm::Error error =
          checkDimList(op, "collapsed_slice_dims", dn.collapsedSliceDims, operand.rank(), true))
    return std::move(error);
  if (llvm::Error error =
          checkBatching(op, operand, indices, dn.operandBatchingDims, dn.startIndicesBatchingDims,
                        dn.indexVectorDim, "operand_batching_dims", "start_indices_batching_dims"))
    return std::move(error);
  for (int64_t dim : dn.operandBatchingDims) {
    if (contains(dn.collapsedSliceDims, dim))
      return op.error("operand dimension " + llvm::Twine(dim) +
                      " is both collapsed and a batching dimension");
    if (contains(dn.startIndexMap, dim))
      return op.error("operand dimension " + llvm::Twine(dim) +
                      " is both in start_index_map and a batching dimension");
  }
  if (static_cast<int64_t>(sliceSizes.size()) != operand.rank())
    return op.error("slice_sizes=" + dimsToString(sliceSizes) + " has " +
                    llvm::Twine(sliceSizes.size()) + " entries but the operand has rank " +
                    llvm::Twine(operand.rank()));
  size_t windowDims =
      dn.offsetDims.size() + dn.collapsedSliceDims.size() + dn.operandBatchingDims.size();
  if (windowDims != sliceSizes.size())
    return op.error("offset_dims, collapsed_slice_dims and operand_batching_dims together have " +
                    llvm::Twine(windowDims) + " entries but the operand has rank " +
                    llvm::Twine(operand.rank()));
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (sliceSizes[i] < 0 || sliceSizes[i] > operand.dim(i))
      return op.error("slice size " + llvm::Twine(sliceSizes[i]) + " of dimension " +
                      llvm::Twine(i) + " must be within [0, " + llvm::Twine(operand.dim(i)) + "]");
    bool dropped = contains(dn.collapsedSliceDims, i) || contains(dn.operandBatchingDims, i);
    if (dropped && sliceSizes[i] > 1)
      return op.error("collapsed or batching dimension " + llvm::Twine(i) +
                      " must have slice size 0 or 1, got " + llvm::Twine(sliceSizes[i]));
  }
  DimVector dims;
  int64_t operandDim = 0, indicesDim = 0;
  for (int64_t i = 0; i < outputRank; ++i) {
    if (contains(dn.offsetDims, i)) {
      while (contains(dn.collapsedSliceDims, operandDim) ||
             contains(dn.operandBatchingDims, operandDim))
        ++operandDim;
      dims.push_back(sliceSizes[operandDim++]);
    } else {
      if (indicesDim == dn.indexVectorDim)
        ++indicesDim;
      dims.push_back((*expanded)[indicesDim++]);
    }
  }
  return Shape::array(operand.elementType(), dims);
}

llvm::Error checkScatterPair(const OpContext &op, const Shape &operand, const Shape &updates,
                             const Shape &indices, llvm::ArrayRef<int64_t> expanded, size_t pair) {
  const ScatterDimensionNumbers &dn = op.attributes().scatterDimensions;
  std::string which = "updates " + std::to_string(pair) + " " + updates.toString(false);
  int64_t expectedRank = expanded.size() - 1 + dn.updateWindowDims.size();
  if (updates.rank() != expectedRank)
    return op.error(which + " must have rank " + llvm::Twine(expectedRank));
  if (llvm::Error error =
          checkDimList(op, "update_window_dims", dn.updateWindowDims, updates.rank(), true))
    return error;
  if (llvm::Error error =
          checkDimList(op, "inserted_window_dims", dn.insertedWindowDims, operand.rank(), true))
    return error;
  if (llvm::Error error =
          checkBatching(op, operand, indices, dn.inputBatchingDims, dn.scatterIndicesBatchingDims,
                        dn.indexVectorDim, "input_batching_dims", "scatter_indices_batching_dims"))
    return error;
  for (int64_t dim : dn.inputBatchingDims) {
    if (contains(dn.insertedWindowDims, dim))
      return op.error("operand dimension " + llvm::Twine(dim) +
                      " is both inserted and a batching dimension");
    if (contains(dn.scatterDimsToOperandDims, dim))
      return op.error("operand dimension " + llvm::Twine(dim) +
                      " is both in scatter_dims_to_operand_dims and a batching dimension");
  }
  size_t window =
      dn.updateWindowDims.size() + dn.insertedWindowDims.size() + dn.inputBatchingDims.size();
  if (static_cast<int64_t>(window) != operand.rank())
    return op.error("update_window_dims, inserted_window_dims and input_batching_dims together "
                    "have " +
                    llvm::Twine(window) + " entries but operand " + llvm::Twine(pair) +
                    " has rank " + llvm::Twine(operand.rank()));
  if (static_cast<int64_t>(dn.scatterDimsToOperandDims.size()) != expanded[dn.indexVectorDim])
    return op.error("scatter_dims_to_operand_dims has " +
                    llvm::Twine(dn.scatterDimsToOperandDims.size()) +
                    " entries but index vectors have " + llvm::Twine(expanded[dn.indexVectorDim]) +
                    " elements");
  if (llvm::Error error = checkDimList(op, "scatter_dims_to_operand_dims",
                                       dn.scatterDimsToOperandDims, operand.rank(), false))
    return error;
  // Window dimensions of the updates may not exceed the operand's.
  int64_t operandDim = 0;
  for (int64_t windowDim : dn.updateWindowDims) {
    while (contains(dn.insertedWindowDims, operandDim) ||
           contains(dn.inputBatchingDims, operandDim))
      ++operandDim;
    if (updates.dim(windowDim) > operand.dim(operandDim))
      return op.error(which + " window dimension " + llvm::Twine(windowDim) + " has size " +
                      llvm::Twine(updates.dim(windowDim)) + ", larger than operand dimension " +
                      llvm::Twine(operandDim) + " (" + llvm::Twine(operand.dim(operandDim)) + ")");
    ++operandDim;
  }
  int64_t indicesDim = 0;
  for (int64_t i = 0; i < updates.rank(); ++i) {
    if (contains(dn.updateWindowDims, i))
      continue;
    if (indicesDim == dn.indexVectorDim)
      ++indicesDim;
    if (updates.dim(i) != expanded[indicesDim])
      return op.error(which + " scatter dimension " + llvm::Twine(i) + " has size " +
                      llvm::Twine(updates.dim(i)) + " but indices dimension " +
                      llvm::Twine(indicesDim) + " has size " + llvm::Twine(expanded[indicesDim]));
    ++indicesDim;
  }
  return llvm::Error::success();
}

llvm::Expected<Shape> inferScatter(const OpContext &op) {
  size_t count = op.operandCount();
  if (count < 3 || count % 2 == 0)
    return op.error("expected 2N+1 operands (N operands, the indices, N updates), got " +
                    llvm::Twine(count));
  size_t n = count / 2;
  for (size_t i = 0; i < count; ++i)
    if (llvm::Error error = op.expectArray(i, "every operand"))
      return std::move(error);
  const Shape &indices = op.operand(n);
  const ScatterDimensionNumbers &dn = op.attributes().scatterDimensions;
  auto expanded = expandedIndices(op, indices, dn.indexVectorDim);
  if (!expanded)
    return expanded.takeError();
  std::vector<Shape> results;
  llvm::SmallVector<Shape, 2> inits;
  llvm::SmallVector<PrimitiveType, 2> updateTypes;
  for (size_t i = 0; i < n; ++i) {
    const Shape &operand = op.operand(i), &updates = op.operand(n + 1 + i);
    if (i > 0 && !sameDims(operand, op.operand(0)))
      return op.error("operand " + llvm::Twine(i) + " " + operand.toString(false) +
                      " must have the dimensions of operand 0 " + op.operand(0).toString(false));
    if (llvm::Error error = checkScatterPair(op, operand, updates, indices, *expanded, i))
      return std::move(error);
    results.push_back(withoutLayout(operand));
    inits.push_back(Shape::scalar(operand.elementType()));
    updateTypes.push_back(updates.elementType());
  }
  if (llvm::Error error = op.expectCalleeCount(1))
    return std::move(error);
  auto reducer = op.callee(0, "to_apply");
  if (!reducer)
    return reducer.takeError();
  llvm::SmallVector<const Shape *, 2> initPointers;
  for (const Shape &init : inits)
    initPointers.push_back(&init);
  if (llvm::Error error = checkReducer(op, *reducer, initPointers, updateTypes, "to_apply"))
    return std::move(error);
  if (n == 1)
    return results[0];
  return Shape::tuple(std::move(results));
}

} // namespace

llvm::Expected<Shape> inferGatherScatter(const OpContext &op) {
  if (op.instruction().opcode() == Opcode::Gather)
    return inferGather(op);
  return inferScatter(op);
}

} // namespace mote::hlo::inference
