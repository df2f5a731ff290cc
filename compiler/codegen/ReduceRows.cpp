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
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

namespace mote::codegen {

bool reducesByRows(const hlo::Instruction &reduce) {
  if (reduce.opcode() != Opcode::Reduce || reduce.operandCount() != 2 ||
      !reduce.shape().isArray() || reduce.calledComputations().size() != 1)
    return false;
  // The result buffer cannot hold the f32 sums of a half-precision
  // reduction that accumulates in f32: those fold one element at a time.
  if (eval::halfReductionInF32(reduce))
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

void FunctionEmitter::emitReduceRows(const hlo::Instruction &reduce, const hlo::Instruction &stored,
                                     llvm::Value *base, ElementalEmitter &elemental,
                                     ElementalEmitter::OperandReader read, LoopRange range) {
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
      [&](IndexRef index) { storeElement(builder_, type, init, elementAddress(stored, base, index)); },
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
      storeElement(builder_, type, elemental.emitScalarComputation(reducer, {accumulated, element})[0],
                   address);
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
