//===- ElementalGather.cpp - gather as an index -> value generator --------===//
//
// An output index splits into the batch (the output dimensions that are not
// offset_dims, in order: the index operand's dimensions without
// index_vector_dim) and the window position (offset_dims, in order: the
// operand dimensions that are neither collapsed nor batching). The batch
// names an index vector whose components start the dimensions of
// start_index_map, clamped so the whole slice fits (XLA's rule, as in
// eval/Gather.cpp); operand_batching_dims start at the batch's own index
// along the paired start_indices_batching_dims.
//
//===----------------------------------------------------------------------===//

#include "codegen/ElementalEmitter.h"

#include "hlo/Computation.h"

namespace mote::codegen {

llvm::Value *ElementalEmitter::emitGather(const hlo::Instruction &instruction, IndexRef index) {
  const hlo::Instruction &operand = *instruction.operand(0);
  const hlo::Instruction &indices = *instruction.operand(1);
  const hlo::GatherDimensionNumbers &numbers = instruction.attributes().gatherDimensions;
  llvm::ArrayRef<int64_t> sliceSizes = instruction.attributes().gatherSliceSizes;
  const int64_t rank = operand.shape().rank();
  const int64_t indicesRank = indices.shape().rank();
  const int64_t vectorDim = numbers.indexVectorDim;

  // Split the output index into batch and window positions.
  llvm::SmallVector<llvm::Value *, 4> batch, window;
  for (size_t d = 0; d < index.size(); ++d) {
    if (llvm::is_contained(numbers.offsetDims, static_cast<int64_t>(d)))
      window.push_back(index[d]);
    else
      batch.push_back(index[d]);
  }
  // Index operand position of component k of the batch's vector.
  auto vectorIndex = [&](int64_t k) {
    llvm::SmallVector<llvm::Value *, 4> at;
    for (int64_t d = 0, b = 0; d < indicesRank; ++d)
      at.push_back(d == vectorDim ? indexConstant(k) : batch[b++]);
    return at;
  };
  auto batchPosition = [&](int64_t dim) { return dim < vectorDim ? dim : dim - 1; };

  const hlo::PrimitiveType indexType = indices.shape().elementType();
  const bool isSigned = hlo::isSignedInteger(indexType);
  llvm::Type *i64 = builder_.getInt64Ty();
  llvm::SmallVector<llvm::Value *, 4> source(rank, nullptr);
  for (size_t k = 0; k < numbers.startIndexMap.size(); ++k) {
    const int64_t d = numbers.startIndexMap[k];
    llvm::Value *value = read_(indices, vectorIndex(static_cast<int64_t>(k)));
    value = builder_.CreateIntCast(value, i64, isSigned);
    llvm::Value *limit = llvm::ConstantInt::get(i64, operand.shape().dim(d) - sliceSizes[d]);
    llvm::Value *zero = llvm::ConstantInt::get(i64, 0);
    // Unsigned values above INT64_MAX count as huge, so compare unsigned.
    llvm::Value *clamped;
    if (isSigned) {
      clamped = builder_.CreateSelect(builder_.CreateICmpSLT(value, zero), zero, value);
      clamped = builder_.CreateSelect(builder_.CreateICmpSGT(clamped, limit), limit, clamped);
    } else {
      clamped = builder_.CreateSelect(builder_.CreateICmpUGT(value, limit), limit, value);
    }
    source[d] = builder_.CreateTrunc(clamped, indexType_);
  }
  for (size_t i = 0; i < numbers.operandBatchingDims.size(); ++i)
    source[numbers.operandBatchingDims[i]] =
        batch[batchPosition(numbers.startIndicesBatchingDims[i])];

  size_t nextWindow = 0;
  for (int64_t d = 0; d < rank; ++d) {
    const bool collapsed = llvm::is_contained(numbers.collapsedSliceDims, d);
    const bool batching = llvm::is_contained(numbers.operandBatchingDims, d);
    llvm::Value *start = source[d] ? source[d] : indexConstant(0);
    if (batching) {
      source[d] = start;
      continue;
    }
    source[d] = collapsed ? start : builder_.CreateNUWAdd(start, window[nextWindow++]);
  }
  return read_(operand, source);
}

} // namespace mote::codegen
