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
/// Below this many operations (a few microseconds of vectorised work) an op
/// runs as one task: handing work to another core costs microseconds, and
/// the next op then reads its results from that core's cache (DS-CNN on two
/// threads: 0.074 ms with 2^17, 0.037 ms with 2^20, as fast as one thread).
constexpr double kParallelWork = 1 << 20;

} // namespace

bool FunctionEmitter::threadsAllowed() const {
  // Bare-metal targets have no threads; their code stays small.
  return target_ && target_->info && !target_->info->bareMetal;
}

FunctionEmitter::RangedOp FunctionEmitter::createRangedOp(
    const hlo::Instruction &instruction, int64_t extent, double work,
    llvm::function_ref<void(llvm::Value *begin, llvm::Value *end)> body) {
  RangedOp ranged;
  ranged.op = createOpFunction(instruction, function_->getName() + "." + instruction.name(),
                               /*ranged=*/true);
  ranged.extent = extent;
  emitOpBody(ranged.op, body);
  // Tasks read their buffers from the entry function's call, which outlives
  // them, so handing work out stores nothing: ops nested in other functions
  // have no call to share and run where they are.
  if (extent < 2 || work < kParallelWork || !threadsAllowed() || !env_ ||
      function_ != entryFunction_)
    return ranged;

  llvm::Type *ptr = builder_.getPtrTy();
  llvm::Type *i64 = builder_.getInt64Ty();
  ranged.tasks = std::min(extent, kMaxTasks);
  llvm::FunctionType *taskType = llvm::FunctionType::get(builder_.getVoidTy(), {ptr, i64}, false);
  ranged.task = llvm::Function::Create(taskType, llvm::GlobalValue::InternalLinkage,
                                       ranged.op.function->getName() + ".task", module_);
  ranged.task->addFnAttr(llvm::Attribute::NoUnwind);
  ranged.task->addParamAttr(0, llvm::Attribute::NoCapture);
  ranged.task->addParamAttr(0, llvm::Attribute::ReadOnly);
  // Task i of n runs [i * extent / n, (i + 1) * extent / n).
  FunctionSwitch inside(*this, ranged.task);
  loadCallPointers(ranged.task->getArg(0));
  llvm::Value *index = ranged.task->getArg(1);
  llvm::Value *total = builder_.getInt64(extent);
  auto share = [&](llvm::Value *i) {
    llvm::Value *bound =
        builder_.CreateUDiv(builder_.CreateNUWMul(i, total), builder_.getInt64(ranged.tasks));
    return builder_.CreateZExtOrTrunc(bound, indexType_);
  };
  callRangedOp(ranged, share(index), share(builder_.CreateNUWAdd(index, builder_.getInt64(1))));
  builder_.CreateRetVoid();
  return ranged;
}

void FunctionEmitter::callRangedOp(const RangedOp &ranged, llvm::Value *begin, llvm::Value *end) {
  llvm::SmallVector<llvm::Value *, 14> all = opPointers(ranged.op);
  all.push_back(begin);
  all.push_back(end);
  builder_.CreateCall(ranged.op.function, all);
}

void FunctionEmitter::emitRangedOpRun(const RangedOp &ranged) {
  auto index = [&](int64_t value) { return llvm::ConstantInt::get(indexType_, value); };
  if (!ranged.task)
    return callRangedOp(ranged, index(0), index(ranged.extent));
  // The call site: the tasks go to the env's parallel_for when it has one,
  // else the op runs over the whole range right here. The check lives in
  // one shared function so that thousands of ops do not leave thousands of
  // identical branches for the optimiser to thread.
  llvm::LLVMContext &context = module_.getContext();
  llvm::BasicBlock *inline_ = llvm::BasicBlock::Create(context, "parallel.inline", function_);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(context, "parallel.done", function_);
  llvm::Value *handedOut = builder_.CreateCall(
      taskDispatcher(), {env_, ranged.task, call_, builder_.getInt64(ranged.tasks)});
  builder_.CreateCondBr(handedOut, done, inline_);
  builder_.SetInsertPoint(inline_);
  callRangedOp(ranged, index(0), index(ranged.extent));
  builder_.CreateBr(done);
  builder_.SetInsertPoint(done);
}

void FunctionEmitter::emitParallel(
    const hlo::Instruction &instruction, int64_t extent, double work,
    llvm::function_ref<void(llvm::Value *begin, llvm::Value *end)> body) {
  emitRangedOpRun(createRangedOp(instruction, extent, work, body));
}

llvm::Function *FunctionEmitter::taskDispatcher() {
  static constexpr const char *kName = "mote.dispatch_tasks";
  if (llvm::Function *known = module_.getFunction(kName))
    return known;
  llvm::LLVMContext &context = module_.getContext();
  llvm::Type *ptr = builder_.getPtrTy();
  llvm::Type *i64 = builder_.getInt64Ty();
  llvm::FunctionType *type =
      llvm::FunctionType::get(builder_.getInt1Ty(), {ptr, ptr, ptr, i64}, false);
  llvm::Function *dispatcher =
      llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, kName, module_);
  dispatcher->addFnAttr(llvm::Attribute::NoInline);
  dispatcher->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value *env = dispatcher->getArg(0);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", dispatcher));
  llvm::BasicBlock *run = llvm::BasicBlock::Create(context, "run", dispatcher);
  llvm::BasicBlock *declined = llvm::BasicBlock::Create(context, "declined", dispatcher);
  builder.CreateCondBr(builder.CreateCall(parallelForCheck(), {env}), run, declined);

  // mote_env: { void *user; parallel_for; ... } (mote/abi.h).
  builder.SetInsertPoint(run);
  llvm::StructType *envType = llvm::StructType::get(context, {ptr, ptr});
  llvm::Value *user = builder.CreateLoad(ptr, builder.CreateStructGEP(envType, env, 0));
  llvm::Value *parallelFor = builder.CreateLoad(ptr, builder.CreateStructGEP(envType, env, 1));
  llvm::FunctionType *parallelForType =
      llvm::FunctionType::get(builder.getVoidTy(), {ptr, ptr, ptr, i64}, false);
  builder.CreateCall(parallelForType, parallelFor,
                     {user, dispatcher->getArg(1), dispatcher->getArg(2), dispatcher->getArg(3)});
  builder.CreateRet(builder.getTrue());

  builder.SetInsertPoint(declined);
  builder.CreateRet(builder.getFalse());
  return dispatcher;
}

} // namespace mote::codegen
