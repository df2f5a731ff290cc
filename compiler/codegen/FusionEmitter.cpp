//===- FusionEmitter.cpp - One loop nest for a fusion ---------------------===//
//
// A fusion (passes/InstructionFusion.cpp) stores only its root. The loop nest
// runs over the root's result; wherever an elemental generator asks for an
// operand element, a fused instruction is generated at that index in place,
// a fused parameter reads the fusion's operand buffer, and a fused scalar
// constant reads its literal. A value read twice at one index is generated
// once; the pass only fuses cheap ops where reads at many indices would
// repeat work.
//
// An output fusion (kOutput) has a dot or convolution at its heart: the
// register-tiled kernel computes it, and each row of a strip of tiles it
// stores is rewritten in place by the fused elementwise ops (bias,
// activation, residual) while it is still in the first-level cache, so the
// contraction's result never has a buffer of its own. An integer kernel
// hands over each tile's s32 sums in a buffer of one tile instead, and the
// fused ops (a quantized model's rescale to s8) write the result from them;
// an f16 or bf16 kernel hands over its f32 sums the same way, rounded as
// they are read (HalfSumStage.h). When the fusion ends
// in a pad adding edges (the next convolution's padding), the kernel writes
// the interior of the padded array and the edges get the pad value, so the
// padded copy costs no pass of its own.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"
#include "codegen/HalfLoopWidth.h"
#include "codegen/HalfSumStage.h"
#include "codegen/IntegerContraction.h"

