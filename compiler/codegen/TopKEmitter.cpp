//===- TopKEmitter.cpp - topk and the TopK custom-call --------------------===//
//
// As eval/Sort.cpp: the k largest (topk with largest=false: smallest)
// elements of every row along the last dimension, in order, with their s32
// indices; floats compare in the total order (NaN above +inf, -NaN below
// -inf, -0 below +0) and ties go to the lower index. That is a strict total
// order, so any selection method gives the evaluator's result: here each row
// is streamed through a sorted list of at most k entries kept in the result
// buffers themselves (insertion from the bottom; a new element only passes
// strictly worse entries, which keeps earlier indices first among equals).
// O(n * k) per row, no scratch.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

namespace mote::codegen {

namespace {

/// An integer whose order is the total order of `type`'s values, and whether
/// it compares signed.
std::pair<llvm::Value *, bool> orderKey(llvm::IRBuilderBase &b, hlo::PrimitiveType type,
                                        llvm::Value *value) {
  if (hlo::isFloatingPoint(type)) {
    llvm::Value *bits = value;
    if (!value->getType()->isIntegerTy())
      bits = b.CreateBitCast(value, b.getIntNTy(value->getType()->getPrimitiveSizeInBits()));
    unsigned width = bits->getType()->getIntegerBitWidth();
    llvm::Value *magnitude =
        llvm::ConstantInt::get(bits->getType(), llvm::APInt::getSignedMaxValue(width));
    llvm::Value *negative = b.CreateICmpSLT(bits, llvm::ConstantInt::get(bits->getType(), 0));
    return {b.CreateSelect(negative, b.CreateXor(bits, magnitude), bits), true};
  }
  return {value, hlo::isSignedInteger(type)};
}

} // namespace

void FunctionEmitter::emitTopK(const hlo::Instruction &instruction) {
  const hlo::Instruction &operand = *instruction.operand(0);
  const hlo::Shape &valuesShape = instruction.shape().tupleElement(0);
  const int64_t n = operand.shape().dims().back();
  const int64_t k = valuesShape.dims().back();
  if (k == 0 || valuesShape.elementCount() == 0)
    return;
  const bool largest =
      instruction.opcode() == Opcode::CustomCall || instruction.attributes().largest;
  emitOutlined(instruction, [&] {
    llvm::IRBuilderBase &b = builder_;
    const hlo::PrimitiveType type = operand.shape().elementType();
    const int64_t rows = operand.shape().elementCount() / n;
    auto constant = [&](int64_t value) { return llvm::ConstantInt::get(indexType_, value); };
    llvm::Value *input = address(assignment_.slice(&operand));
    llvm::Value *values = address(assignment_.slice(&instruction, 0));
    llvm::Value *indices = address(assignment_.slice(&instruction, 1));
    llvm::AllocaInst *filled = createLocal(indexType_, "topk.filled");
    llvm::AllocaInst *slot = createLocal(indexType_, "topk.slot");
    auto better = [&](llvm::Value *x, llvm::Value *y) {
      auto [kx, isSigned] = orderKey(b, type, x);
      llvm::Value *ky = orderKey(b, type, y).first;
      if (largest)
        return isSigned ? b.CreateICmpSGT(kx, ky) : b.CreateICmpUGT(kx, ky);
      return isSigned ? b.CreateICmpSLT(kx, ky) : b.CreateICmpULT(kx, ky);
    };

    emitCountedLoop(
        b, constant(rows),
        [&](llvm::Value *row) {
          llvm::Value *rowIn = b.CreateNUWMul(row, constant(n));
          llvm::Value *rowOut = b.CreateNUWMul(row, constant(k));
          auto outValue = [&](llvm::Value *j) {
            return elementAt(type, values, b.CreateNUWAdd(rowOut, j));
          };
          auto outIndex = [&](llvm::Value *j) {
            return elementAt(hlo::PrimitiveType::S32, indices, b.CreateNUWAdd(rowOut, j));
          };
          b.CreateStore(constant(0), filled);
          emitCountedLoop(
              b, constant(n),
              [&](llvm::Value *i) {
                llvm::Value *x =
                    loadElement(b, type, elementAt(type, input, b.CreateNUWAdd(rowIn, i)));
                llvm::Value *count = b.CreateLoad(indexType_, filled);
                llvm::Value *full = b.CreateICmpEQ(count, constant(k));
                // A full list takes x only if x beats its last entry.
                llvm::BasicBlock *start = b.GetInsertBlock();
                llvm::BasicBlock *check =
                    llvm::BasicBlock::Create(module_.getContext(), "topk.check", function_);
                llvm::BasicBlock *decide =
                    llvm::BasicBlock::Create(module_.getContext(), "topk.decide", function_);
                b.CreateCondBr(full, check, decide);
                b.SetInsertPoint(check);
                llvm::Value *beatsLast = better(x, loadElement(b, type, outValue(constant(k - 1))));
                llvm::BasicBlock *checked = b.GetInsertBlock();
                b.CreateBr(decide);
                b.SetInsertPoint(decide);
                llvm::PHINode *insert = b.CreatePHI(b.getInt1Ty(), 2, "topk.insert");
                insert->addIncoming(b.getTrue(), start);
                insert->addIncoming(beatsLast, checked);
                emitIf(
                    insert,
                    [&] {
                      llvm::Value *current = b.CreateLoad(indexType_, filled);
                      llvm::Value *isFull = b.CreateICmpEQ(current, constant(k));
                      b.CreateStore(b.CreateSelect(isFull, constant(k - 1), current), slot);
                      emitWhileLoop(
                          [&]() -> llvm::Value * {
                            // slot > 0 && better(x, list[slot - 1]), without reading list[-1].
                            llvm::Value *j = b.CreateLoad(indexType_, slot);
                            llvm::BasicBlock *from = b.GetInsertBlock();
                            llvm::BasicBlock *compare = llvm::BasicBlock::Create(
                                module_.getContext(), "topk.cmp", function_);
                            llvm::BasicBlock *merge = llvm::BasicBlock::Create(
                                module_.getContext(), "topk.cmpdone", function_);
                            b.CreateCondBr(b.CreateICmpUGT(j, constant(0)), compare, merge);
                            b.SetInsertPoint(compare);
                            llvm::Value *above = b.CreateSub(j, constant(1));
                            llvm::Value *beats = better(x, loadElement(b, type, outValue(above)));
                            llvm::BasicBlock *compared = b.GetInsertBlock();
                            b.CreateBr(merge);
                            b.SetInsertPoint(merge);
                            llvm::PHINode *result = b.CreatePHI(b.getInt1Ty(), 2);
                            result->addIncoming(b.getFalse(), from);
                            result->addIncoming(beats, compared);
                            return result;
                          },
                          [&] {
                            llvm::Value *j = b.CreateLoad(indexType_, slot);
                            llvm::Value *above = b.CreateSub(j, constant(1));
                            storeElement(b, type, loadElement(b, type, outValue(above)),
                                         outValue(j));
                            storeElement(b, hlo::PrimitiveType::S32,
                                         loadElement(b, hlo::PrimitiveType::S32, outIndex(above)),
                                         outIndex(j));
                            b.CreateStore(above, slot);
                          },
                          "topk.shift");
                      llvm::Value *j = b.CreateLoad(indexType_, slot);
                      storeElement(b, type, x, outValue(j));
                      storeElement(b, hlo::PrimitiveType::S32, b.CreateTrunc(i, b.getInt32Ty()),
                                   outIndex(j));
                      b.CreateStore(
                          b.CreateSelect(isFull, current, b.CreateNUWAdd(current, constant(1))),
                          filled);
                    },
                    "topk.take");
              },
              "topk.i");
        },
        "topk.row");
  });
}

} // namespace mote::codegen
