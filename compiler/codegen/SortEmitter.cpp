//===- SortEmitter.cpp - sort (multi-operand, stable) ---------------------===//
//
// The operands are copied into the result buffers, then every 1-D slice along
// the sort dimension is sorted in place by binary insertion: for each element
// in turn, a binary search over the sorted prefix finds the first position
// whose element the comparator puts after it (an upper bound, so equal
// elements keep their order: the sort is stable), the prefix tail shifts one
// place and the element drops in. All operands move alike. For a comparator
// that is a strict weak order the result is the one std::stable_sort gives
// the reference evaluator; one that is not (`LT` on floats with NaNs) still
// sorts memory-safely, but the order of incomparable elements may differ.
//
// The generated code allocates nothing (no scratch beyond the results), at
// the cost of O(n log n) comparator calls and O(n^2) element moves per slice
// of n elements.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

namespace mote::codegen {

void FunctionEmitter::emitSort(const hlo::Instruction &instruction) {
  const size_t count = instruction.operandCount();
  for (size_t i = 0; i < count; ++i)
    copySlice(assignment_.slice(&instruction, i), assignment_.slice(instruction.operand(i)));
  const hlo::Shape &shape = instruction.operand(0)->shape();
  if (shape.rank() == 0 || shape.elementCount() == 0)
    return;
  const int64_t dim = instruction.attributes().dimensions[0];
  const int64_t length = shape.dim(dim);
  if (length < 2)
    return;

  emitOutlined(instruction, [&] {
    llvm::SmallVector<hlo::PrimitiveType, 4> types;
    llvm::SmallVector<llvm::Value *, 4> bases;
    for (size_t i = 0; i < count; ++i) {
      types.push_back(instruction.operand(i)->shape().elementType());
      bases.push_back(address(assignment_.slice(&instruction, i)));
    }
    int64_t stride = 1;
    for (int64_t d = dim + 1; d < shape.rank(); ++d)
      stride *= shape.dim(d);
    llvm::SmallVector<int64_t, 4> outer(shape.dims().begin(), shape.dims().end());
    outer[dim] = 1;

    auto reader = [this](const hlo::Instruction &operand, IndexRef index) {
      return readElement(operand, index);
    };
    ElementalEmitter scalar(builder_, indexType_, reader, contraction_);
    const hlo::Computation &comparator = *instruction.calledComputation(0);
    llvm::Value *strideValue = llvm::ConstantInt::get(indexType_, stride);
    llvm::Value *one = llvm::ConstantInt::get(indexType_, 1);
    llvm::AllocaInst *lo = createLocal(indexType_, "sort.lo");
    llvm::AllocaInst *hi = createLocal(indexType_, "sort.hi");
    llvm::AllocaInst *cursor = createLocal(indexType_, "sort.cursor");

    emitLoopNest(builder_, indexType_, outer, [&](IndexRef index) {
      llvm::Value *base = emitLinearIndex(builder_, indexType_, shape.dims(), index);
      auto at = [&](size_t i, llvm::Value *position) {
        return elementAt(types[i], bases[i],
                         builder_.CreateNUWAdd(base, builder_.CreateNUWMul(position, strideValue)));
      };
      llvm::Value *tail = llvm::ConstantInt::get(indexType_, length - 1);
      emitCountedLoop(
          builder_, tail,
          [&](llvm::Value *k) {
            llvm::Value *position = builder_.CreateNUWAdd(k, one);
            llvm::SmallVector<llvm::Value *, 4> moving;
            for (size_t i = 0; i < count; ++i)
              moving.push_back(loadElement(builder_, types[i], at(i, position)));

            // Upper bound of `moving` in the sorted prefix [0, position).
            builder_.CreateStore(llvm::ConstantInt::get(indexType_, 0), lo);
            builder_.CreateStore(position, hi);
            emitWhileLoop(
                [&] {
                  return builder_.CreateICmpULT(builder_.CreateLoad(indexType_, lo),
                                                builder_.CreateLoad(indexType_, hi));
                },
                [&] {
                  llvm::Value *low = builder_.CreateLoad(indexType_, lo);
                  llvm::Value *high = builder_.CreateLoad(indexType_, hi);
                  llvm::Value *mid = builder_.CreateLShr(builder_.CreateNUWAdd(low, high), 1);
                  llvm::SmallVector<llvm::Value *, 8> arguments;
                  for (size_t i = 0; i < count; ++i) {
                    arguments.push_back(moving[i]);
                    arguments.push_back(loadElement(builder_, types[i], at(i, mid)));
                  }
                  llvm::Value *before = scalar.emitScalarComputation(comparator, arguments)[0];
                  builder_.CreateStore(builder_.CreateSelect(before, mid, high), hi);
                  builder_.CreateStore(
                      builder_.CreateSelect(before, low, builder_.CreateNUWAdd(mid, one)), lo);
                },
                "sort.search");

            // Shift [target, position) up by one, from the top down.
            llvm::Value *target = builder_.CreateLoad(indexType_, lo);
            builder_.CreateStore(position, cursor);
            emitWhileLoop(
                [&] {
                  return builder_.CreateICmpUGT(builder_.CreateLoad(indexType_, cursor), target);
                },
                [&] {
                  llvm::Value *to = builder_.CreateLoad(indexType_, cursor);
                  llvm::Value *from = builder_.CreateSub(to, one);
                  for (size_t i = 0; i < count; ++i)
                    storeElement(builder_, types[i], loadElement(builder_, types[i], at(i, from)),
                                 at(i, to));
                  builder_.CreateStore(from, cursor);
                },
                "sort.shift");
            for (size_t i = 0; i < count; ++i)
              storeElement(builder_, types[i], moving[i], at(i, target));
          },
          "sort.k");
    });
  });
}

} // namespace mote::codegen
