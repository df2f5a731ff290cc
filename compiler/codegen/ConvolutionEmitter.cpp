//===- ConvolutionEmitter.cpp - Convolutions as strided contractions ------===//
//
// A convolution without positive padding or lhs dilation reads, for output
// position o and window position w, input position o * stride + w *
// dilation - crop: an affine function, so the whole convolution is a strided
// contraction (ContractionKernel.h) over
//   result directions  batch, output spatial..., group, output feature in
//                      the group;
//   contracting        window spatial... (row-major), then input feature in
//                      the group (innermost),
// which is exactly the order the reference evaluator sums products in.
// Positive padding is made explicit beforehand (passes::ConvolutionPadding)
// because padding takes part in the sum as 0 * w; lhs dilation is not, since
// dilation holes do not, and such convolutions stay elemental. An integer
// depthwise convolution whose output fusion took in that pad (or a model's
// own zero-point pad) reads it in place instead, as one such contraction per
// box of outputs with the taps inside the input (passes/PaddedInputConvolution.h).
//
// Directions of size one are dropped. Columns run along the direction the
// result is contiguous in (the output feature for NHWC results, or the group
// for depthwise ones), rows along the next contiguous one; the rest are
// outer loops.
//
//===----------------------------------------------------------------------===//

#include "codegen/ContractionKernel.h"
#include "codegen/ElementTypes.h"
#include "codegen/FunctionEmitter.h"
#include "codegen/LoopNest.h"
#include "passes/ContractionTypes.h"
#include "passes/PaddedInputConvolution.h"

