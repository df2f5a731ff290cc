//===- ParallelLoops.cpp - Ops split into tasks through env->parallel_for -===//
//
// An op whose outermost loop has independent iterations is emitted as an op
// function over a range of them (OpFunctions.cpp), and a task function
// `void task(void *context, int64_t index)` (mote_task_fn in mote/abi.h)
// that runs task i of n over [i * extent / n, (i + 1) * extent / n). The
// entry function hands the tasks to the port's parallel_for when the call's
// env has one, and otherwise calls the op function over the whole range, so
// a port without threads pays nothing. Each output element is computed
// by exactly the code that computes it sequentially: results do not depend
// on the number of threads.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

namespace mote::codegen {

namespace {

/// Tasks per op: enough to balance a few threads with uneven progress, few
/// enough that handing them out costs nothing next to their work.
constexpr int64_t kMaxTasks = 64;
/// Below this many operations an op runs as one task: waking threads costs
/// microseconds.
constexpr double kParallelWork = 1 << 17;

} // namespace

bool FunctionEmitter::threadsAllowed() const {
  // Bare-metal targets have no threads; their code stays small.
  return target_ && target_->info && !target_->info->bareMetal;
}

void FunctionEmitter::emitParallel(
    const hlo::Instruction &instruction, int64_t extent, double work,
    llvm::function_ref<void(llvm::Value *begin, llvm::Value *end)> body) {
  OpFunction op = createOpFunction(instruction, function_->getName() + "." + instruction.name(),
                                   /*ranged=*/true);
  emitOpBody(op, body);
  llvm::SmallVector<llvm::Value *, 12> pointers = opPointers(op);
  auto callRange = [&](llvm::ArrayRef<llvm::Value *> arguments, llvm::Value *begin,
                       llvm::Value *end) {
    llvm::SmallVector<llvm::Value *, 14> all(arguments.begin(), arguments.end());
    all.push_back(begin);
    all.push_back(end);
    builder_.CreateCall(op.function, all);
  };
  if (extent < 2 || work < kParallelWork || !threadsAllowed() || !env_)
    return callRange(pointers, llvm::ConstantInt::get(indexType_, 0),
                     llvm::ConstantInt::get(indexType_, extent));

  llvm::LLVMContext &context = module_.getContext();
  llvm::Type *ptr = builder_.getPtrTy();
  llvm::Type *i64 = builder_.getInt64Ty();
  // The tasks' shared context: the op's pointers, then the task count.
  llvm::SmallVector<llvm::Type *, 14> fields(pointers.size(), ptr);
  fields.push_back(i64);
  llvm::StructType *contextType = llvm::StructType::get(context, fields);
  const unsigned countField = static_cast<unsigned>(pointers.size());
  llvm::FunctionType *taskType = llvm::FunctionType::get(builder_.getVoidTy(), {ptr, i64}, false);
  llvm::Function *task =
      llvm::Function::Create(taskType, llvm::GlobalValue::InternalLinkage,
                             op.function->getName() + ".task", module_);
  task->addFnAttr(llvm::Attribute::NoUnwind);
  task->addParamAttr(0, llvm::Attribute::NoCapture);
  {
    // Task i of n runs [i * extent / n, (i + 1) * extent / n).
    FunctionSwitch inside(*this, task);
    llvm::Value *shared = task->getArg(0);
    llvm::SmallVector<llvm::Value *, 12> arguments;
    for (unsigned i = 0; i < countField; ++i)
      arguments.push_back(
          builder_.CreateLoad(ptr, builder_.CreateStructGEP(contextType, shared, i)));
    llvm::Value *count =
        builder_.CreateLoad(i64, builder_.CreateStructGEP(contextType, shared, countField));
    llvm::Value *index = task->getArg(1);
    llvm::Value *total = builder_.getInt64(extent);
    auto share = [&](llvm::Value *i) {
      llvm::Value *bound = builder_.CreateUDiv(builder_.CreateNUWMul(i, total), count);
      return builder_.CreateZExtOrTrunc(bound, indexType_);
    };
    callRange(arguments, share(index),
              share(builder_.CreateNUWAdd(index, builder_.getInt64(1))));
    builder_.CreateRetVoid();
  }

  // The call site: the shared context, then parallel_for or a direct call.
  llvm::AllocaInst *shares = createLocal(contextType, instruction.name() + ".tasks");
  for (unsigned i = 0; i < countField; ++i)
    builder_.CreateStore(pointers[i], builder_.CreateStructGEP(contextType, shares, i));
  llvm::Value *countSlot = builder_.CreateStructGEP(contextType, shares, countField);
  llvm::StructType *envType = llvm::StructType::get(context, {ptr, ptr});
  llvm::Value *hasEnv = builder_.CreateIsNotNull(env_);
  llvm::BasicBlock *check = llvm::BasicBlock::Create(context, "parallel.check", function_);
  llvm::BasicBlock *parallel = llvm::BasicBlock::Create(context, "parallel.run", function_);
  llvm::BasicBlock *inline_ = llvm::BasicBlock::Create(context, "parallel.inline", function_);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(context, "parallel.done", function_);
  builder_.CreateCondBr(hasEnv, check, inline_);

  builder_.SetInsertPoint(check);
  llvm::Value *parallelFor =
      builder_.CreateLoad(ptr, builder_.CreateStructGEP(envType, env_, 1), "parallel_for");
  builder_.CreateCondBr(builder_.CreateIsNotNull(parallelFor), parallel, inline_);

  builder_.SetInsertPoint(parallel);
  const int64_t tasks = std::min(extent, kMaxTasks);
  builder_.CreateStore(builder_.getInt64(tasks), countSlot);
  llvm::Value *user = builder_.CreateLoad(ptr, builder_.CreateStructGEP(envType, env_, 0));
  llvm::FunctionType *parallelForType =
      llvm::FunctionType::get(builder_.getVoidTy(), {ptr, ptr, ptr, i64}, false);
  builder_.CreateCall(parallelForType, parallelFor,
                      {user, task, shares, builder_.getInt64(tasks)});
  builder_.CreateBr(done);

  builder_.SetInsertPoint(inline_);
  callRange(pointers, llvm::ConstantInt::get(indexType_, 0),
            llvm::ConstantInt::get(indexType_, extent));
  builder_.CreateBr(done);
  builder_.SetInsertPoint(done);
}

} // namespace mote::codegen
