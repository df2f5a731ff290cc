//===- ReduceRows.cpp - Reductions that keep the innermost dimension ------===//
//
// A reduce that keeps its operand's innermost dimension (a global average
// pool over NHWC, a sum over the batch) reads that dimension contiguously
// but, computed one result element at a time, walks each reduced position
// with a stride: nothing vectorises. Instead the result buffer is the
// accumulator: it starts at the init value, then the operand is walked once
// in row-major order and each element is folded into its result element.
// The innermost loop then runs over contiguous result and operand elements
// and vectorises, and every result element still folds its inputs in the
// row-major order of the reduced dimensions, exactly as the evaluator does.
//
// A half-precision reduce that folds in f32 (eval/HalfReduction.h) cannot
// keep its sums in the result buffer, which holds f16 or bf16. It runs in
// blocks of up to kHalfBlock result elements along the innermost dimension
// instead: their f32 sums live in a stack buffer while the reduced
// dimensions are walked, each step reading one contiguous run of the
// operand, and each sum rounds once into the result when its block is done.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"
#include "codegen/HalfLoopWidth.h"

namespace mote::codegen {

bool reducesByRows(const hlo::Instruction &reduce) {
  if (reduce.opcode() != Opcode::Reduce || reduce.operandCount() != 2 ||
      !reduce.shape().isArray() || reduce.calledComputations().size() != 1)
    return false;
  const hlo::Shape &operand = reduce.operand(0)->shape();
  const auto &reduced = reduce.attributes().dimensions;
  return operand.isArray() && operand.rank() >= 2 && !reduced.empty() &&
         !llvm::is_contained(reduced, operand.rank() - 1) && operand.dims().back() > 1;
}

/// The operand dimension tasks may split: the first one of size > 1, when
/// it is kept (so tasks own disjoint result elements); -1 otherwise.
static int64_t splitDimension(const hlo::Instruction &reduce) {
  const hlo::Shape &operand = reduce.operand(0)->shape();
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (operand.dim(d) != 1)
      return llvm::is_contained(reduce.attributes().dimensions, d) ? -1 : d;
  return -1;
}

int64_t reduceRowsSplitExtent(const hlo::Instruction &reduce) {
  int64_t d = splitDimension(reduce);
  return d < 0 ? 1 : reduce.operand(0)->shape().dim(d);
}

/// Result elements a half-precision reduce sums in f32 at a time (1 KiB of
/// stack).
constexpr int64_t kHalfBlock = 256;

void FunctionEmitter::emitReduceRowsInF32(const hlo::Instruction &reduce,
                                          const hlo::Instruction &stored, llvm::Value *base,
                                          ElementalEmitter &elemental,
                                          ElementalEmitter::OperandReader read, LoopRange range) {
  const hlo::Shape &operand = reduce.operand(0)->shape();
  const auto &reduced = reduce.attributes().dimensions;
  const hlo::PrimitiveType type = stored.shape().elementType();
  const int64_t split = splitDimension(reduce);
  const int64_t inner = operand.rank() - 1;
  const int64_t block = std::min(operand.dim(inner), kHalfBlock);
  ReductionFold fold(elemental, reduce, read(*reduce.operand(1), {}));
  llvm::Type *sumType = fold.accumulatorType();
  llvm::AllocaInst *sums = createLocal(llvm::ArrayType::get(sumType, block), "half.sums");
  auto sumAt = [&](llvm::Value *j) {
    return builder_.CreateInBoundsGEP(sums->getAllocatedType(), sums,
                                      {llvm::ConstantInt::get(indexType_, 0), j});
  };
  auto constant = [&](int64_t value) { return llvm::ConstantInt::get(indexType_, value); };
  auto bounds = [&](int64_t d) {
    return d == split ? range : LoopRange{constant(0), constant(operand.dim(d))};
  };

  // index[d] for every operand dimension; the innermost is start + j.
  llvm::SmallVector<llvm::Value *, 6> index(operand.rank(), constant(0));
  auto kept = [&] {
    llvm::SmallVector<llvm::Value *, 6> indices;
    for (int64_t d = 0; d < operand.rank(); ++d)
      if (!llvm::is_contained(reduced, d))
        indices.push_back(index[d]);
    return indices;
  };
  // Loops over `dims` (in order) with their bounds, then body().
  auto loops = [&](auto &self, llvm::ArrayRef<int64_t> dims, llvm::function_ref<void()> body,
                   const char *name) -> void {
    if (dims.empty())
      return body();
    const LoopRange extent = bounds(dims.front());
    emitCountedLoop(
        builder_, builder_.CreateSub(extent.end, extent.begin),
        [&](llvm::Value *i) {
          index[dims.front()] = builder_.CreateNUWAdd(extent.begin, i);
          self(self, dims.drop_front(), body, name);
        },
        llvm::Twine(name) + llvm::Twine(dims.front()));
  };
  llvm::SmallVector<int64_t, 6> keptOuter, reducedDims;
  for (int64_t d = 0; d < inner; ++d)
    (llvm::is_contained(reduced, d) ? reducedDims : keptOuter).push_back(d);

  // The fold reads the operand's fused ops (an epilogue's bias add and
  // relu, rounded to f16) a column at a time: its width as an epilogue's,
  // over blocks of known length when they split the columns evenly (DS-CNN
  // f16's global average pool took 4 lanes a step, 16 x 4 per 64 channels).
  const bool evenBlocks = split != inner && operand.dim(inner) % block == 0;
  const unsigned foldWidth =
      halfLoopWidth(module_, target_, type, evenBlocks ? constant(block) : nullptr, false);
  loops(
      loops, keptOuter,
      [&] {
        const LoopRange columns = bounds(inner);
        llvm::Value *extent = builder_.CreateSub(columns.end, columns.begin);
        llvm::Value *blocks =
            builder_.CreateUDiv(builder_.CreateAdd(extent, constant(block - 1)), constant(block));
        emitCountedLoop(
            builder_, blocks,
            [&](llvm::Value *b) {
              llvm::Value *offset = builder_.CreateNUWMul(b, constant(block));
              llvm::Value *start = builder_.CreateNUWAdd(columns.begin, offset);
              llvm::Value *left = builder_.CreateSub(extent, offset);
              llvm::Value *count = builder_.CreateSelect(
                  builder_.CreateICmpULT(left, constant(block)), left, constant(block));
              auto eachColumn = [&](llvm::function_ref<void(llvm::Value *)> body,
                                    const char *name, unsigned width = 0) {
                emitCountedLoop(
                    builder_, count,
                    [&](llvm::Value *j) {
                      index[inner] = builder_.CreateNUWAdd(start, j);
                      body(j);
                    },
                    name, width);
              };
              eachColumn([&](llvm::Value *j) { builder_.CreateStore(fold.initial(), sumAt(j)); },
                         "half.init");
              loops(
                  loops, reducedDims,
                  [&] {
                    eachColumn(
                        [&](llvm::Value *j) {
                          llvm::Value *sum = builder_.CreateLoad(sumType, sumAt(j));
                          builder_.CreateStore(fold.step(sum, read(*reduce.operand(0), index)),
                                               sumAt(j));
                        },
                        "half.fold", foldWidth);
                  },
                  "r");
              eachColumn(
                  [&](llvm::Value *j) {
                    llvm::Value *sum = builder_.CreateLoad(sumType, sumAt(j));
                    storeElement(builder_, type, fold.result(sum),
                                 elementAddress(stored, base, kept()));
                  },
                  "half.store");
            },
            "half.block");
      },
      "k");
}

void FunctionEmitter::emitReduceRows(const hlo::Instruction &reduce, const hlo::Instruction &stored,
                                     llvm::Value *base, ElementalEmitter &elemental,
                                     ElementalEmitter::OperandReader read, LoopRange range) {
  if (eval::halfReductionInF32(reduce))
    return emitReduceRowsInF32(reduce, stored, base, elemental, read, range);
  const hlo::Shape &operand = reduce.operand(0)->shape();
  const auto &reduced = reduce.attributes().dimensions;
  const hlo::PrimitiveType type = stored.shape().elementType();
  const int64_t split = splitDimension(reduce);

  // The result starts as the init value (tasks own the part their range
  // of the split dimension covers).
  llvm::Value *init = read(*reduce.operand(1), {});
  LoopRange resultRange = range;
  emitLoopNest(
      builder_, indexType_, stored.shape().dims(),
      [&](IndexRef index) {
        storeElement(builder_, type, init, elementAddress(stored, base, index));
      },
      "init", split < 0 ? nullptr : &resultRange);

  // One walk over the operand, folding each element into its result.
  const hlo::Computation &reducer = *reduce.calledComputation(0);
  llvm::SmallVector<llvm::Value *, 6> index;
  auto level = [&](auto &self, int64_t d) -> void {
    if (d == operand.rank()) {
      llvm::SmallVector<llvm::Value *, 6> kept;
      for (int64_t k = 0; k < operand.rank(); ++k)
        if (!llvm::is_contained(reduced, k))
          kept.push_back(index[k]);
      llvm::Value *address = elementAddress(stored, base, kept);
      llvm::Value *accumulated = loadElement(builder_, type, address);
      llvm::Value *element = read(*reduce.operand(0), index);
      storeElement(builder_, type,
                   elemental.emitScalarComputation(reducer, {accumulated, element})[0], address);
      return;
    }
    if (operand.dim(d) == 1) {
      index.push_back(llvm::ConstantInt::get(indexType_, 0));
      self(self, d + 1);
      index.pop_back();
      return;
    }
    llvm::Value *begin = llvm::ConstantInt::get(indexType_, 0);
    llvm::Value *count = llvm::ConstantInt::get(indexType_, operand.dim(d));
    if (d == split) {
      begin = range.begin;
      count = builder_.CreateSub(range.end, range.begin);
    }
    emitCountedLoop(
        builder_, count,
        [&](llvm::Value *i) {
          index.push_back(builder_.CreateNUWAdd(begin, i));
          self(self, d + 1);
          index.pop_back();
        },
        "r" + llvm::Twine(d));
  };
  if (operand.elementCount() != 0)
    level(level, 0);
}

} // namespace mote::codegen
