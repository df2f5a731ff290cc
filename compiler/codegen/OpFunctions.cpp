//===- OpFunctions.cpp - One function per op, its buffers noalias ---------===//
//
// Each op's loops live in an internal function of their own, called from the
// entry function (or from a task, ParallelLoops.cpp). Besides the call's
// argument, result and scratch pointers, the function takes one pointer per
// buffer the op touches, each `noalias`: buffer assignment never lets two
// values live at the same time share bytes unless one took over the other's
// memory, and then they are one buffer and one argument. So LLVM knows that
// what an op writes is not what it reads elsewhere, and vectorises loops
// over scratch buffers without run-time overlap checks.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

namespace mote::codegen {

llvm::SmallVector<BufferSlice, 8> FunctionEmitter::opSlices(const hlo::Instruction &instruction) {
  llvm::SmallVector<BufferSlice, 8> slices;
  auto add = [&](const hlo::Instruction &value) {
    for (size_t leaf = 0, n = leafCount(value.shape()); leaf < n; ++leaf) {
      if (!assignment_.hasSlice(&value, static_cast<uint32_t>(leaf)))
        continue;
      const BufferSlice &slice = assignment_.slice(&value, static_cast<uint32_t>(leaf));
      if (slice.kind == BufferSlice::Kind::Empty || slice.kind == BufferSlice::Kind::Constant ||
          llvm::is_contained(slices, slice))
        continue;
      slices.push_back(slice);
    }
  };
  add(instruction);
  for (const hlo::Instruction *operand : instruction.operands())
    add(*operand);
  return slices;
}

FunctionEmitter::OpFunction FunctionEmitter::createOpFunction(const hlo::Instruction &instruction,
                                                              const llvm::Twine &name, bool ranged,
                                                              llvm::ArrayRef<llvm::Type *> more) {
  OpFunction op;
  op.slices = opSlices(instruction);
  op.ranged = ranged;
  llvm::Type *ptr = builder_.getPtrTy();
  llvm::SmallVector<llvm::Type *, 12> parameters(3 + op.slices.size(), ptr);
  if (ranged)
    parameters.append(2, indexType_);
  parameters.append(more.begin(), more.end());
  llvm::FunctionType *type = llvm::FunctionType::get(builder_.getVoidTy(), parameters, false);
  op.function = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name, module_);
  op.function->addFnAttr(llvm::Attribute::NoInline);
  op.function->addFnAttr(llvm::Attribute::NoUnwind);
  op.function->addFnAttr(llvm::Attribute::NoFree);
  op.function->addFnAttr(llvm::Attribute::NoSync);
  for (unsigned i = 0; i < 3 + op.slices.size(); ++i)
    op.function->addParamAttr(i, llvm::Attribute::NoCapture);
  for (unsigned i = 0; i < op.slices.size(); ++i)
    op.function->addParamAttr(3 + i, llvm::Attribute::NoAlias);
  return op;
}

llvm::SmallVector<llvm::Value *, 12> FunctionEmitter::opPointers(const OpFunction &op) {
  llvm::SmallVector<llvm::Value *, 12> pointers = {args_, results_, scratch_};
  for (const BufferSlice &slice : op.slices)
    pointers.push_back(address(slice));
  return pointers;
}

void FunctionEmitter::emitOpBody(
    const OpFunction &op, llvm::function_ref<void(llvm::Value *begin, llvm::Value *end)> body) {
  FunctionSwitch inside(*this, op.function);
  bindOpArguments(op);
  llvm::Value *begin = nullptr, *end = nullptr;
  if (op.ranged) {
    begin = op.function->getArg(3 + op.slices.size());
    end = op.function->getArg(4 + op.slices.size());
  }
  body(begin, end);
  builder_.CreateRetVoid();
}

void FunctionEmitter::bindOpArguments(const OpFunction &op) {
  args_ = op.function->getArg(0);
  results_ = op.function->getArg(1);
  scratch_ = op.function->getArg(2);
  for (auto [i, slice] : llvm::enumerate(op.slices))
    sliceArguments_.push_back({slice, op.function->getArg(unsigned(3 + i))});
}

void FunctionEmitter::emitOutlined(const hlo::Instruction &instruction,
                                   llvm::function_ref<void()> body) {
  OpFunction op = createOpFunction(instruction, function_->getName() + "." + instruction.name(),
                                   /*ranged=*/false);
  emitOpBody(op, [&](llvm::Value *, llvm::Value *) { body(); });
  builder_.CreateCall(op.function, opPointers(op));
}

} // namespace mote::codegen
