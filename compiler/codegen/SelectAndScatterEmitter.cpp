//===- SelectAndScatterEmitter.cpp - select-and-scatter -------------------===//
//
// As eval/SelectAndScatter.cpp: the result starts as the init value. For each
// source element, in row-major order, its window over the operand is scanned
// in row-major order (padding and base-dilation holes skipped): the first
// element is selected, and a later one replaces the selection whenever
// select(selected, candidate) is false. The source element is then combined
// into the result at the selected position with the scatter computation; a
// window over padding only scatters nothing.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

namespace mote::codegen {

void FunctionEmitter::emitSelectAndScatter(const hlo::Instruction &instruction) {
  const hlo::Instruction &operand = *instruction.operand(0);
  const hlo::Instruction &source = *instruction.operand(1);
  const hlo::Instruction &init = *instruction.operand(2);
  const hlo::Shape &shape = instruction.shape();
  if (shape.elementCount() == 0)
    return;
  emitOutlined(instruction, [&] {
    const hlo::PrimitiveType type = shape.elementType();
    const hlo::PrimitiveType operandType = operand.shape().elementType();
    llvm::Value *base = address(assignment_.slice(&instruction));
    auto constant = [&](int64_t value) { return llvm::ConstantInt::get(indexType_, value); };

    // Fill with the init value.
    llvm::Value *initValue = readElement(init, {});
    emitCountedLoop(
        builder_, constant(shape.elementCount()),
        [&](llvm::Value *i) { storeElement(builder_, type, initValue, elementAt(type, base, i)); },
        "fill");

    auto reader = [this](const hlo::Instruction &value, IndexRef index) {
      return readElement(value, index);
    };
    ElementalEmitter scalar(builder_, indexType_, reader, contraction_);
    const hlo::Computation &select = *instruction.calledComputation(0);
    const hlo::Computation &scatter = *instruction.calledComputation(1);
    const hlo::Window &window = instruction.attributes().window;
    llvm::SmallVector<int64_t, 4> windowSizes;
    for (const hlo::WindowDimension &dim : window)
      windowSizes.push_back(dim.size);
    llvm::AllocaInst *found = createLocal(builder_.getInt1Ty(), "sas.found");
    llvm::AllocaInst *selected = createLocal(indexType_, "sas.selected");
    llvm::AllocaInst *selectedValue =
        createLocal(valueType(module_.getContext(), operandType), "sas.value");

    emitLoopNest(builder_, indexType_, source.shape().dims(), [&](IndexRef output) {
      builder_.CreateStore(builder_.getFalse(), found);
      builder_.CreateStore(constant(0), selected);
      emitLoopNest(
          builder_, indexType_, windowSizes,
          [&](IndexRef w) {
            llvm::Value *valid = builder_.getTrue();
            llvm::SmallVector<llvm::Value *, 4> position;
            for (size_t d = 0; d < window.size(); ++d) {
              const hlo::WindowDimension &dim = window[d];
              llvm::Value *at = builder_.CreateAdd(
                  builder_.CreateSub(builder_.CreateMul(output[d], constant(dim.stride)),
                                     constant(dim.paddingLow)),
                  builder_.CreateMul(w[d], constant(dim.windowDilation)));
              const int64_t dilatedSize = (operand.shape().dim(d) - 1) * dim.baseDilation + 1;
              valid = builder_.CreateAnd(valid, builder_.CreateICmpSGE(at, constant(0)));
              valid = builder_.CreateAnd(valid, builder_.CreateICmpSLT(at, constant(dilatedSize)));
              if (dim.baseDilation != 1) {
                llvm::Value *phase = builder_.CreateSRem(at, constant(dim.baseDilation));
                valid = builder_.CreateAnd(valid, builder_.CreateICmpEQ(phase, constant(0)));
                at = builder_.CreateSDiv(at, constant(dim.baseDilation));
              }
              position.push_back(at);
            }
            emitIf(
                valid,
                [&] {
                  llvm::Value *linear =
                      emitLinearIndex(builder_, indexType_, operand.shape().dims(), position);
                  llvm::Value *candidate = readElement(operand, position);
                  llvm::Value *haveOne = builder_.CreateLoad(builder_.getInt1Ty(), found);
                  llvm::BasicBlock *first = builder_.GetInsertBlock();
                  llvm::BasicBlock *compare =
                      llvm::BasicBlock::Create(module_.getContext(), "sas.compare", function_);
                  llvm::BasicBlock *decide =
                      llvm::BasicBlock::Create(module_.getContext(), "sas.decide", function_);
                  builder_.CreateCondBr(haveOne, compare, decide);
                  builder_.SetInsertPoint(compare);
                  llvm::Value *current =
                      builder_.CreateLoad(selectedValue->getAllocatedType(), selectedValue);
                  llvm::Value *keep = scalar.emitScalarComputation(select, {current, candidate})[0];
                  llvm::Value *replace = builder_.CreateNot(keep);
                  llvm::BasicBlock *compared = builder_.GetInsertBlock();
                  builder_.CreateBr(decide);
                  builder_.SetInsertPoint(decide);
                  llvm::PHINode *take = builder_.CreatePHI(builder_.getInt1Ty(), 2, "sas.take");
                  take->addIncoming(builder_.getTrue(), first);
                  take->addIncoming(replace, compared);
                  emitIf(
                      take,
                      [&] {
                        builder_.CreateStore(builder_.getTrue(), found);
                        builder_.CreateStore(linear, selected);
                        builder_.CreateStore(candidate, selectedValue);
                      },
                      "sas.take");
                },
                "sas.valid");
          },
          "w");
      emitIf(
          builder_.CreateLoad(builder_.getInt1Ty(), found),
          [&] {
            llvm::Value *at = elementAt(type, base, builder_.CreateLoad(indexType_, selected));
            llvm::Value *current = loadElement(builder_, type, at);
            llvm::Value *combined =
                scalar.emitScalarComputation(scatter, {current, readElement(source, output)})[0];
            storeElement(builder_, type, combined, at);
          },
          "sas.scatter");
    });
  });
}

} // namespace mote::codegen
