//===- ElementalReduction.cpp - dot, convolution, reduce, reduce-window, map ===//
//
// Each generator loops inside itself over what one result element sums or
// folds, in the order the reference evaluator uses, so floats match it bit
// for bit:
//  - dot and convolution accumulate products in the evaluator's accumulation
//    type (c128 or c64 if any side is complex, f64 if any side is f64, else
//    f32 for floats, u32/u64 wrapping for integers), starting from zero, one
//    multiply and one add at a time, or one fused multiply-add where the
//    ContractionArithmetic fuses the type (complex products with the
//    evaluator's plain formula, no Annex G recovery), and convert to the
//    result type once;
//  - reduce and reduce-window fold acc = f(acc, x) from the init value in
//    row-major order (reduce-window skips padding and dilation holes), f16
//    and bf16 in f32 where eval/HalfReduction.h says so (a float reduce's
//    innermost dimension read in runs, ReductionRuns.h).
//
//===----------------------------------------------------------------------===//

#include "codegen/ComplexOps.h"
#include "codegen/ContractionKernel.h"
#include "codegen/ElementTypes.h"
#include "codegen/ElementalEmitter.h"
#include "codegen/LoopNest.h"
#include "codegen/ReductionRuns.h"

#include "hlo/Computation.h"

namespace mote::codegen {

using hlo::PrimitiveType;

namespace {

/// The evaluator's accumulation type for a dot or convolution.
PrimitiveType accumulatorType(PrimitiveType result, PrimitiveType lhs, PrimitiveType rhs) {
  auto any = [&](auto predicate) { return predicate(result) || predicate(lhs) || predicate(rhs); };
  const bool wide =
      any([](PrimitiveType t) { return t == PrimitiveType::F64 || t == PrimitiveType::C128; });
  if (any([](PrimitiveType t) { return hlo::isComplex(t); }))
    return wide ? PrimitiveType::C128 : PrimitiveType::C64;
  if (wide)
    return PrimitiveType::F64;
  if (any([](PrimitiveType t) { return hlo::isFloatingPoint(t); }))
    return PrimitiveType::F32;
  if (any([](PrimitiveType t) { return hlo::bitWidth(t) > 32; }) || result == PrimitiveType::Pred)
    return PrimitiveType::U64;
  return PrimitiveType::U32;
}

/// A stack slot in the function's entry block (promoted to a register by
/// LLVM), holding `initial` at the builder's position.
llvm::AllocaInst *createAccumulator(llvm::IRBuilderBase &builder, llvm::Value *initial,
                                    const llvm::Twine &name) {
  llvm::Function *function = builder.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
  llvm::AllocaInst *slot = entry.CreateAlloca(initial->getType(), nullptr, name);
  builder.CreateStore(initial, slot);
  return slot;
}

/// A product term in the accumulation type: operand values convert the way
/// the evaluator's toAccumulator does (signed integers sign-extend, then wrap).
llvm::Value *toAccumulator(llvm::IRBuilderBase &b, PrimitiveType from, PrimitiveType acc,
                           llvm::Value *value) {
  if (from == PrimitiveType::Pred || hlo::isInteger(from)) {
    if (hlo::isFloatingPoint(acc))
      return emitConvertOp(b, from, acc, value);
    return b.CreateIntCast(value, valueType(b.getContext(), acc), hlo::isSignedInteger(from));
  }
  return emitConvertOp(b, from, acc, value);
}

/// The accumulated value stored as the result type: integers wrap, floats
/// round, floats become integers the way convert does.
llvm::Value *fromAccumulator(llvm::IRBuilderBase &b, PrimitiveType acc, PrimitiveType to,
                             llvm::Value *value) {
  if (hlo::isInteger(to) && hlo::isInteger(acc))
    return b.CreateTrunc(value, valueType(b.getContext(), to));
  if (hlo::isComplex(acc) && !hlo::isComplex(to)) // the real part, converted
    return emitConvertOp(b, hlo::complexComponentType(acc), to, splitComplex(b, value).re);
  return emitConvertOp(b, acc, to, value);
}

llvm::Value *multiplyAdd(llvm::IRBuilderBase &b, PrimitiveType acc,
                         eval::ContractionArithmetic contraction, llvm::Value *sum, llvm::Value *x,
                         llvm::Value *y) {
  if (hlo::isComplex(acc)) {
    Complex s = splitComplex(b, sum), p = splitComplex(b, x), q = splitComplex(b, y);
    llvm::Value *re = b.CreateFSub(b.CreateFMul(p.re, q.re), b.CreateFMul(p.im, q.im));
    llvm::Value *im = b.CreateFAdd(b.CreateFMul(p.re, q.im), b.CreateFMul(p.im, q.re));
    return joinComplex(b, {b.CreateFAdd(s.re, re), b.CreateFAdd(s.im, im)});
  }
  if (hlo::isFloatingPoint(acc))
    return emitMultiplyAdd(b, sum, x, y, isFused(contraction, acc));
  return b.CreateAdd(sum, b.CreateMul(x, y));
}

} // namespace

llvm::Value *ElementalEmitter::emitDot(const hlo::Instruction &instruction, IndexRef index) {
  const hlo::Instruction &lhs = *instruction.operand(0);
  const hlo::Instruction &rhs = *instruction.operand(1);
  const hlo::DotDimensionNumbers &numbers = instruction.attributes().dotDimensions;
  PrimitiveType resultType = instruction.shape().elementType();
  PrimitiveType lhsType = lhs.shape().elementType(), rhsType = rhs.shape().elementType();
  PrimitiveType acc = accumulatorType(resultType, lhsType, rhsType);

  // Result dimensions: batch, then lhs free, then rhs free.
  llvm::SmallVector<llvm::Value *, 4> lhsIndex(lhs.shape().rank()), rhsIndex(rhs.shape().rank());
  size_t next = 0;
  for (size_t i = 0; i < numbers.lhsBatchDimensions.size(); ++i) {
    lhsIndex[numbers.lhsBatchDimensions[i]] = index[next];
    rhsIndex[numbers.rhsBatchDimensions[i]] = index[next];
    ++next;
  }
  auto isListed = [](llvm::ArrayRef<int64_t> list, int64_t dim) {
    return llvm::is_contained(list, dim);
  };
  for (int64_t d = 0; d < lhs.shape().rank(); ++d)
    if (!isListed(numbers.lhsBatchDimensions, d) && !isListed(numbers.lhsContractingDimensions, d))
      lhsIndex[d] = index[next++];
  for (int64_t d = 0; d < rhs.shape().rank(); ++d)
    if (!isListed(numbers.rhsBatchDimensions, d) && !isListed(numbers.rhsContractingDimensions, d))
      rhsIndex[d] = index[next++];

  llvm::SmallVector<int64_t, 4> contracting;
  for (int64_t d : numbers.lhsContractingDimensions)
    contracting.push_back(lhs.shape().dim(d));
  llvm::Value *zero = zeroValue(builder_, acc);
  llvm::AllocaInst *sum = createAccumulator(builder_, zero, "dot.sum");
  emitLoopNest(
      builder_, indexType_, contracting,
      [&](IndexRef k) {
        for (size_t i = 0; i < k.size(); ++i) {
          lhsIndex[numbers.lhsContractingDimensions[i]] = k[i];
          rhsIndex[numbers.rhsContractingDimensions[i]] = k[i];
        }
        llvm::Value *x = toAccumulator(builder_, lhsType, acc, read_(lhs, lhsIndex));
        llvm::Value *y = toAccumulator(builder_, rhsType, acc, read_(rhs, rhsIndex));
        llvm::Value *current = builder_.CreateLoad(sum->getAllocatedType(), sum);
        builder_.CreateStore(multiplyAdd(builder_, acc, contraction_, current, x, y), sum);
      },
      "k");
  return fromAccumulator(builder_, acc, resultType,
                         builder_.CreateLoad(sum->getAllocatedType(), sum));
}

ReductionFold::ReductionFold(ElementalEmitter &elemental, const hlo::Instruction &reduction,
                             llvm::Value *init)
    : elemental_(elemental), reduction_(reduction),
      type_(reduction.operand(0)->shape().elementType()),
      widened_(eval::halfReductionInF32(reduction)), initial_(init) {
  if (widened_)
    initial_ = toCompute(elemental_.builder(), type_, init);
}

llvm::Value *ReductionFold::step(llvm::Value *accumulator, llvm::Value *element) {
  if (!widened_)
    return elemental_.emitScalarComputation(*reduction_.calledComputation(0),
                                            {accumulator, element})[0];
  return stepWidened(accumulator, widen(element));
}

llvm::Value *ReductionFold::widen(llvm::Value *element) {
  return widened_ ? toCompute(elemental_.builder(), type_, element) : element;
}

llvm::Value *ReductionFold::stepWidened(llvm::Value *accumulator, llvm::Value *x) {
  if (!widened_)
    return step(accumulator, x);
  llvm::IRBuilderBase &b = elemental_.builder();
  return widened_->swapped ? emitBinaryOp(b, widened_->opcode, PrimitiveType::F32, x, accumulator)
                           : emitBinaryOp(b, widened_->opcode, PrimitiveType::F32, accumulator, x);
}

llvm::Value *ReductionFold::result(llvm::Value *accumulator) {
  return widened_ ? fromCompute(elemental_.builder(), type_, accumulator) : accumulator;
}

llvm::Value *ElementalEmitter::emitReduce(const hlo::Instruction &instruction, IndexRef index) {
  const hlo::Instruction &operand = *instruction.operand(0);
  llvm::ArrayRef<int64_t> reduced = instruction.attributes().dimensions;
  llvm::SmallVector<int64_t, 4> sortedReduced(reduced.begin(), reduced.end());
  llvm::sort(sortedReduced);
  llvm::SmallVector<int64_t, 4> reducedSizes;
  for (int64_t d : sortedReduced)
    reducedSizes.push_back(operand.shape().dim(d));

  ReductionFold folding(*this, instruction, read_(*instruction.operand(1), {}));
  llvm::AllocaInst *acc = createAccumulator(builder_, folding.initial(), "acc");
  auto source = [&](IndexRef r) {
    llvm::SmallVector<llvm::Value *, 4> position(operand.shape().rank());
    size_t kept = 0, folded = 0;
    for (int64_t d = 0; d < operand.shape().rank(); ++d)
      position[d] = llvm::is_contained(sortedReduced, d) ? r[folded++] : index[kept++];
    return position;
  };
  // A float fold over the innermost dimension reads it in runs
  // (ReductionRuns.h).
  const int64_t innermost = operand.shape().rank() - 1;
  if (!sortedReduced.empty() && sortedReduced.back() == innermost &&
      foldsInRuns(builder_, folding, reducedSizes.back())) {
    emitLoopNest(
        builder_, indexType_, llvm::ArrayRef(reducedSizes).drop_back(),
        [&](IndexRef outer) {
          llvm::SmallVector<llvm::Value *, 4> r(outer.begin(), outer.end());
          r.push_back(nullptr);
          emitFoldInRuns(builder_, indexType_, folding, {acc}, reducedSizes.back(),
                         [&](size_t, llvm::Value *position) {
                           r.back() = position;
                           return read_(operand, source(r));
                         });
        },
        "r");
  } else {
    emitLoopNest(
        builder_, indexType_, reducedSizes,
        [&](IndexRef r) {
          llvm::Value *current = builder_.CreateLoad(acc->getAllocatedType(), acc);
          builder_.CreateStore(folding.step(current, read_(operand, source(r))), acc);
        },
        "r");
  }
  return folding.result(builder_.CreateLoad(acc->getAllocatedType(), acc));
}

llvm::Value *ElementalEmitter::emitReduceWindow(const hlo::Instruction &instruction,
                                                IndexRef index) {
  const hlo::Instruction &operand = *instruction.operand(0);
  const hlo::Window &window = instruction.attributes().window;
  llvm::SmallVector<int64_t, 4> windowSizes;
  for (const hlo::WindowDimension &dim : window)
    windowSizes.push_back(dim.size);

  ReductionFold folding(*this, instruction, read_(*instruction.operand(1), {}));
  llvm::AllocaInst *acc = createAccumulator(builder_, folding.initial(), "acc");
  llvm::Function *function = builder_.GetInsertBlock()->getParent();
  emitLoopNest(
      builder_, indexType_, windowSizes,
      [&](IndexRef w) {
        llvm::Value *valid = builder_.getTrue();
        llvm::SmallVector<llvm::Value *, 4> source;
        for (size_t d = 0; d < window.size(); ++d) {
          const hlo::WindowDimension &dim = window[d];
          // Position in the padded, base-dilated input (signed: may be negative).
          llvm::Value *position = builder_.CreateAdd(
              builder_.CreateSub(builder_.CreateMul(index[d], indexConstant(dim.stride)),
                                 indexConstant(dim.paddingLow)),
              builder_.CreateMul(w[d], indexConstant(dim.windowDilation)));
          const int64_t dilatedSize = (operand.shape().dim(d) - 1) * dim.baseDilation + 1;
          valid = builder_.CreateAnd(valid, builder_.CreateICmpSGE(position, indexConstant(0)));
          valid = builder_.CreateAnd(valid,
                                     builder_.CreateICmpSLT(position, indexConstant(dilatedSize)));
          if (dim.baseDilation != 1) {
            llvm::Value *phase = builder_.CreateSRem(position, indexConstant(dim.baseDilation));
            valid = builder_.CreateAnd(valid, builder_.CreateICmpEQ(phase, indexConstant(0)));
            position = builder_.CreateSDiv(position, indexConstant(dim.baseDilation));
          }
          source.push_back(position);
        }
        // Only valid positions are read: out-of-range indices must not be loaded.
        llvm::BasicBlock *fold =
            llvm::BasicBlock::Create(builder_.getContext(), "rw.fold", function);
        llvm::BasicBlock *skip =
            llvm::BasicBlock::Create(builder_.getContext(), "rw.next", function);
        builder_.CreateCondBr(valid, fold, skip);
        builder_.SetInsertPoint(fold);
        llvm::Value *current = builder_.CreateLoad(acc->getAllocatedType(), acc);
        builder_.CreateStore(folding.step(current, read_(operand, source)), acc);
        builder_.CreateBr(skip);
        builder_.SetInsertPoint(skip);
      },
      "w");
  return folding.result(builder_.CreateLoad(acc->getAllocatedType(), acc));
}

llvm::Value *ElementalEmitter::emitConvolution(const hlo::Instruction &instruction,
                                               IndexRef index) {
  const hlo::Instruction &input = *instruction.operand(0);
  const hlo::Instruction &kernel = *instruction.operand(1);
  const hlo::InstructionAttributes &attributes = instruction.attributes();
  const hlo::ConvolutionDimensionNumbers &numbers = attributes.convolutionDimensions;
  const hlo::Window &window = attributes.window;
  PrimitiveType resultType = instruction.shape().elementType();
  PrimitiveType inputType = input.shape().elementType();
  PrimitiveType kernelType = kernel.shape().elementType();
  PrimitiveType acc = accumulatorType(resultType, inputType, kernelType);

  const int64_t outputFeatures = kernel.shape().dim(numbers.kernelOutputFeatureDimension);
  const int64_t groupInputFeatures = kernel.shape().dim(numbers.kernelInputFeatureDimension);
  const int64_t groups = std::max(attributes.featureGroupCount, attributes.batchGroupCount);
  const bool batchGroups = attributes.batchGroupCount > 1;
  const int64_t groupOutputFeatures = outputFeatures / groups;
  const int64_t outputBatch = instruction.shape().dim(numbers.outputBatchDimension);

  llvm::Value *outFeature = index[numbers.outputFeatureDimension];
  llvm::Value *group = builder_.CreateUDiv(outFeature, indexConstant(groupOutputFeatures));
  llvm::Value *batch = index[numbers.outputBatchDimension];
  if (batchGroups)
    batch = builder_.CreateAdd(builder_.CreateMul(group, indexConstant(outputBatch)), batch);
  llvm::Value *featureBase =
      batchGroups ? indexConstant(0) : builder_.CreateMul(group, indexConstant(groupInputFeatures));

  // Loop space: window positions (row-major), input features innermost.
  llvm::SmallVector<int64_t, 4> space;
  for (const hlo::WindowDimension &dim : window)
    space.push_back(dim.size);
  space.push_back(groupInputFeatures);

  llvm::AllocaInst *sum = createAccumulator(builder_, zeroValue(builder_, acc), "conv.sum");
  llvm::Function *function = builder_.GetInsertBlock()->getParent();
  emitLoopNest(
      builder_, indexType_, space,
      [&](IndexRef w) {
        const size_t spatial = window.size();
        llvm::Value *inside = builder_.getTrue();  // not over padding
        llvm::Value *notHole = builder_.getTrue(); // not in an lhs-dilation hole
        llvm::SmallVector<llvm::Value *, 4> inputIndex(input.shape().rank());
        llvm::SmallVector<llvm::Value *, 4> kernelIndex(kernel.shape().rank());
        for (size_t d = 0; d < spatial; ++d) {
          const hlo::WindowDimension &dim = window[d];
          llvm::Value *position = builder_.CreateAdd(
              builder_.CreateSub(builder_.CreateMul(index[numbers.outputSpatialDimensions[d]],
                                                    indexConstant(dim.stride)),
                                 indexConstant(dim.paddingLow)),
              builder_.CreateMul(w[d], indexConstant(dim.windowDilation)));
          const int64_t inputSize = input.shape().dim(numbers.inputSpatialDimensions[d]);
          const int64_t dilatedSize = (inputSize - 1) * dim.baseDilation + 1;
          inside = builder_.CreateAnd(inside, builder_.CreateICmpSGE(position, indexConstant(0)));
          inside = builder_.CreateAnd(inside,
                                      builder_.CreateICmpSLT(position, indexConstant(dilatedSize)));
          if (dim.baseDilation != 1) {
            // Holes repeat into the padding too: only positions on the dilated
            // grid take part, in range (x * w) or not (0 * w).
            llvm::Value *phase = builder_.CreateSRem(position, indexConstant(dim.baseDilation));
            notHole = builder_.CreateAnd(notHole, builder_.CreateICmpEQ(phase, indexConstant(0)));
            position = builder_.CreateSDiv(position, indexConstant(dim.baseDilation));
          }
          // A clamped index keeps the (unused) load in bounds over padding.
          llvm::Value *clamped = builder_.CreateSelect(
              builder_.CreateICmpSLT(position, indexConstant(0)), indexConstant(0), position);
          clamped = builder_.CreateSelect(builder_.CreateICmpSGE(clamped, indexConstant(inputSize)),
                                          indexConstant(inputSize - 1), clamped);
          inputIndex[numbers.inputSpatialDimensions[d]] = clamped;
          kernelIndex[numbers.kernelSpatialDimensions[d]] =
              dim.windowReversal ? builder_.CreateSub(indexConstant(dim.size - 1), w[d]) : w[d];
        }
        llvm::Value *feature = w[spatial];
        inputIndex[numbers.inputBatchDimension] = batch;
        inputIndex[numbers.inputFeatureDimension] = builder_.CreateAdd(featureBase, feature);
        kernelIndex[numbers.kernelInputFeatureDimension] = feature;
        kernelIndex[numbers.kernelOutputFeatureDimension] = outFeature;

        llvm::BasicBlock *add =
            llvm::BasicBlock::Create(builder_.getContext(), "conv.add", function);
        llvm::BasicBlock *next =
            llvm::BasicBlock::Create(builder_.getContext(), "conv.next", function);
        builder_.CreateCondBr(notHole, add, next);
        builder_.SetInsertPoint(add);
        // Padding contributes 0 * w, as in the evaluator's patch matrix.
        llvm::Value *x = toAccumulator(builder_, inputType, acc, read_(input, inputIndex));
        x = builder_.CreateSelect(inside, x, zeroValue(builder_, acc));
        llvm::Value *y = toAccumulator(builder_, kernelType, acc, read_(kernel, kernelIndex));
        llvm::Value *current = builder_.CreateLoad(sum->getAllocatedType(), sum);
        builder_.CreateStore(multiplyAdd(builder_, acc, contraction_, current, x, y), sum);
        builder_.CreateBr(next);
        builder_.SetInsertPoint(next);
      },
      "cw");
  return fromAccumulator(builder_, acc, resultType,
                         builder_.CreateLoad(sum->getAllocatedType(), sum));
}

llvm::Value *ElementalEmitter::emitMap(const hlo::Instruction &instruction, IndexRef index) {
  llvm::SmallVector<llvm::Value *, 4> arguments;
  for (size_t i = 0; i < instruction.operandCount(); ++i)
    arguments.push_back(operandAt(instruction, i, index));
  return emitScalarComputation(*instruction.calledComputation(0), arguments)[0];
}

} // namespace mote::codegen
