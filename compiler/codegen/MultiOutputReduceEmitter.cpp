//===- MultiOutputReduceEmitter.cpp - reduce / reduce-window with N results ===//
//
// Variadic reductions fold N operands together: for every result index the
// accumulators start at the N init values and take
// to_apply(acc_0..acc_N-1, x_0..x_N-1) over the reduced elements in row-major
// order (reduce-window skips padding and base-dilation holes), the order of
// eval/Reduce.cpp and eval/ReduceWindow.cpp, so floats match bit for bit.
// The accumulators stay in registers and each result leaf is written once.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

namespace mote::codegen {

void FunctionEmitter::emitMultiOutputReduce(const hlo::Instruction &instruction) {
  const size_t count = instruction.operandCount() / 2;
  const hlo::Shape &resultShape = instruction.shape().tupleElement(0);
  if (resultShape.elementCount() == 0)
    return;
  emitOutlined(instruction, [&] {
    const hlo::Shape &shape = instruction.operand(0)->shape();
    llvm::SmallVector<int64_t, 4> reduced(instruction.attributes().dimensions.begin(),
                                          instruction.attributes().dimensions.end());
    llvm::sort(reduced);
    llvm::SmallVector<int64_t, 4> reducedSizes;
    for (int64_t d : reduced)
      reducedSizes.push_back(shape.dim(d));

    auto reader = [this](const hlo::Instruction &operand, IndexRef index) {
      return readElement(operand, index);
    };
    ElementalEmitter scalar(builder_, indexType_, reader, contraction_);
    const hlo::Computation &reducer = *instruction.calledComputation(0);
    llvm::SmallVector<llvm::AllocaInst *, 4> accumulators;
    llvm::SmallVector<llvm::Value *, 4> bases;
    for (size_t i = 0; i < count; ++i) {
      hlo::PrimitiveType type = instruction.operand(i)->shape().elementType();
      accumulators.push_back(createLocal(valueType(module_.getContext(), type), "acc"));
      bases.push_back(address(assignment_.slice(&instruction, i)));
    }

    emitLoopNest(builder_, indexType_, resultShape.dims(), [&](IndexRef index) {
      for (size_t i = 0; i < count; ++i)
        builder_.CreateStore(readElement(*instruction.operand(count + i), {}), accumulators[i]);
      emitLoopNest(
          builder_, indexType_, reducedSizes,
          [&](IndexRef r) {
            llvm::SmallVector<llvm::Value *, 4> source(shape.rank());
            size_t kept = 0, folded = 0;
            for (int64_t d = 0; d < shape.rank(); ++d)
              source[d] = llvm::is_contained(reduced, d) ? r[folded++] : index[kept++];
            llvm::SmallVector<llvm::Value *, 8> arguments;
            for (size_t i = 0; i < count; ++i)
              arguments.push_back(
                  builder_.CreateLoad(accumulators[i]->getAllocatedType(), accumulators[i]));
            for (size_t i = 0; i < count; ++i)
              arguments.push_back(readElement(*instruction.operand(i), source));
            ValueList next = scalar.emitScalarComputation(reducer, arguments);
            for (size_t i = 0; i < count; ++i)
              builder_.CreateStore(next[i], accumulators[i]);
          },
          "r");
      llvm::Value *linear = emitLinearIndex(builder_, indexType_, resultShape.dims(), index);
      for (size_t i = 0; i < count; ++i) {
        hlo::PrimitiveType type = instruction.operand(i)->shape().elementType();
        storeElement(builder_, type,
                     builder_.CreateLoad(accumulators[i]->getAllocatedType(), accumulators[i]),
                     elementAt(type, bases[i], linear));
      }
    });
  });
}

void FunctionEmitter::emitMultiOutputReduceWindow(const hlo::Instruction &instruction) {
  const size_t count = instruction.operandCount() / 2;
  const hlo::Shape &resultShape = instruction.shape().tupleElement(0);
  if (resultShape.elementCount() == 0)
    return;
  emitOutlined(instruction, [&] {
    const hlo::Shape &shape = instruction.operand(0)->shape();
    const hlo::Window &window = instruction.attributes().window;
    llvm::SmallVector<int64_t, 4> windowSizes;
    for (const hlo::WindowDimension &dim : window)
      windowSizes.push_back(dim.size);

    auto reader = [this](const hlo::Instruction &operand, IndexRef index) {
      return readElement(operand, index);
    };
    ElementalEmitter scalar(builder_, indexType_, reader, contraction_);
    const hlo::Computation &reducer = *instruction.calledComputation(0);
    llvm::SmallVector<llvm::AllocaInst *, 4> accumulators;
    llvm::SmallVector<llvm::Value *, 4> bases;
    for (size_t i = 0; i < count; ++i) {
      hlo::PrimitiveType type = instruction.operand(i)->shape().elementType();
      accumulators.push_back(createLocal(valueType(module_.getContext(), type), "acc"));
      bases.push_back(address(assignment_.slice(&instruction, i)));
    }
    auto constant = [&](int64_t value) { return llvm::ConstantInt::get(indexType_, value); };

    emitLoopNest(builder_, indexType_, resultShape.dims(), [&](IndexRef index) {
      for (size_t i = 0; i < count; ++i)
        builder_.CreateStore(readElement(*instruction.operand(count + i), {}), accumulators[i]);
      emitLoopNest(
          builder_, indexType_, windowSizes,
          [&](IndexRef w) {
            llvm::Value *valid = builder_.getTrue();
            llvm::SmallVector<llvm::Value *, 4> source;
            for (size_t d = 0; d < window.size(); ++d) {
              const hlo::WindowDimension &dim = window[d];
              // Position in the padded, base-dilated input (signed).
              llvm::Value *position = builder_.CreateAdd(
                  builder_.CreateSub(builder_.CreateMul(index[d], constant(dim.stride)),
                                     constant(dim.paddingLow)),
                  builder_.CreateMul(w[d], constant(dim.windowDilation)));
              const int64_t dilatedSize = (shape.dim(d) - 1) * dim.baseDilation + 1;
              valid = builder_.CreateAnd(valid, builder_.CreateICmpSGE(position, constant(0)));
              valid = builder_.CreateAnd(valid,
                                         builder_.CreateICmpSLT(position, constant(dilatedSize)));
              if (dim.baseDilation != 1) {
                llvm::Value *phase = builder_.CreateSRem(position, constant(dim.baseDilation));
                valid = builder_.CreateAnd(valid, builder_.CreateICmpEQ(phase, constant(0)));
                position = builder_.CreateSDiv(position, constant(dim.baseDilation));
              }
              source.push_back(position);
            }
            emitIf(
                valid,
                [&] {
                  llvm::SmallVector<llvm::Value *, 8> arguments;
                  for (size_t i = 0; i < count; ++i)
                    arguments.push_back(
                        builder_.CreateLoad(accumulators[i]->getAllocatedType(), accumulators[i]));
                  for (size_t i = 0; i < count; ++i)
                    arguments.push_back(readElement(*instruction.operand(i), source));
                  ValueList next = scalar.emitScalarComputation(reducer, arguments);
                  for (size_t i = 0; i < count; ++i)
                    builder_.CreateStore(next[i], accumulators[i]);
                },
                "rw.fold");
          },
          "w");
      llvm::Value *linear = emitLinearIndex(builder_, indexType_, resultShape.dims(), index);
      for (size_t i = 0; i < count; ++i) {
        hlo::PrimitiveType type = instruction.operand(i)->shape().elementType();
        storeElement(builder_, type,
                     builder_.CreateLoad(accumulators[i]->getAllocatedType(), accumulators[i]),
                     elementAt(type, bases[i], linear));
      }
    });
  });
}

} // namespace mote::codegen
