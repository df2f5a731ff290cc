//===- ReductionRuns.cpp - Float reductions folded from staged runs -------===//
//
// The model is in ReductionRuns.h. emitFoldInRuns is shared by the
// elemental reduce (one result element) and emitReduceInRuns, the loop
// that stores a reduce fusion's result a group of elements at a time.
//
//===----------------------------------------------------------------------===//

#include "codegen/ReductionRuns.h"

#include "codegen/ContractionTiling.h"
#include "codegen/FunctionEmitter.h"
#include "codegen/LoopNest.h"

#include "eval/HalfReduction.h"

namespace mote::codegen {

/// Shorter innermost runs fold as they are read.
constexpr int64_t kShortestRun = 8;

/// The module flag markReductionRuns sets.
constexpr const char *kReductionRunsFlag = "mote.reduction-runs";

void markReductionRuns(llvm::Module &module, const target::TargetSpec *target) {
  if (!target || module.getModuleFlag(kReductionRunsFlag))
    return;
  const llvm::Triple triple(target->triple);
  // Arm's vector unit is Helium, whose floating point flushes subnormals.
  if (vectorRegisters(triple, target).bytes == 0 || triple.isARM() || triple.isThumb())
    return;
  module.addModuleFlag(llvm::Module::Max, kReductionRunsFlag, 1);
}

static bool readsInRuns(const llvm::Module &module) {
  return module.getModuleFlag(kReductionRunsFlag) != nullptr;
}

bool foldsInRuns(llvm::IRBuilderBase &builder, const ReductionFold &fold, int64_t length) {
  return fold.accumulatorType()->isFloatingPointTy() && length >= kShortestRun &&
         readsInRuns(*builder.GetInsertBlock()->getModule());
}

bool reducesInRuns(const hlo::Instruction &reduce, const llvm::Module &module) {
  if (!readsInRuns(module) || reduce.opcode() != Opcode::Reduce || reduce.operandCount() != 2 ||
      !reduce.shape().isArray() || reduce.shape().rank() == 0 ||
      reduce.calledComputations().size() != 1)
    return false;
  const hlo::Shape &operand = reduce.operand(0)->shape();
  const hlo::PrimitiveType type = operand.elementType();
  if (type != hlo::PrimitiveType::F32 && type != hlo::PrimitiveType::F64 &&
      !eval::halfReductionInF32(reduce))
    return false;
  const int64_t innermost = operand.rank() - 1;
  return llvm::is_contained(reduce.attributes().dimensions, innermost) &&
         operand.dim(innermost) >= kShortestRun;
}

void emitFoldInRuns(llvm::IRBuilderBase &builder, llvm::Type *indexType, ReductionFold &fold,
                    llvm::ArrayRef<llvm::AllocaInst *> accumulators, int64_t length,
                    llvm::function_ref<llvm::Value *(size_t k, llvm::Value *position)> read) {
  llvm::Type *sumType = fold.accumulatorType();
  const int64_t run =
      std::min(length, kRunBytes / int64_t(sumType->getPrimitiveSizeInBits().getFixedValue() / 8));
  const int64_t group = int64_t(accumulators.size());
  llvm::Function *function = builder.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
  llvm::AllocaInst *buffer =
      entry.CreateAlloca(llvm::ArrayType::get(sumType, group * run), nullptr, "fold.runs");
  auto constant = [&](int64_t value) { return llvm::ConstantInt::get(indexType, value); };
  // Position-major: one position of every chain side by side, so the fold
  // can read them as one vector when the accumulators become one.
  auto slot = [&](int64_t k, llvm::Value *j) {
    return builder.CreateInBoundsGEP(
        buffer->getAllocatedType(), buffer,
        {constant(0), builder.CreateNUWAdd(builder.CreateNUWMul(j, constant(group)), constant(k))});
  };

  // Stages positions [start, start + count) of every chain, then folds them.
  auto foldRun = [&](llvm::Value *start, int64_t count) {
    emitCountedLoop(
        builder, constant(count),
        [&](llvm::Value *j) {
          for (int64_t k = 0; k < group; ++k) {
            llvm::Value *element = read(size_t(k), builder.CreateNUWAdd(start, j));
            builder.CreateStore(fold.widen(element), slot(k, j));
          }
        },
        "run.widen");
    emitCountedLoop(
        builder, constant(count),
        [&](llvm::Value *j) {
          for (int64_t k = 0; k < group; ++k) {
            llvm::AllocaInst *sum = accumulators[size_t(k)];
            llvm::Value *current = builder.CreateLoad(sumType, sum);
            llvm::Value *x = builder.CreateLoad(sumType, slot(k, j));
            builder.CreateStore(fold.stepWidened(current, x), sum);
          }
        },
        "run.fold");
  };
  const int64_t fullRuns = length / run;
  if (fullRuns == 1)
    foldRun(constant(0), run);
  else
    emitCountedLoop(
        builder, constant(fullRuns),
        [&](llvm::Value *r) { foldRun(builder.CreateNUWMul(r, constant(run)), run); }, "run");
  if (length % run != 0)
    foldRun(constant(fullRuns * run), length % run);
}

void FunctionEmitter::emitReduceInRuns(const hlo::Instruction &reduce,
                                       const hlo::Instruction &stored, llvm::Value *base,
                                       ElementalEmitter &elemental,
                                       ElementalEmitter::OperandReader read, LoopRange range) {
  const hlo::Shape &operand = reduce.operand(0)->shape();
  const llvm::ArrayRef<int64_t> resultDims = stored.shape().dims();
  const hlo::PrimitiveType type = stored.shape().elementType();
  const int64_t rank = int64_t(resultDims.size());
  const int64_t innermost = operand.rank() - 1;
  llvm::SmallVector<int64_t, 4> outerReduced; // reduced dimensions but the innermost, in order
  for (int64_t d = 0; d < innermost; ++d)
    if (llvm::is_contained(reduce.attributes().dimensions, d))
      outerReduced.push_back(d);
  llvm::SmallVector<int64_t, 4> outerReducedSizes;
  for (int64_t d : outerReduced)
    outerReducedSizes.push_back(operand.dim(d));
  auto constant = [&](int64_t value) { return llvm::ConstantInt::get(indexType_, value); };

  // The result dimension `range` applies to, as emitLoopNest picks it.
  int64_t rangeLevel = 0;
  while (rangeLevel + 1 < rank && resultDims[rangeLevel] == 1)
    ++rangeLevel;

  // Result elements (outer..., first + k) for k < count, folded together.
  auto foldGroup = [&](IndexRef outer, llvm::Value *first, size_t count) {
    ReductionFold fold(elemental, reduce, read(*reduce.operand(1), {}));
    llvm::SmallVector<llvm::AllocaInst *, kRunGroup> sums;
    llvm::SmallVector<llvm::SmallVector<llvm::Value *, 4>, kRunGroup> results;
    for (size_t k = 0; k < count; ++k) {
      sums.push_back(createLocal(fold.accumulatorType(), "sum"));
      builder_.CreateStore(fold.initial(), sums.back());
      results.emplace_back(outer.begin(), outer.end());
      results.back().push_back(builder_.CreateNUWAdd(first, constant(int64_t(k))));
    }
    emitLoopNest(
        builder_, indexType_, outerReducedSizes,
        [&](IndexRef r) {
          emitFoldInRuns(builder_, indexType_, fold, sums, operand.dim(innermost),
                         [&](size_t k, llvm::Value *position) {
                           llvm::SmallVector<llvm::Value *, 6> index;
                           size_t kept = 0, folded = 0;
                           for (int64_t d = 0; d < innermost; ++d)
                             index.push_back(llvm::is_contained(outerReduced, d)
                                                 ? r[folded++]
                                                 : results[k][kept++]);
                           index.push_back(position);
                           return read(*reduce.operand(0), index);
                         });
        },
        "r");
    for (size_t k = 0; k < count; ++k)
      storeElement(builder_, type,
                   fold.result(builder_.CreateLoad(fold.accumulatorType(), sums[k])),
                   elementAddress(stored, base, results[k]));
  };

  const bool rangeIsInner = rangeLevel == rank - 1;
  const LoopRange outerRange = range;
  emitLoopNest(
      builder_, indexType_, resultDims.drop_back(),
      [&](IndexRef outer) {
        const LoopRange inner =
            rangeIsInner ? range : LoopRange{constant(0), constant(resultDims.back())};
        llvm::Value *count = builder_.CreateSub(inner.end, inner.begin);
        llvm::Value *groups = builder_.CreateUDiv(count, constant(kRunGroup));
        emitCountedLoop(
            builder_, groups,
            [&](llvm::Value *g) {
              foldGroup(
                  outer,
                  builder_.CreateNUWAdd(inner.begin, builder_.CreateNUWMul(g, constant(kRunGroup))),
                  kRunGroup);
            },
            "group");
        llvm::Value *done =
            builder_.CreateNUWAdd(inner.begin, builder_.CreateNUWMul(groups, constant(kRunGroup)));
        emitCountedLoop(
            builder_, builder_.CreateURem(count, constant(kRunGroup)),
            [&](llvm::Value *t) { foldGroup(outer, builder_.CreateNUWAdd(done, t), 1); },
            "group.tail");
      },
      "d", rangeIsInner ? nullptr : &outerRange);
}

} // namespace mote::codegen
