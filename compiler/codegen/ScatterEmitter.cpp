//===- ScatterEmitter.cpp - scatter (variadic) ----------------------------===//
//
// As eval/Scatter.cpp: the results start as copies of the inputs; index
// vectors are taken in row-major order of the index batch, and for each the
// window of updates is combined into the results at the window's start with
// to_apply(current..., update...), window elements in row-major order, so
// duplicate indices fold in the evaluator's order. A window that does not fit
// entirely inside the operand (negative or too large start) is skipped whole.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

namespace mote::codegen {

void FunctionEmitter::emitScatter(const hlo::Instruction &instruction) {
  const size_t count = instruction.operandCount() / 2;
  for (size_t i = 0; i < count; ++i)
    copySlice(assignment_.slice(&instruction, i), assignment_.slice(instruction.operand(i)));
  const hlo::Instruction &indices = *instruction.operand(count);
  const hlo::Instruction &firstUpdate = *instruction.operand(count + 1);
  const hlo::Shape &shape = instruction.operand(0)->shape();
  if (shape.elementCount() == 0 || firstUpdate.shape().elementCount() == 0)
    return;

  emitOutlined(instruction, [&] {
    const hlo::ScatterDimensionNumbers &numbers = instruction.attributes().scatterDimensions;
    const int64_t rank = shape.rank();
    const int64_t vectorDim = numbers.indexVectorDim;
    const hlo::Shape &indicesShape = indices.shape();
    const hlo::Shape &updateShape = firstUpdate.shape();

    llvm::SmallVector<int64_t, 4> batchDims;
    for (int64_t d = 0; d < indicesShape.rank(); ++d)
      if (d != vectorDim)
        batchDims.push_back(indicesShape.dim(d));
    llvm::SmallVector<int64_t, 4> scatterUpdateDims;
    for (int64_t d = 0; d < updateShape.rank(); ++d)
      if (!llvm::is_contained(numbers.updateWindowDims, d))
        scatterUpdateDims.push_back(d);
    // Operand dimensions the window covers, paired with update_window_dims.
    llvm::SmallVector<int64_t, 4> windowOperandDims, windowSizes;
    llvm::SmallVector<int64_t, 4> extent(rank, 1);
    for (int64_t d = 0, w = 0; d < rank; ++d) {
      if (llvm::is_contained(numbers.insertedWindowDims, d) ||
          llvm::is_contained(numbers.inputBatchingDims, d))
        continue;
      extent[d] = updateShape.dim(numbers.updateWindowDims[w++]);
      windowOperandDims.push_back(d);
      windowSizes.push_back(extent[d]);
    }

    llvm::SmallVector<hlo::PrimitiveType, 4> types;
    llvm::SmallVector<llvm::Value *, 4> bases;
    for (size_t i = 0; i < count; ++i) {
      types.push_back(instruction.operand(i)->shape().elementType());
      bases.push_back(address(assignment_.slice(&instruction, i)));
    }
    auto reader = [this](const hlo::Instruction &operand, IndexRef index) {
      return readElement(operand, index);
    };
    ElementalEmitter scalar(builder_, indexType_, reader, contraction_);
    const hlo::Computation &combiner = *instruction.calledComputation(0);
    const bool isSigned = hlo::isSignedInteger(indicesShape.elementType());
    llvm::Type *i64 = builder_.getInt64Ty();

    emitLoopNest(builder_, indexType_, batchDims, [&](IndexRef batch) {
      // Starts as i64 (unsigned values above INT64_MAX saturate, as in the
      // evaluator, which keeps them out of range).
      llvm::SmallVector<llvm::Value *, 4> start(rank, nullptr);
      for (size_t k = 0; k < numbers.scatterDimsToOperandDims.size(); ++k) {
        llvm::SmallVector<llvm::Value *, 4> at;
        for (int64_t d = 0, b = 0; d < indicesShape.rank(); ++d)
          at.push_back(d == vectorDim ? llvm::ConstantInt::get(indexType_, k) : batch[b++]);
        llvm::Value *value = builder_.CreateIntCast(readElement(indices, at), i64, isSigned);
        if (!isSigned) {
          llvm::Value *max = llvm::ConstantInt::get(i64, INT64_MAX);
          value = builder_.CreateSelect(builder_.CreateICmpUGT(value, max), max, value);
        }
        start[numbers.scatterDimsToOperandDims[k]] = value;
      }
      for (size_t i = 0; i < numbers.inputBatchingDims.size(); ++i) {
        int64_t dim = numbers.scatterIndicesBatchingDims[i];
        start[numbers.inputBatchingDims[i]] =
            builder_.CreateZExtOrTrunc(batch[dim < vectorDim ? dim : dim - 1], i64);
      }
      llvm::Value *fits = builder_.getTrue();
      for (int64_t d = 0; d < rank; ++d) {
        if (!start[d]) {
          start[d] = llvm::ConstantInt::get(indexType_, 0);
          continue;
        }
        llvm::Value *limit = llvm::ConstantInt::get(i64, shape.dim(d) - extent[d]);
        fits = builder_.CreateAnd(fits,
                                  builder_.CreateICmpSGE(start[d], llvm::ConstantInt::get(i64, 0)));
        fits = builder_.CreateAnd(fits, builder_.CreateICmpSLE(start[d], limit));
        start[d] = builder_.CreateTrunc(start[d], indexType_);
      }
      emitIf(
          fits,
          [&] {
            emitLoopNest(builder_, indexType_, windowSizes, [&](IndexRef window) {
              llvm::SmallVector<llvm::Value *, 4> target(start.begin(), start.end());
              for (size_t j = 0; j < windowOperandDims.size(); ++j)
                target[windowOperandDims[j]] =
                    builder_.CreateNUWAdd(target[windowOperandDims[j]], window[j]);
              llvm::SmallVector<llvm::Value *, 4> source(updateShape.rank());
              for (size_t i = 0; i < scatterUpdateDims.size(); ++i)
                source[scatterUpdateDims[i]] = batch[i];
              for (size_t j = 0; j < numbers.updateWindowDims.size(); ++j)
                source[numbers.updateWindowDims[j]] = window[j];
              llvm::Value *linear = emitLinearIndex(builder_, indexType_, shape.dims(), target);
              llvm::SmallVector<llvm::Value *, 8> arguments;
              llvm::SmallVector<llvm::Value *, 4> addresses;
              for (size_t i = 0; i < count; ++i) {
                addresses.push_back(elementAt(types[i], bases[i], linear));
                arguments.push_back(loadElement(builder_, types[i], addresses[i]));
              }
              for (size_t i = 0; i < count; ++i)
                arguments.push_back(readElement(*instruction.operand(count + 1 + i), source));
              ValueList combined = scalar.emitScalarComputation(combiner, arguments);
              for (size_t i = 0; i < count; ++i)
                storeElement(builder_, types[i], combined[i], addresses[i]);
            });
          },
          "scatter.fits");
    });
  });
}

} // namespace mote::codegen