namespace mote::codegen {

using hlo::PrimitiveType;

namespace {

/// One box of a convolution that reads a pad of its input in place
/// (passes/PaddedInputConvolution.h): the unpadded input, the pad's low edge
/// and the box's run of each spatial dimension.
struct ConvolutionBox {
  const hlo::Shape *input = nullptr;
  llvm::SmallVector<int64_t, 4> low;
  llvm::SmallVector<passes::WindowRun, 4> runs;
};

/// A table of 32-bit values in flash.
llvm::GlobalVariable *constantTable(llvm::Module &module, llvm::ArrayRef<uint32_t> values,
                                    const llvm::Twine &name) {
  auto *table = new llvm::GlobalVariable(
      module, llvm::ArrayType::get(llvm::Type::getInt32Ty(module.getContext()), values.size()),
      /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantDataArray::get(module.getContext(), values), name);
  table->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return table;
}

/// One direction of the loop space: its extent and how far it moves in
/// lhs, rhs and result.
struct Direction {
  int64_t size = 1;
  int64_t lhs = 0, rhs = 0, result = 0;
};

bool planConvolution(const hlo::Instruction &instruction, ContractionPlan &plan, std::string *why,
                     const ResultPlacement *placement, const ConvolutionBox *box = nullptr) {
  auto fail = [&](const char *message) {
    if (why)
      *why = message;
    return false;
  };
  if (instruction.opcode() != hlo::Opcode::Convolution || instruction.operandCount() != 2)
    return fail("not a convolution");
  const hlo::Shape &result = instruction.shape();
  const hlo::Shape &input = box ? *box->input : instruction.operand(0)->shape();
  const hlo::Shape &kernel = instruction.operand(1)->shape();
  if (!result.isArray() || !input.isArray() || !kernel.isArray())
    return fail("convolution of non-arrays");
  if (!passes::isTiledContractionType(result.elementType(), input.elementType(),
                                      kernel.elementType()))
    return fail("only convolutions of f16, bf16 and f32 (summed in f32), of f64 and of integers "
                "are tiled");
  if (!result.hasDefaultLayout() || !input.hasDefaultLayout() || !kernel.hasDefaultLayout())
    return fail("only row-major convolutions are tiled");
  const hlo::InstructionAttributes &attributes = instruction.attributes();
  const hlo::ConvolutionDimensionNumbers &numbers = attributes.convolutionDimensions;
  const hlo::Window &window = attributes.window;
  const size_t spatial = numbers.inputSpatialDimensions.size();
  if (attributes.batchGroupCount != 1)
    return fail("batch-grouped convolutions are not tiled");
  if (window.size() != spatial || numbers.kernelSpatialDimensions.size() != spatial ||
      numbers.outputSpatialDimensions.size() != spatial)
    return fail("malformed convolution window");
  for (const hlo::WindowDimension &dim : window)
    if (dim.paddingLow > 0 || dim.paddingHigh > 0 || dim.baseDilation != 1 || dim.windowReversal)
      return fail("padded, lhs-dilated or reversed convolutions are not tiled");

  const int64_t groups = attributes.featureGroupCount;
  const int64_t outputFeatures = result.dim(numbers.outputFeatureDimension);
  const int64_t groupInputFeatures = kernel.dim(numbers.kernelInputFeatureDimension);
  if (groups < 1 || outputFeatures % groups != 0 ||
      input.dim(numbers.inputFeatureDimension) != groups * groupInputFeatures)
    return fail("malformed feature groups");
  const int64_t groupOutputFeatures = outputFeatures / groups;

  llvm::SmallVector<int64_t, 4> in = rowMajorStrides(input.dims());
  llvm::SmallVector<int64_t, 4> k = rowMajorStrides(kernel.dims());
  llvm::SmallVector<int64_t, 4> out =
      placement ? placement->strides : rowMajorStrides(result.dims());
  if (out.size() != size_t(result.rank()))
    return fail("result placement of another rank");

  llvm::SmallVector<Direction, 6> directions;
  directions.push_back({result.dim(numbers.outputBatchDimension), in[numbers.inputBatchDimension],
                        0, out[numbers.outputBatchDimension]});
  if (box && (box->runs.size() != spatial || box->low.size() != spatial))
    return fail("malformed convolution box");
  // The outputs and window taps of each spatial dimension the plan covers.
  auto outputs = [&](size_t d) {
    return box ? box->runs[d].outEnd - box->runs[d].outBegin
               : result.dim(numbers.outputSpatialDimensions[d]);
  };
  auto taps = [&](size_t d) {
    return box ? box->runs[d].tapEnd - box->runs[d].tapBegin : window[d].size;
  };
  for (size_t d = 0; d < spatial; ++d)
    directions.push_back({outputs(d), window[d].stride * in[numbers.inputSpatialDimensions[d]], 0,
                          out[numbers.outputSpatialDimensions[d]]});
  const int64_t inFeature = in[numbers.inputFeatureDimension];
  const int64_t kOut = k[numbers.kernelOutputFeatureDimension];
  const int64_t outFeature = out[numbers.outputFeatureDimension];
  directions.push_back({groups, groupInputFeatures * inFeature, groupOutputFeatures * kOut,
                        groupOutputFeatures * outFeature});
  directions.push_back({groupOutputFeatures, 0, kOut, outFeature});

  llvm::SmallVector<Direction, 4> contracting;
  for (size_t d = 0; d < spatial; ++d)
    contracting.push_back({taps(d),
                           window[d].windowDilation * in[numbers.inputSpatialDimensions[d]],
                           k[numbers.kernelSpatialDimensions[d]], 0});
  contracting.push_back({groupInputFeatures, inFeature, k[numbers.kernelInputFeatureDimension], 0});

  plan = ContractionPlan();
  setContractionTypes(plan, result.elementType(), input.elementType(), kernel.elementType());
  plan.result.base = placement ? placement->base : 0;
  // Negative padding crops: the window starts that far into the input.
  for (size_t d = 0; d < spatial; ++d)
    plan.operand[0].base -= window[d].paddingLow * in[numbers.inputSpatialDimensions[d]];
  // A box starts at its first output, reading its first tap inside the
  // unpadded input.
  for (size_t d = 0; box && d < spatial; ++d) {
    const passes::WindowRun &run = box->runs[d];
    plan.operand[0].base +=
        (run.outBegin * window[d].stride + run.tapBegin * window[d].windowDilation - box->low[d]) *
        in[numbers.inputSpatialDimensions[d]];
    plan.operand[1].base += run.tapBegin * k[numbers.kernelSpatialDimensions[d]];
    plan.result.base += run.outBegin * out[numbers.outputSpatialDimensions[d]];
  }
  for (const Direction &direction : contracting)
    if (direction.size != 1) {
      plan.contractingDims.push_back(direction.size);
      plan.operand[0].contracting.push_back(direction.lhs);
      plan.operand[1].contracting.push_back(direction.rhs);
    }

  llvm::erase_if(directions, [](const Direction &direction) { return direction.size == 1; });
  if (directions.empty())
    directions.push_back({1, 0, 0, 1}); // a single result element
  // Most to least significant in the result: the last is contiguous.
  llvm::stable_sort(directions,
                    [](const Direction &a, const Direction &b) { return a.result > b.result; });
  if (directions.back().result != 1)
    return fail("the result has no contiguous direction");
  auto take = [&]() {
    Direction direction = directions.back();
    directions.pop_back();
    return direction;
  };
  Direction columns = take();
  plan.columns = columns.size;
  plan.operand[0].column = columns.lhs;
  plan.operand[1].column = columns.rhs;
  plan.result.column = 1;
  if (!directions.empty()) {
    Direction rows = take();
    plan.rows = rows.size;
    plan.operand[0].row = rows.lhs;
    plan.operand[1].row = rows.rhs;
    plan.result.row = rows.result;
  }
  for (const Direction &direction : directions) {
    plan.outerDims.push_back(direction.size);
    plan.operand[0].outer.push_back(direction.lhs);
    plan.operand[1].outer.push_back(direction.rhs);
    plan.result.outer.push_back(direction.result);
  }
  coalesceRows(plan);
  return true;
}

} // namespace

bool isTiledConvolution(const hlo::Instruction &instruction, std::string *why,
                        ContractionPlan *plan, const ResultPlacement *placement) {
  ContractionPlan own;
  return planConvolution(instruction, plan ? *plan : own, why, placement);
}

void FunctionEmitter::emitConvolution(const hlo::Instruction &instruction) {
  ContractionPlan plan;
  if (!planConvolution(instruction, plan, nullptr, nullptr)) {
    flushChain();
    return emitElementalLoop(instruction);
  }
  emitPlannedContraction(instruction, plan, *instruction.operand(0), *instruction.operand(1));
}

bool planPaddedInputConvolution(const hlo::Instruction &convolution, const hlo::Instruction &pad,
                                const hlo::Literal &padValue, const hlo::Literal *weights,
                                const ResultPlacement *placement, PaddedInputBoxes &boxes) {
  if (!passes::readsPaddedInputInPlace(convolution, pad, &padValue, weights))
    return false;
  const hlo::InstructionAttributes &attributes = convolution.attributes();
  const hlo::ConvolutionDimensionNumbers &numbers = attributes.convolutionDimensions;
  const hlo::Shape &input = pad.operand(0)->shape();
  ConvolutionBox box;
  box.input = &input;
  llvm::SmallVector<std::vector<passes::WindowRun>, 4> runs;
  for (auto [d, inputDim] : llvm::enumerate(numbers.inputSpatialDimensions)) {
    const hlo::WindowDimension &window = attributes.window[d];
    box.low.push_back(pad.attributes().padding[size_t(inputDim)].low);
    runs.push_back(passes::windowRuns(
        input.dim(inputDim), convolution.shape().dim(numbers.outputSpatialDimensions[d]),
        window.size, window.stride, window.windowDilation, box.low.back()));
  }
  const int64_t value = padValue.getAsInt64(0);
  const int64_t features = convolution.shape().dim(numbers.outputFeatureDimension);
  // Every combination of one run per spatial dimension, the last fastest.
  llvm::SmallVector<size_t, 4> at(runs.size(), 0);
  box.runs.resize(runs.size());
  boxes = PaddedInputBoxes();
  boxes.padValue = value;
  for (;;) {
    for (size_t d = 0; d < runs.size(); ++d)
      box.runs[d] = runs[d][at[d]];
    ContractionPlan plan;
    if (!planConvolution(convolution, plan, nullptr, placement, &box))
      return false;
    // The skipped taps' sums are per output feature: the columns.
    if (value && plan.columns != features)
      return false;
    boxes.skippedTaps.push_back(passes::skippedTaps(convolution, box.runs));
    boxes.plans.push_back(std::move(plan));
    size_t d = runs.size();
    while (d > 0 && ++at[d - 1] == runs[d - 1].size())
      at[--d] = 0;
    if (d == 0)
      return true;
  }
}

void addColumnBias(PaddedInputBoxes &boxes, const hlo::Literal &bias) {
  boxes.bias = &bias;
  for (ContractionPlan &plan : boxes.plans)
    plan.columnBias = &bias;
}

FunctionEmitter::OpFunction FunctionEmitter::outlinedEpilogue(const hlo::Instruction &instruction,
                                                              ContractionEpilogue epilogue) {
  // After the buffers: the run's offset and count, and the staged sums.
  OpFunction op =
      createOpFunction(instruction, function_->getName() + "." + instruction.name() + ".epilogue",
                       /*ranged=*/false, {indexType_, indexType_, builder_.getPtrTy()});
  FunctionSwitch inside(*this, op.function);
  bindOpArguments(op);
  const unsigned first = unsigned(3 + op.slices.size());
  epilogue(op.function->getArg(first), op.function->getArg(first + 1),
           op.function->getArg(first + 2), StagedPairs());
  builder_.CreateRetVoid();
  return op;
}

llvm::Function *FunctionEmitter::boxStartsFunction(const hlo::Instruction &instruction,
                                                   const ContractionPlan &plan, int64_t padValue,
                                                   llvm::Value *bias) {
  llvm::Type *i32 = builder_.getInt32Ty(), *ptr = builder_.getPtrTy();
  auto *function = llvm::Function::Create(
      llvm::FunctionType::get(builder_.getVoidTy(), {ptr, ptr, indexType_, ptr}, false),
      llvm::GlobalValue::InternalLinkage,
      function_->getName() + "." + instruction.name() + ".starts", module_);
  function->addFnAttr(llvm::Attribute::NoInline);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  FunctionSwitch inside(*this, function);
  llvm::Value *weights = function->getArg(0), *taps = function->getArg(1);
  llvm::Value *starts = function->getArg(3);
  llvm::Type *weight = storageType(module_.getContext(), plan.rhsType);
  const bool isSigned = hlo::isSignedInteger(plan.rhsType);
  llvm::Value *columns = llvm::ConstantInt::get(indexType_, plan.columns);
  auto startAt = [&](llvm::Value *column) { return builder_.CreateGEP(i32, starts, column); };
  emitCountedLoop(
      builder_, columns,
      [&](llvm::Value *column) { builder_.CreateStore(builder_.getInt32(0), startAt(column)); },
      "zero");
  // Tap by tap, each a run along the columns (vectors where the target
  // has them).
  emitCountedLoop(
      builder_, function->getArg(2),
      [&](llvm::Value *t) {
        llvm::Value *tap = builder_.CreateSExtOrTrunc(
            builder_.CreateLoad(i32, builder_.CreateGEP(i32, taps, t)), indexType_);
        emitCountedLoop(
            builder_, columns,
            [&](llvm::Value *column) {
              llvm::Value *at = builder_.CreateAdd(
                  tap, emitScaledIndex(builder_, column, plan.operand[1].column));
              llvm::Value *value =
                  builder_.CreateLoad(weight, builder_.CreateGEP(weight, weights, at));
              builder_.CreateStore(builder_.CreateAdd(builder_.CreateLoad(i32, startAt(column)),
                                                      builder_.CreateIntCast(value, i32, isSigned)),
                                   startAt(column));
            },
            "column");
      },
      "tap");
  emitCountedLoop(
      builder_, columns,
      [&](llvm::Value *column) {
        // Modulo 2^32, like the sums themselves.
        llvm::Value *sum = builder_.CreateMul(builder_.CreateLoad(i32, startAt(column)),
                                              builder_.getInt32(uint32_t(uint64_t(padValue))));
        if (bias)
          sum = builder_.CreateAdd(sum,
                                   builder_.CreateLoad(i32, builder_.CreateGEP(i32, bias, column)));
        builder_.CreateStore(sum, startAt(column));
      },
      "start");
  builder_.CreateRetVoid();
  return function;
}

void FunctionEmitter::emitPaddedInputConvolution(const hlo::Instruction &instruction,
                                                 const PaddedInputBoxes &boxes,
                                                 const hlo::Instruction &input,
                                                 const hlo::Instruction &weights,
                                                 ContractionEpilogue epilogue,
                                                 llvm::function_ref<void()> prelude) {
  const BufferSlice &out = assignment_.slice(&instruction);
  if (out.kind == BufferSlice::Kind::Empty)
    return;
  llvm::Triple triple(module_.getTargetTriple());
  std::vector<ContractionPlan> plans = boxes.plans;
  if (const hlo::Literal *values = weights.constantValue())
    for (ContractionPlan &plan : plans)
      plan.rhsValues = values; // laid out for the instructions
  // A box that skips taps starts from sums computed as it begins (a few
  // adds per column) rather than from a table of its own in flash; they
  // read the bias from one table all boxes share.
  int64_t startColumns = 0;
  for (auto [plan, taps] : llvm::zip(plans, boxes.skippedTaps))
    if (!taps.empty() && boxes.padValue)
      startColumns = std::max(startColumns, plan.columns);
  llvm::Value *biasTable = nullptr;
  if (startColumns && boxes.bias) {
    std::vector<uint32_t> values;
    for (int64_t column = 0; column < startColumns; ++column)
      values.push_back(
          uint32_t(boxes.bias->getAsInt64(boxes.bias->elementCount() == 1 ? 0 : column)));
    biasTable = constantTable(module_, values, "box.bias");
  }
  // The boxes' skipped taps, one run after the other, for one function
  // that sums a box's weights over them.
  llvm::Function *startsFunction = nullptr;
  llvm::Value *tapTable = nullptr;
  std::vector<int64_t> tapOffsets;
  std::vector<uint32_t> allTaps;
  for (const std::vector<int64_t> &taps : boxes.skippedTaps) {
    tapOffsets.push_back(int64_t(allTaps.size()));
    allTaps.insert(allTaps.end(), taps.begin(), taps.end());
  }
  if (startColumns) {
    startsFunction = boxStartsFunction(instruction, plans.front(), boxes.padValue, biasTable);
    tapTable = constantTable(module_, allTaps, "box.taps");
  }
  // One copy of the epilogue (a quantized layer's rescale) for the boxes
  // that skip taps, instead of one per box: flash.
  OpFunction shared;
  if (epilogue && llvm::any_of(boxes.skippedTaps,
                               [](const std::vector<int64_t> &taps) { return !taps.empty(); }))
    shared = outlinedEpilogue(instruction, epilogue);
  // The boxes' split loops run one after the other as one range, which
  // tasks share out; never depth-first: the boxes' result rows interleave.
  flushChain();
  if (prelude)
    prelude();
  double work = 0;
  int64_t extent = 0;
  llvm::SmallVector<int64_t, 16> firsts;
  for (const ContractionPlan &plan : plans) {
    work += contractionWork(plan);
    firsts.push_back(extent);
    extent += contractionSplitExtent(plan, triple, target_);
  }
  RangedOp ranged =
      createRangedOp(instruction, extent, work, [&](llvm::Value *begin, llvm::Value *end) {
        // Stack slots are shared by the boxes: the n-th slot a box asks for
        // reuses the previous boxes' n-th of the same type.
        std::vector<llvm::AllocaInst *> slots;
        size_t next = 0;
        auto local = [&](llvm::Type *type) {
          const size_t n = next++;
          if (n < slots.size() && slots[n]->getAllocatedType() == type)
            return slots[n];
          llvm::AllocaInst *slot = createLocal(type, "sum");
          if (n < slots.size())
            slots[n] = slot;
          else
            slots.push_back(slot);
          return slot;
        };
        llvm::Value *starts =
            startColumns
                ? createLocal(llvm::ArrayType::get(builder_.getInt32Ty(), uint64_t(startColumns)),
                              "starts")
                : nullptr;
        for (auto [plan, first, taps, tapsAt] :
             llvm::zip(plans, firsts, boxes.skippedTaps, tapOffsets)) {
          // The part of [begin, end) inside this box's split loop.
          const int64_t boxExtent = contractionSplitExtent(plan, triple, target_);
          auto clamped = [&](llvm::Value *at) {
            llvm::Value *inside = builder_.CreateSub(at, llvm::ConstantInt::get(indexType_, first));
            inside = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, inside,
                                                    llvm::ConstantInt::get(indexType_, 0));
            return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, inside,
                                                  llvm::ConstantInt::get(indexType_, boxExtent));
          };
          llvm::Value *boxBegin = clamped(begin), *boxEnd = clamped(end);
          next = 0;
          emitIf(
              builder_.CreateICmpSLT(boxBegin, boxEnd),
              [&] {
                if (!taps.empty() && boxes.padValue) {
                  builder_.CreateCall(
                      startsFunction,
                      {address(assignment_.slice(&weights)),
                       builder_.CreateConstInBoundsGEP1_64(builder_.getInt32Ty(), tapTable,
                                                           uint64_t(tapsAt)),
                       llvm::ConstantInt::get(indexType_, int64_t(taps.size())), starts});
                  plan.columnStarts = starts;
                }
                // The interior's epilogue inline; the edges' few outputs
                // call the shared one.
                auto call = [&](llvm::Value *offset, llvm::Value *count, llvm::Value *staged,
                                StagedPairs) {
                  llvm::SmallVector<llvm::Value *, 12> arguments = opPointers(shared);
                  arguments.append({offset, count, staged});
                  builder_.CreateCall(shared.function, arguments);
                };
                const bool calls = shared.function && !taps.empty();
                // The shared epilogue reads its staged sums in column order.
                plan.epilogueReadsPairs = !calls;
                emitContraction(builder_, indexType_, plan, triple, target_,
                                address(assignment_.slice(&input)),
                                address(assignment_.slice(&weights)), address(out), local, boxBegin,
                                boxEnd, calls ? ContractionEpilogue(call) : epilogue);
              },
              "box");
        }
      });
  emitRangedOpRun(ranged);
}

} // namespace mote::codegen