namespace mote::codegen {

bool isFusionSupported(const hlo::Instruction &fusion, std::string *why,
                       const hlo::Instruction **culprit) {
  const hlo::Computation *fused =
      fusion.calledComputations().size() == 1 ? fusion.calledComputation(0) : nullptr;
  if (!fused || !fused->root() || !fusion.shape().isArray()) {
    if (why)
      *why = "a fusion must call one computation with an array result";
    return false;
  }
  for (const auto &owned : fused->instructions()) {
    const hlo::Instruction &instruction = *owned;
    if (instruction.opcode() == Opcode::Parameter)
      continue;
    if (instruction.opcode() == Opcode::Constant) {
      if (instruction.shape().isArray() && isCodegenElementType(instruction.shape().elementType()))
        continue;
      if (why)
        *why = "code generation does not support values of type " +
               instruction.shape().toString(false);
    } else if (isElemental(instruction, why)) {
      continue;
    }
    if (culprit)
      *culprit = &instruction;
    return false;
  }
  return true;
}

namespace {

/// The dot or convolution of an output fusion (kOutput), if it is one.
const hlo::Instruction *fusedContraction(const hlo::Instruction &fusion) {
  if (fusion.attributes().fusionKind != "kOutput")
    return nullptr;
  for (const auto &instruction : fusion.calledComputation(0)->instructions())
    if (instruction->opcode() == Opcode::Dot || instruction->opcode() == Opcode::Convolution)
      return instruction.get();
  return nullptr;
}

/// The pad an output fusion ends in, if it does: the contraction's result
/// chain is its operand and the kernel writes the interior.
const hlo::Instruction *rootPad(const hlo::Instruction &fusion) {
  const hlo::Instruction *root = fusion.calledComputation(0)->root();
  return root->opcode() == Opcode::Pad ? root : nullptr;
}

/// The pad of a convolution's input fused with it, which its kernel reads
/// in place (passes/PaddedInputConvolution.h), if there is one.
const hlo::Instruction *inputPad(const hlo::Instruction &contraction) {
  const hlo::Instruction *lhs = contraction.operand(0);
  return contraction.opcode() == Opcode::Convolution && lhs->opcode() == Opcode::Pad ? lhs
                                                                                     : nullptr;
}

/// The value of `instruction` inside `fusion` if it is a constant, or a
/// parameter the fusion passes a constant to; else null.
const hlo::Literal *fusedConstant(const hlo::Instruction &fusion,
                                  const hlo::Instruction &instruction) {
  const hlo::Instruction *value = &instruction;
  if (value->opcode() == Opcode::Parameter)
    value = fusion.operand(size_t(value->attributes().parameterNumber));
  return value->constantValue();
}

/// Where the contraction's elements sit in the fusion's result: row-major
/// in the padded array, shifted by the low edges.
ResultPlacement placementInside(const hlo::Instruction &pad) {
  ResultPlacement placement;
  placement.strides = rowMajorStrides(pad.shape().dims());
  for (auto [d, dim] : llvm::enumerate(pad.attributes().padding))
    placement.base += dim.low * placement.strides[d];
  return placement;
}

/// Whether the kernel can compute `contraction` with `plan` inside
/// `fusion`: it reads its operands from buffers (they are parameters of the
/// fusion, not values generated inside it), its result has the fusion's
/// element type, a pad it ends in only adds edges, and the runs of finished
/// elements it hands over along its columns are runs of the result's minor
/// dimension (the columns are all of it).
bool fitsOutputFusion(const hlo::Instruction &fusion, const hlo::Instruction &contraction,
                      const ContractionPlan &plan) {
  const hlo::Instruction *pad = rootPad(fusion);
  if (pad && llvm::any_of(pad->attributes().padding, [](const hlo::PaddingDimension &dim) {
        return dim.low < 0 || dim.high < 0 || dim.interior != 0;
      }))
    return false;
  llvm::ArrayRef<int64_t> dims = pad ? pad->operand(0)->shape().dims() : fusion.shape().dims();
  // An f32 kernel stores the contraction's values where the fusion's
  // result goes, and the rewrite reads them back from there: one element
  // type (a half kernel's f32 sums are staged, but for the same type). An
  // integer kernel stages its s32 sums apart (a quantized layer's s8
  // result is the usual case).
  if (!isIntegerContraction(plan) &&
      fusion.shape().elementType() != contraction.shape().elementType())
    return false;
  return llvm::all_of(contraction.operands(),
                      [&](const hlo::Instruction *operand) {
                        if (operand == inputPad(contraction))
                          operand = operand->operand(0);
                        return operand->opcode() == Opcode::Parameter;
                      }) &&
         contraction.shape().dims() == dims && !dims.empty() && plan.result.column == 1 &&
         plan.columns == dims.back();
}

/// An s32 bias an integer kernel starts its sums from instead of the
/// epilogue adding it: the contraction's only user is add(contraction,
/// broadcast(b)) with b a constant, one value for all or one per column (the
/// minor dimension).
struct FoldedBias {
  const hlo::Instruction *add;
  const hlo::Literal *values;
};

std::optional<FoldedBias> foldableBias(const hlo::Instruction &fusion,
                                       const hlo::Instruction &contraction,
                                       const ContractionPlan &plan) {
  if (!isIntegerContraction(plan))
    return std::nullopt;
  const hlo::Instruction *user = nullptr;
  for (const auto &instruction : fusion.calledComputation(0)->instructions())
    if (llvm::is_contained(instruction->operands(), &contraction)) {
      if (user)
        return std::nullopt;
      user = instruction.get();
    }
  if (!user || user->opcode() != Opcode::Add || user->shape() != contraction.shape())
    return std::nullopt;
  const hlo::Instruction *broadcast = user->operand(user->operand(0) == &contraction ? 1 : 0);
  if (broadcast->opcode() != Opcode::Broadcast)
    return std::nullopt;
  const hlo::Literal *values = fusedConstant(fusion, *broadcast->operand(0));
  if (!values)
    return std::nullopt;
  const hlo::Shape &shape = values->shape();
  const int64_t rank = contraction.shape().rank();
  const llvm::ArrayRef<int64_t> dims = broadcast->attributes().dimensions;
  const bool perColumn =
      shape.rank() == 1 && dims.size() == 1 && dims[0] == rank - 1 && shape.dim(0) == plan.columns;
  if (shape.elementType() != contraction.shape().elementType() || !(shape.rank() == 0 || perColumn))
    return std::nullopt;
  return FoldedBias{user, values};
}

/// The columns of a run of `count` whose staged sums are in pair order
/// (StagedPairs), two at a time through `emitPair(even column, its sum's
/// position in the stage, odd column, its position)`; returns how many
/// there are. A step takes column 2q and 2q + 1 of a block, whose sums are
/// its q-th even and odd ones: vectorised `pairs.lanes` steps at a time,
/// the even columns' values come in one vector and the odd ones' in
/// another, in the sums' order.
llvm::Value *emitPairedColumns(
    llvm::IRBuilderBase &builder, llvm::Value *count, StagedPairs pairs,
    llvm::function_ref<void(llvm::Value *, llvm::Value *, llvm::Value *, llvm::Value *)> emitPair) {
  llvm::Type *indexType = count->getType();
  auto constant = [&](int64_t value) { return llvm::ConstantInt::get(indexType, value); };
  auto add = [&](llvm::Value *a, llvm::Value *b) {
    return builder.CreateAdd(a, b, "", true, true);
  };
  auto mul = [&](llvm::Value *a, int64_t b) {
    return builder.CreateMul(a, constant(b), "", true, true);
  };
  llvm::Value *paired =
      mul(builder.CreateUDiv(count, constant(pairs.tileColumns)), pairs.tileColumns);
  const int64_t block = 2 * pairs.lanes;
  emitCountedLoop(
      builder, builder.CreateUDiv(paired, constant(block)),
      [&](llvm::Value *b) {
        llvm::Value *begin = mul(b, block);
        emitCountedLoop(
            builder, constant(pairs.lanes),
            [&](llvm::Value *q) {
              llvm::Value *even = add(begin, mul(q, 2));
              emitPair(even, add(begin, q), add(even, constant(1)),
                       add(begin, add(q, constant(pairs.lanes))));
            },
            "ep", unsigned(pairs.lanes));
      },
      "eb");
  return paired;
}

} // namespace

llvm::Value *FunctionEmitter::readFused(FusedValues &values, const hlo::Instruction &operand,
                                        IndexRef index) {
  if (&operand == values.stored && values.storedSum) {
    // A half contraction's f32 sum, rounded once as the tile would have
    // stored it; or an integer kernel's s32 sum, truncated to the
    // contraction's type.
    const hlo::PrimitiveType type = operand.shape().elementType();
    if (isHalfType(type))
      return readStagedHalfSum(builder_, type, values.storedSum);
    return builder_.CreateTrunc(
        builder_.CreateAlignedLoad(builder_.getInt32Ty(), values.storedSum, llvm::Align(4)),
        valueType(builder_.getContext(), operand.shape().elementType()));
  }
  if (&operand == values.stored) {
    llvm::SmallVector<llvm::Value *, 4> at(index.begin(), index.end());
    for (auto [d, shift] : llvm::enumerate(values.storedShift))
      if (shift)
        at[d] = builder_.CreateAdd(at[d], llvm::ConstantInt::get(indexType_, shift));
    return loadElement(builder_, operand.shape().elementType(),
                       elementAddress(values.fusion, values.storedAt, at));
  }
  // A constant read at the column an epilogue in pair order writes comes
  // from its copy in pair order, at the sum's position.
  auto widenedConstant = [&](const hlo::Instruction &constant) -> llvm::Value * {
    if (values.pairLanes && index.size() == 1 && index[0] == values.pairedColumn)
      if (llvm::Value *paired =
              readWidenedConstant(constant, {values.pairedPosition}, values.pairLanes))
        return paired;
    return readWidenedConstant(constant, index);
  };
  switch (operand.opcode()) {
  case Opcode::Parameter: {
    const hlo::Instruction &argument =
        *values.fusion.operand(static_cast<size_t>(operand.attributes().parameterNumber));
    if (llvm::Value *widened = widenedConstant(argument))
      return widened;
    return readElement(argument, index);
  }
  case Opcode::Constant:
    if (llvm::Value *widened = widenedConstant(operand))
      return widened;
    return loadElement(builder_, operand.shape().elementType(),
                       elementAddress(operand, constantAddress(operand), index));
  default:
    break;
  }
  // A value read several times at the same index (a shared subexpression)
  // is generated once, when the reads are in the same block: without this
  // every read would repeat the whole subtree beneath it.
  llvm::BasicBlock *block = builder_.GetInsertBlock();
  for (const FusedValues::Generated &known : values.generated)
    if (known.instruction == &operand && known.block == block &&
        llvm::ArrayRef<llvm::Value *>(known.index) == index)
      return known.value;
  llvm::Value *value = values.elemental->emit(operand, index);
  // Generating it may have moved on to another block (a concatenate's
  // branches): then only later reads in that block may reuse it.
  values.generated.push_back(
      {&operand, {index.begin(), index.end()}, builder_.GetInsertBlock(), value});
  return value;
}

void FunctionEmitter::emitFusion(const hlo::Instruction &fusion) {
  const BufferSlice &out = assignment_.slice(&fusion);
  if (out.kind == BufferSlice::Kind::Empty)
    return;
  if (const hlo::Instruction *contraction = fusedContraction(fusion)) {
    ContractionPlan plan;
    const hlo::Instruction *pad = rootPad(fusion);
    ResultPlacement inside;
    if (pad)
      inside = placementInside(*pad);
    const ResultPlacement *placement = pad ? &inside : nullptr;
    bool tiled = contraction->opcode() == Opcode::Dot
                     ? isTiledDot(*contraction, nullptr, &plan, placement)
                     : isTiledConvolution(*contraction, nullptr, &plan, placement);
    PaddedInputBoxes boxes;
    if (const hlo::Instruction *padded = inputPad(*contraction)) {
      const hlo::Literal *value = fusedConstant(fusion, *padded->operand(1));
      tiled = tiled && value &&
              planPaddedInputConvolution(*contraction, *padded, *value,
                                         fusedConstant(fusion, *contraction->operand(1)), placement,
                                         boxes);
    }
    if (tiled && fitsOutputFusion(fusion, *contraction, plan))
      return emitOutputFusion(fusion, *contraction, plan, boxes.plans.empty() ? nullptr : &boxes);
    // Otherwise the contraction is generated element by element like the
    // rest of the fusion.
  }
  flushChain();
  const hlo::Computation &fused = *fusion.calledComputation(0);
  double work = elementalWork(*fused.root(), double(fused.instructionCount()));
  const hlo::Instruction &root = *fused.root();
  emitParallel(fusion, rootLoopExtent(root, fusion), work,
               [&](llvm::Value *begin, llvm::Value *end) {
                 // The reader and the emitter refer to each other: fused instructions are
                 // generated by the same emitter that asked for them.
                 FusedValues values(fusion);
                 auto reader = [&](const hlo::Instruction &operand, IndexRef index) {
                   return readFused(values, operand, index);
                 };
                 ElementalEmitter elemental(builder_, indexType_, reader, contraction_);
                 elemental.setFusion(&fusion);
                 values.elemental = &elemental;
                 emitRootLoop(root, fusion, address(out), elemental, reader, {begin, end});
               });
}

void FunctionEmitter::emitOutputFusion(const hlo::Instruction &fusion,
                                       const hlo::Instruction &contraction,
                                       const ContractionPlan &plan, PaddedInputBoxes *boxes) {
  const hlo::Instruction *pad = rootPad(fusion);
  // The value stored at each element the kernel computes: the root, or the
  // operand of the pad the fusion ends in.
  const hlo::Instruction &result = pad ? *pad->operand(0) : *fusion.calledComputation(0)->root();
  // What the kernel hands over: the contraction, or with its bias folded in,
  // the sum.
  const hlo::Instruction *stored = &contraction;
  ContractionPlan kernelPlan = plan;
  kernelPlan.epilogueReadsPairs = true; // the epilogue below
  if (std::optional<FoldedBias> bias = foldableBias(fusion, contraction, plan)) {
    stored = bias->add;
    kernelPlan.columnBias = bias->values;
    if (boxes)
      addColumnBias(*boxes, *bias->values);
  }
  llvm::ArrayRef<int64_t> dims = fusion.shape().dims();
  llvm::SmallVector<int64_t, 4> shift(dims.size(), 0);
  if (pad)
    for (auto [d, dim] : llvm::enumerate(pad->attributes().padding))
      shift[d] = dim.low;
  // Rewrites a run of `count` stored elements from element `offset` of the
  // fusion's result on, in place: each reads the contraction's value where
  // it was stored; or writes them from the s32 sums at `staged`.
  auto epilogue = [&](llvm::Value *offset, llvm::Value *count, llvm::Value *staged,
                      StagedPairs pairs) {
    llvm::Value *base = address(assignment_.slice(&fusion));
    FusedValues values(fusion);
    values.stored = stored;
    values.storedAt = base;
    values.storedShift = shift;
    auto reader = [&](const hlo::Instruction &operand, IndexRef index) {
      return readFused(values, operand, index);
    };
    ElementalEmitter elemental(builder_, indexType_, reader, contraction_);
    elemental.setFusion(&fusion);
    values.elemental = &elemental;
    // The run lies along the minor dimension (fitsOutputFusion): only the
    // last index moves.
    llvm::SmallVector<llvm::Value *, 4> first = emitDelinearize(builder_, indexType_, dims, offset);
    llvm::SmallVector<llvm::Value *, 4> firstInside(first);
    for (auto [d, amount] : llvm::enumerate(shift))
      if (amount)
        firstInside[d] = builder_.CreateSub(first[d], llvm::ConstantInt::get(indexType_, amount));
    // Column `i` of the run, from its sum at `position` of the stage, and
    // where it goes.
    auto emitColumn = [&](llvm::Value *i, llvm::Value *position) {
      llvm::SmallVector<llvm::Value *, 4> at = first, inside = firstInside;
      at.back() = builder_.CreateAdd(first.back(), i);
      inside.back() = builder_.CreateAdd(firstInside.back(), i);
      if (staged) // four-byte sums: s32, or f32 for a half result
        values.storedSum = builder_.CreateGEP(builder_.getInt32Ty(), staged, position);
      if (values.pairLanes) {
        values.pairedColumn = inside.back();
        values.pairedPosition = builder_.CreateAdd(firstInside.back(), position);
      }
      return std::make_pair(elemental.emit(result, inside), elementAddress(fusion, base, at));
    };
    const hlo::PrimitiveType type = fusion.shape().elementType();
    // Two columns side by side: 16-bit results as one 32-bit store, so the
    // vectorised step stores its even and odd results as one vector of
    // pairs (a shift and a bit select, where an interleaving store of two
    // vectors is a strided group that needs run-time checks).
    auto emitColumnPair = [&](llvm::Value *evenColumn, llvm::Value *evenPosition,
                              llvm::Value *oddColumn, llvm::Value *oddPosition) {
      auto [evenValue, address] = emitColumn(evenColumn, evenPosition);
      auto [oddValue, oddAddress] = emitColumn(oddColumn, oddPosition);
      if (hlo::bitWidth(type) != 16) {
        storeElement(builder_, type, evenValue, address);
        storeElement(builder_, type, oddValue, oddAddress);
        return;
      }
      llvm::Type *i32 = builder_.getInt32Ty();
      auto bits = [&](llvm::Value *value) {
        return builder_.CreateZExt(builder_.CreateBitCast(value, builder_.getInt16Ty()), i32);
      };
      builder_.CreateAlignedStore(
          builder_.CreateOr(bits(evenValue), builder_.CreateShl(bits(oddValue), 16)), address,
          llvm::Align(2));
    };
    llvm::Value *paired = llvm::ConstantInt::get(indexType_, 0);
    if (pairs.lanes) {
      values.pairLanes = pairs.lanes;
      paired = emitPairedColumns(builder_, count, pairs, emitColumnPair);
      values.pairLanes = 0;
    }
    // The columns [from, from + n), `width` a vectorised step.
    auto emitColumns = [&](llvm::Value *from, llvm::Value *n, unsigned width) {
      emitCountedLoop(
          builder_, n,
          [&](llvm::Value *i) {
            llvm::Value *column = builder_.CreateAdd(from, i);
            auto [value, address] = emitColumn(column, column);
            storeElement(builder_, type, value, address);
          },
          "e", width);
    };
    llvm::Value *rest = builder_.CreateSub(count, paired);
    if (std::optional<HalfLoopSplit> split = splitHalfLoop(module_, target_, type, rest, staged)) {
      llvm::Value *head = llvm::ConstantInt::get(indexType_, split->head);
      emitColumns(paired, head, split->headWidth);
      emitColumns(builder_.CreateAdd(paired, head), builder_.CreateSub(rest, head),
                  split->tailWidth);
    } else {
      emitColumns(paired, rest, halfLoopWidth(module_, target_, type, rest, staged));
    }
  };
  auto operand = [&](size_t i) -> const hlo::Instruction & {
    const hlo::Instruction *read = contraction.operand(i);
    if (read == inputPad(contraction))
      read = read->operand(0);
    return *fusion.operand(static_cast<size_t>(read->attributes().parameterNumber));
  };
  // The edges are written first, the kernel fills the rest.
  auto edges = [&] {
    emitOutlined(fusion, [&] { emitPadEdges(fusion, *pad, address(assignment_.slice(&fusion))); });
  };
  // A pad of what the kernel stores has nothing to rewrite.
  if (boxes)
    return emitPaddedInputConvolution(fusion, *boxes, operand(0), operand(1),
                                      &result == stored ? ContractionEpilogue()
                                                        : ContractionEpilogue(epilogue),
                                      pad ? llvm::function_ref<void()>(edges) : nullptr);
  emitPlannedContraction(fusion, kernelPlan, operand(0), operand(1),
                         &result == stored ? ContractionEpilogue() : ContractionEpilogue(epilogue),
                         pad ? llvm::function_ref<void()>(edges) : nullptr);
}

void FunctionEmitter::emitPadEdges(const hlo::Instruction &fusion, const hlo::Instruction &pad,
                                   llvm::Value *base) {
  FusedValues values(fusion);
  auto reader = [&](const hlo::Instruction &operand, IndexRef index) {
    return readFused(values, operand, index);
  };
  ElementalEmitter elemental(builder_, indexType_, reader, contraction_);
  values.elemental = &elemental;
  emitPadByRows(pad, fusion, base, reader(*pad.operand(1), {}), nullptr, nullptr);
}

} // namespace mote::codegen
