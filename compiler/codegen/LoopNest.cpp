//===- LoopNest.cpp - Counted loops over index spaces ---------------------===//

#include "codegen/LoopNest.h"

namespace mote::codegen {

void emitCountedLoop(llvm::IRBuilderBase &builder, llvm::Value *count,
                     llvm::function_ref<void(llvm::Value *index)> body, const llvm::Twine &name,
                     unsigned vectorWidth) {
  llvm::Function *function = builder.GetInsertBlock()->getParent();
  llvm::LLVMContext &context = builder.getContext();
  llvm::Type *type = count->getType();
  llvm::BasicBlock *preheader = builder.GetInsertBlock();
  llvm::BasicBlock *header = llvm::BasicBlock::Create(context, name + ".header", function);
  llvm::BasicBlock *bodyBlock = llvm::BasicBlock::Create(context, name + ".body", function);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(context, name + ".exit", function);

  builder.CreateBr(header);
  builder.SetInsertPoint(header);
  llvm::PHINode *index = builder.CreatePHI(type, 2, name);
  index->addIncoming(llvm::ConstantInt::get(type, 0), preheader);
  builder.CreateCondBr(builder.CreateICmpULT(index, count), bodyBlock, exit);

  builder.SetInsertPoint(bodyBlock);
  body(index);
  // The body may have created blocks of its own: the latch is wherever it ended.
  llvm::Value *next = builder.CreateNUWAdd(index, llvm::ConstantInt::get(type, 1));
  index->addIncoming(next, builder.GetInsertBlock());
  llvm::BranchInst *latch = builder.CreateBr(header);
  if (vectorWidth > 1) {
    llvm::Metadata *width[] = {llvm::MDString::get(context, "llvm.loop.vectorize.width"),
                               llvm::ConstantAsMetadata::get(builder.getInt32(vectorWidth))};
    llvm::MDNode *hint = llvm::MDNode::get(context, width);
    // A loop's metadata lists itself first.
    llvm::MDNode *loop = llvm::MDNode::getDistinct(context, {nullptr, hint});
    loop->replaceOperandWith(0, loop);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loop);
  }
  builder.SetInsertPoint(exit);
}

llvm::Value *emitScaledIndex(llvm::IRBuilderBase &builder, llvm::Value *index, int64_t scale) {
  if (scale == 0)
    return llvm::ConstantInt::get(index->getType(), 0);
  return scale == 1 ? index
                    : builder.CreateMul(index, llvm::ConstantInt::get(index->getType(), scale));
}

void emitIfThen(llvm::IRBuilderBase &builder, llvm::Value *condition,
                llvm::function_ref<void()> body, const llvm::Twine &name) {
  llvm::Function *function = builder.GetInsertBlock()->getParent();
  auto *then = llvm::BasicBlock::Create(builder.getContext(), name, function);
  auto *done = llvm::BasicBlock::Create(builder.getContext(), name + ".done", function);
  builder.CreateCondBr(condition, then, done);
  builder.SetInsertPoint(then);
  body();
  builder.CreateBr(done);
  builder.SetInsertPoint(done);
}

void emitLoopNest(llvm::IRBuilderBase &builder, llvm::Type *indexType, llvm::ArrayRef<int64_t> dims,
                  llvm::function_ref<void(llvm::ArrayRef<llvm::Value *> index)> body,
                  const llvm::Twine &name, const LoopRange *outerRange) {
  llvm::SmallVector<llvm::Value *, 4> index;
  // The range applies to the outermost loop there is: size-1 dimensions
  // have none.
  size_t rangeLevel = 0;
  while (rangeLevel + 1 < dims.size() && dims[rangeLevel] == 1)
    ++rangeLevel;
  auto emitLevel = [&](auto &self, size_t level) -> void {
    if (level == dims.size()) {
      body(index);
      return;
    }
    if (outerRange && level == rangeLevel) {
      llvm::Value *count = builder.CreateSub(outerRange->end, outerRange->begin);
      emitCountedLoop(
          builder, count,
          [&](llvm::Value *i) {
            index.push_back(builder.CreateNUWAdd(outerRange->begin, i));
            self(self, level + 1);
            index.pop_back();
          },
          name + llvm::Twine(level));
      return;
    }
    // A dimension of size 1 needs no loop.
    if (dims[level] == 1) {
      index.push_back(llvm::ConstantInt::get(indexType, 0));
      self(self, level + 1);
      index.pop_back();
      return;
    }
    emitCountedLoop(
        builder, llvm::ConstantInt::get(indexType, dims[level]),
        [&](llvm::Value *i) {
          index.push_back(i);
          self(self, level + 1);
          index.pop_back();
        },
        name + llvm::Twine(level));
  };
  for (int64_t dim : dims)
    if (dim == 0)
      return;
  emitLevel(emitLevel, 0);
}

int64_t outermostExtent(llvm::ArrayRef<int64_t> dims) {
  for (int64_t dim : dims)
    if (dim != 1)
      return dim;
  return dims.empty() ? 1 : dims.back();
}

llvm::Value *emitLinearIndex(llvm::IRBuilderBase &builder, llvm::Type *indexType,
                             llvm::ArrayRef<int64_t> dims, llvm::ArrayRef<llvm::Value *> index) {
  llvm::Value *linear = llvm::ConstantInt::get(indexType, 0);
  for (size_t d = 0; d < dims.size(); ++d) {
    linear = builder.CreateNUWMul(linear, llvm::ConstantInt::get(indexType, dims[d]));
    linear = builder.CreateNUWAdd(linear, index[d]);
  }
  return linear;
}

llvm::SmallVector<llvm::Value *, 4> emitDelinearize(llvm::IRBuilderBase &builder,
                                                    llvm::Type *indexType,
                                                    llvm::ArrayRef<int64_t> dims,
                                                    llvm::Value *linear) {
  llvm::SmallVector<llvm::Value *, 4> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    llvm::Value *size = llvm::ConstantInt::get(indexType, dims[d]);
    index[d] = d == 0 ? linear : builder.CreateURem(linear, size);
    if (d > 0)
      linear = builder.CreateUDiv(linear, size);
  }
  return index;
}

} // namespace mote::codegen
