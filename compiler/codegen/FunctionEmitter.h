//===- FunctionEmitter.h - Emits the code of one model ----------*- C++ -*-===//
///
/// \file
/// Internal to code generation: the state and helpers shared by the emitters
/// of ops that are not elemental (while, conditional, dynamic-update-slice,
/// sort, scatter...). Each op family's emitter is a member defined in its own
/// file; emitNonElemental (NonElementalOps.cpp) dispatches to them.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_FUNCTIONEMITTER_H
#define MOTE_CODEGEN_FUNCTIONEMITTER_H

#include "codegen/ContractionKernel.h"
#include "codegen/ElementTypes.h"
#include "codegen/ElementalEmitter.h"
#include "codegen/LoopNest.h"
#include "codegen/ReductionRuns.h"
#include "codegen/WeightsBlob.h"
#include "passes/BufferAssignment.h"
#include "passes/Schedule.h"
#include "target/Target.h"

#include "hlo/Diagnostics.h"
#include "hlo/Module.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#include <array>
#include <optional>
#include <string>

namespace mote::codegen {

using hlo::Opcode;
using passes::BufferSlice;

/// Ops that only pass their operand's leaves through: buffer assignment
/// gives them their operand's memory, so they usually cost nothing.
inline bool isPassThrough(Opcode opcode) {
  switch (opcode) {
  case Opcode::Tuple:
  case Opcode::GetTupleElement:
  case Opcode::OptimizationBarrier:
  case Opcode::AddDependency:
    return true;
  default:
    return false;
  }
}

/// Array leaves of `shape` (1 for an array).
size_t leafCount(const hlo::Shape &shape);

/// Whether emitNonElemental handles `instruction`; if not, `why` says so.
bool isNonElementalSupported(const hlo::Instruction &instruction, std::string *why);

/// Whether every instruction of `fusion`'s computation can be generated
/// elementally; if not, `why` says why and `culprit` names the instruction.
bool isFusionSupported(const hlo::Instruction &fusion, std::string *why,
                       const hlo::Instruction **culprit);
/// Whether FunctionEmitter::emitRng handles `instruction`, an rng or
/// rng-get-and-update-state (RngEmitter.cpp).
bool isStatefulRngSupported(const hlo::Instruction &instruction, std::string *why);

/// Whether FunctionEmitter::emitCholesky or emitTriangularSolve handles
/// `instruction` (LinearAlgebraEmitter.cpp).
bool isLinearAlgebraSupported(const hlo::Instruction &instruction, std::string *why);

/// Whether FunctionEmitter::emitFft handles `instruction` (FftEmitter.cpp).
bool isFftSupported(const hlo::Instruction &instruction, std::string *why);

/// Whether `reduce` keeps its operand's innermost dimension, so
/// FunctionEmitter::emitReduceRows computes it (ReduceRows.cpp), and the
/// extent of the loop its tasks may split (1: none).
bool reducesByRows(const hlo::Instruction &reduce);
int64_t reduceRowsSplitExtent(const hlo::Instruction &reduce);
/// Whether `pad` has no interior padding, so FunctionEmitter::emitPadRows
/// stores it row by row (PadRows.cpp), and the extent of the loop its tasks
/// may split.
bool padsByRows(const hlo::Instruction &pad);
int64_t padRowsSplitExtent(const hlo::Instruction &pad);

/// Whether FunctionEmitter::emitDot tiles `instruction` (DotEmitter.cpp),
/// with the plan it would use (writing its result at `placement` if given,
/// else as a row-major array); other dots are elemental.
bool isTiledDot(const hlo::Instruction &instruction, std::string *why,
                ContractionPlan *plan = nullptr, const ResultPlacement *placement = nullptr);
/// The same for convolutions (ConvolutionEmitter.cpp).
bool isTiledConvolution(const hlo::Instruction &instruction, std::string *why,
                        ContractionPlan *plan = nullptr,
                        const ResultPlacement *placement = nullptr);

/// A convolution that reads an edge pad of its input in place
/// (passes/PaddedInputConvolution.h), as one plan per box of its outputs;
/// each box's sums start from the layer's bias plus the pad value times
/// its skipped taps' weights, which the code sums as it starts the box.
struct PaddedInputBoxes {
  std::vector<ContractionPlan> plans;
  /// Per plan, the rhs offsets (of column 0) of the taps its box skips.
  std::vector<std::vector<int64_t>> skippedTaps;
  int64_t padValue = 0;
  /// One s32 per column or one for all, or null: the plans' columnBias.
  const hlo::Literal *bias = nullptr;
};
/// The boxes of `convolution`, whose operand 0 is `pad` (of `padValue`),
/// `weights` its kernel's values if constant (ConvolutionEmitter.cpp);
/// false if it cannot read `pad` in place.
bool planPaddedInputConvolution(const hlo::Instruction &convolution, const hlo::Instruction &pad,
                                const hlo::Literal &padValue, const hlo::Literal *weights,
                                const ResultPlacement *placement, PaddedInputBoxes &boxes);
/// Makes `bias` (one s32 value, or one per column) every box's start.
void addColumnBias(PaddedInputBoxes &boxes, const hlo::Literal &bias);

class FunctionEmitter {
public:
  FunctionEmitter(const passes::Schedule &schedule, const passes::BufferAssignment &assignment,
                  llvm::Module &module, llvm::Function *function)
      : schedule_(schedule), assignment_(assignment), module_(module), function_(function),
        entryFunction_(function), builder_(module.getContext()),
        indexType_(module.getDataLayout().getIntPtrType(module.getContext())) {}

  /// The target the code is for; only tuning depends on it (may be null).
  void setTarget(const target::TargetSpec *spec) { target_ = spec; }
  /// How dots and convolutions add their products (the target's choice,
  /// contractionArithmetic(); separate multiplies and adds by default).
  void setContraction(eval::ContractionArithmetic contraction) { contraction_ = contraction; }
  /// f16 dots and convolutions sum in f16 where the target multiplies and
  /// adds f16 vectors (opt-in; target::hasHalfMultiplyAdd).
  void setNativeHalfSums(bool native) { nativeHalfSums_ = native; }
  void setNativeBf16Dots(bool native) { nativeBf16Dots_ = native; }
  /// Whether constant rhs operands may be stored in panels (emitEntryFunction).
  void setRhsPanels(bool panels) { rhsPanels_ = panels; }

  /// Large constants go to `blob` (read through mote_call.weights) instead
  /// of the code's read-only data; the arena then starts `reserve` bytes
  /// into the scratch, after the weights pointer every function reads.
  void setWeightsBlob(WeightsBlob *blob, uint64_t reserve) {
    weightsBlob_ = blob;
    weightsReserve_ = reserve;
  }

  /// Loads the argument, result and scratch pointers of a mote_call into
  /// the current function's; returns its env pointer.
  llvm::Value *loadCallPointers(llvm::Value *call) {
    llvm::Type *ptr = builder_.getPtrTy();
    llvm::StructType *callType =
        llvm::StructType::get(module_.getContext(), {ptr, ptr, ptr, ptr, ptr});
    args_ = builder_.CreateLoad(ptr, builder_.CreateStructGEP(callType, call, 0), "args");
    results_ = builder_.CreateLoad(ptr, builder_.CreateStructGEP(callType, call, 1), "results");
    scratch_ = builder_.CreateLoad(ptr, builder_.CreateStructGEP(callType, call, 2), "scratch");
    if (weightsBlob_) {
      // Op functions find the weights in the scratch's first word (tasks
      // read the same call; the entry function has stored it by then).
      llvm::Value *weights =
          builder_.CreateLoad(ptr, builder_.CreateStructGEP(callType, call, 4), "weights");
      if (function_ == entryFunction_)
        builder_.CreateStore(weights, scratch_);
      weightsBases_[function_] = weights;
      scratch_ = builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), scratch_,
                                                     weightsReserve_, "arena");
    }
    return builder_.CreateLoad(ptr, builder_.CreateStructGEP(callType, call, 3), "env");
  }

  void emit(const hlo::Computation &entry) {
    llvm::LLVMContext &context = module_.getContext();
    llvm::BasicBlock *block = llvm::BasicBlock::Create(context, "entry", function_);
    builder_.SetInsertPoint(block);
    call_ = function_->getArg(0);
    env_ = loadCallPointers(call_);

    emitComputation(entry);
    // The root's leaves end in the caller's result buffers, in an order
    // that reads a donated parameter (in its result buffer) before that
    // buffer is written.
    const hlo::Instruction *root = entry.root();
    llvm::SmallVector<BufferSlice, 8> targets, sources;
    for (size_t leaf = 0, n = leafCount(root->shape()); leaf < n; ++leaf) {
      BufferSlice result;
      result.kind = BufferSlice::Kind::Result;
      result.index = static_cast<uint32_t>(leaf);
      result.size = assignment_.slice(root, leaf).size;
      targets.push_back(result);
      sources.push_back(assignment_.slice(root, leaf));
    }
    copyLeaves(targets, sources);
    builder_.CreateRet(builder_.getInt32(0));
  }

  void emitComputation(const hlo::Computation &computation) {
    for (const hlo::Instruction *instruction : schedule_.order(&computation)) {
      if (!mayJoinChain(*instruction))
        flushChain();
      emitInstruction(*instruction);
    }
    flushChain();
  }

  void emitInstruction(const hlo::Instruction &instruction) {
    switch (instruction.opcode()) {
    case Opcode::Parameter:
    case Opcode::Constant:
    case Opcode::AfterAll:
      return;
    case Opcode::While:
      return emitWhile(instruction);
    case Opcode::Conditional:
      return emitConditional(instruction);
    case Opcode::DynamicUpdateSlice:
      return emitDynamicUpdateSlice(instruction);
    case Opcode::Fusion:
      return emitFusion(instruction);
    case Opcode::Rng:
    case Opcode::RngGetAndUpdateState:
      return emitRng(instruction);
    default:
      break;
    }
    if (emitNonElemental(instruction))
      return;
    // A dot or convolution the kernels do not take comes here without
    // passing emitComputation's flush: the contractions waiting in the chain
    // come first, or this op could overwrite memory they still read.
    flushChain();
    if (isPassThrough(instruction.opcode())) {
      // Leaves that did not get the operand's memory are copied.
      llvm::SmallVector<const hlo::Instruction *, 4> sources;
      llvm::SmallVector<uint32_t, 4> sourceLeaves;
      passThroughSources(instruction, sources, sourceLeaves);
      for (size_t leaf = 0; leaf < sources.size(); ++leaf)
        copySlice(assignment_.slice(&instruction, leaf),
                  assignment_.slice(sources[leaf], sourceLeaves[leaf]));
      return;
    }
    const hlo::Instruction *operand = instruction.operandCount() ? instruction.operand(0) : nullptr;
    if ((instruction.opcode() == Opcode::Bitcast || instruction.opcode() == Opcode::Reshape ||
         instruction.opcode() == Opcode::Copy) &&
        assignment_.slice(&instruction) == assignment_.slice(operand))
      return; // same bytes, same memory
    emitElementalLoop(instruction);
  }

  /// For tuple-like ops: where each result leaf comes from.
  void passThroughSources(const hlo::Instruction &instruction,
                          llvm::SmallVectorImpl<const hlo::Instruction *> &sources,
                          llvm::SmallVectorImpl<uint32_t> &leaves) {
    switch (instruction.opcode()) {
    case Opcode::Tuple:
    case Opcode::OptimizationBarrier:
      for (const hlo::Instruction *operand : instruction.operands())
        for (size_t leaf = 0, n = leafCount(operand->shape()); leaf < n; ++leaf) {
          sources.push_back(operand);
          leaves.push_back(static_cast<uint32_t>(leaf));
        }
      if (instruction.opcode() == Opcode::OptimizationBarrier) {
        // opt-barrier takes one (tuple) operand and returns it.
        sources.clear();
        leaves.clear();
        const hlo::Instruction *operand = instruction.operand(0);
        for (size_t leaf = 0, n = leafCount(operand->shape()); leaf < n; ++leaf) {
          sources.push_back(operand);
          leaves.push_back(static_cast<uint32_t>(leaf));
        }
      }
      return;
    case Opcode::AddDependency:
      for (size_t leaf = 0, n = leafCount(instruction.shape()); leaf < n; ++leaf) {
        sources.push_back(instruction.operand(0));
        leaves.push_back(static_cast<uint32_t>(leaf));
      }
      return;
    case Opcode::GetTupleElement: {
      const hlo::Shape &tuple = instruction.operand(0)->shape();
      uint32_t first = 0;
      for (int64_t i = 0; i < instruction.attributes().tupleIndex; ++i)
        first += static_cast<uint32_t>(leafCount(tuple.tupleElement(i)));
      for (size_t leaf = 0, n = leafCount(instruction.shape()); leaf < n; ++leaf) {
        sources.push_back(instruction.operand(0));
        leaves.push_back(first + static_cast<uint32_t>(leaf));
      }
      return;
    }
    default:
      return;
    }
  }

  //===--- Memory ---------------------------------------------------------===//

  llvm::Value *pointerFromTable(llvm::Value *table, uint32_t index) {
    llvm::Type *ptr = builder_.getPtrTy();
    llvm::Value *slot = builder_.CreateConstInBoundsGEP1_32(ptr, table, index);
    llvm::LoadInst *load = builder_.CreateLoad(ptr, slot);
    load->setMetadata(llvm::LLVMContext::MD_invariant_load,
                      llvm::MDNode::get(module_.getContext(), {}));
    return load;
  }

  llvm::Value *address(const BufferSlice &slice) {
    // Inside an op's function, its buffers arrive as noalias arguments.
    for (const auto &[known, argument] : sliceArguments_)
      if (known == slice)
        return argument;
    switch (slice.kind) {
    case BufferSlice::Kind::Arena:
      return builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), scratch_, slice.offset);
    case BufferSlice::Kind::Parameter:
      return pointerFromTable(args_, slice.index);
    case BufferSlice::Kind::Result:
      return pointerFromTable(results_, slice.index);
    case BufferSlice::Kind::Constant:
      return constantAddress(*slice.constant);
    case BufferSlice::Kind::Empty:
      break;
    }
    return llvm::ConstantPointerNull::get(builder_.getPtrTy());
  }

  /// Where a constant's bytes are, in the current function.
  llvm::Value *constantAddress(const hlo::Instruction &constant) {
    auto [it, inserted] = constants_.try_emplace(&constant);
    if (inserted) {
      if (!constant.attributes().literal) // checkCodegenSupport refuses these
        fail(constant, "internal error: constant without a value reached code generation");
      else
        it->second = readOnlyData(constant.attributes().literal->bytes(),
                                  "constant." + constant.name(), llvm::Align(16));
    }
    return addressOf(it->second);
  }

  /// Bytes the code reads and never writes: a private global (read-only
  /// data, flash on a microcontroller), or a place in the weights blob.
  struct ReadOnlyData {
    llvm::GlobalVariable *global = nullptr;
    uint64_t weightsOffset = 0;
  };
  /// `bytes` must outlive the weights blob (a literal of the module), or
  /// be handed over.
  ReadOnlyData readOnlyData(llvm::ArrayRef<uint8_t> bytes, const llvm::Twine &name,
                            llvm::Align alignment);
  ReadOnlyData readOnlyData(std::vector<uint8_t> bytes, const llvm::Twine &name,
                            llvm::Align alignment);
  llvm::Value *addressOf(const ReadOnlyData &data);

  void copySlice(const BufferSlice &to, const BufferSlice &from) {
    if (to == from || to.kind == BufferSlice::Kind::Empty || from.size == 0)
      return;
    builder_.CreateMemCpy(address(to), llvm::MaybeAlign(1), address(from), llvm::MaybeAlign(1),
                          from.size);
  }

  llvm::Value *elementAddress(const hlo::Instruction &instruction, llvm::Value *base,
                              IndexRef index) {
    llvm::Value *linear = emitLinearIndex(builder_, indexType_, instruction.shape().dims(), index);
    return builder_.CreateInBoundsGEP(
        storageType(module_.getContext(), instruction.shape().elementType()), base, linear);
  }

  /// An element of a small f16 or bf16 constant read from a copy of it
  /// widened to f32 at compile time (a layer's bias), as exactHalfBits; null
  /// for any other constant (HalfConstants.cpp). With `pairLanes`, the copy
  /// of a one-dimensional constant is in pair order (StagedPairs: each
  /// whole block of 2 * pairLanes elements its even ones, then its odd
  /// ones) and `index` a position in it.
  llvm::Value *readWidenedConstant(const hlo::Instruction &constant, IndexRef index,
                                   int64_t pairLanes = 0);

  llvm::Value *readElement(const hlo::Instruction &operand, IndexRef index) {
    llvm::Value *base = address(assignment_.slice(&operand));
    return loadElement(builder_, operand.shape().elementType(),
                       elementAddress(operand, base, index));
  }

  //===--- Ops ------------------------------------------------------------===//

  /// Runs `body` inside a function of its own and calls it from here. One
  /// small function per op keeps LLVM's loop passes fast on big models (one
  /// huge function makes scalar evolution and LSR super-linear) and gives
  /// each op's loops a clean slate (OpFunctions.cpp).
  void emitOutlined(const hlo::Instruction &instruction, llvm::function_ref<void()> body);

  /// The function an op's code goes in: (args, results, scratch, then one
  /// noalias pointer per buffer the op reads or writes [, begin, end of a
  /// range]). Distinct buffers of one op never overlap (buffer assignment
  /// gives values live at the same time disjoint memory, and a value taking
  /// over its operand's memory is the same buffer), so LLVM may vectorise
  /// and reorder across them freely.
  struct OpFunction {
    llvm::Function *function = nullptr;
    llvm::SmallVector<BufferSlice, 8> slices;
    bool ranged = false;
  };
  /// `more` parameters follow (the range's when ranged).
  OpFunction createOpFunction(const hlo::Instruction &instruction, const llvm::Twine &name,
                              bool ranged, llvm::ArrayRef<llvm::Type *> more = {});
  /// Inside `op.function`: its buffer arguments stand for the op's buffers.
  void bindOpArguments(const OpFunction &op);
  /// The buffers `instruction` reads and writes (constants aside).
  llvm::SmallVector<BufferSlice, 8> opSlices(const hlo::Instruction &instruction);
  /// The pointer arguments calling `op` from the current function.
  llvm::SmallVector<llvm::Value *, 12> opPointers(const OpFunction &op);
  /// Emits `op`'s body; `body` gets the range arguments when ranged.
  void emitOpBody(const OpFunction &op,
                  llvm::function_ref<void(llvm::Value *begin, llvm::Value *end)> body);

  /// Emission into another function while it lives: the builder starts in
  /// a new entry block of `to`, and the caller's position and buffers come
  /// back at the end.
  class FunctionSwitch {
  public:
    FunctionSwitch(FunctionEmitter &emitter, llvm::Function *to)
        : emitter_(emitter), position_(emitter.builder_.saveIP()), function_(emitter.function_),
          args_(emitter.args_), results_(emitter.results_), scratch_(emitter.scratch_),
          sliceArguments_(std::move(emitter.sliceArguments_)) {
      emitter.sliceArguments_.clear();
      emitter.function_ = to;
      emitter.builder_.SetInsertPoint(
          llvm::BasicBlock::Create(emitter.module_.getContext(), "entry", to));
    }
    ~FunctionSwitch() {
      emitter_.function_ = function_;
      emitter_.args_ = args_;
      emitter_.results_ = results_;
      emitter_.scratch_ = scratch_;
      emitter_.sliceArguments_ = std::move(sliceArguments_);
      emitter_.builder_.restoreIP(position_);
    }

  private:
    FunctionEmitter &emitter_;
    llvm::IRBuilderBase::InsertPoint position_;
    llvm::Function *function_;
    llvm::Value *args_, *results_, *scratch_;
    llvm::SmallVector<std::pair<BufferSlice, llvm::Value *>, 8> sliceArguments_;
  };

  /// Like emitOutlined, for an op whose outermost loop has `extent`
  /// independent iterations: `body(begin, end)` emits a range of them. An op
  /// of `work` operations or more is split into tasks the port runs through
  /// env->parallel_for (ParallelLoops.cpp).
  void emitParallel(const hlo::Instruction &instruction, int64_t extent, double work,
                    llvm::function_ref<void(llvm::Value *begin, llvm::Value *end)> body);
  /// An op as a function over a range of its outermost loop's `extent`
  /// iterations, with a task function running a share of them when the op
  /// is worth splitting (null otherwise).
  struct RangedOp {
    OpFunction op;
    int64_t extent = 0;
    llvm::Function *task = nullptr;
    int64_t tasks = 0;
  };
  RangedOp createRangedOp(const hlo::Instruction &instruction, int64_t extent, double work,
                          llvm::function_ref<void(llvm::Value *begin, llvm::Value *end)> body);
  /// Calls `ranged` over [begin, end) from the current function.
  void callRangedOp(const RangedOp &ranged, llvm::Value *begin, llvm::Value *end);
  /// Runs all of `ranged`: as tasks through the env's parallel_for when it
  /// has a task function and the env a parallel_for, else right here.
  void emitRangedOpRun(const RangedOp &ranged);
  /// `i1 dispatch(env, task, context, count)`: hands `count` tasks to the
  /// env's parallel_for and returns true, or returns false when there is none.
  llvm::Function *taskDispatcher();
  /// Whether code for this target may run tasks on threads.
  bool threadsAllowed() const;
  unsigned indexBits() const { return indexType_->getIntegerBitWidth(); }

  void emitElementalLoop(const hlo::Instruction &instruction) {
    const BufferSlice &out = assignment_.slice(&instruction);
    if (out.kind == BufferSlice::Kind::Empty)
      return;
    emitParallel(
        instruction, rootLoopExtent(instruction, instruction), elementalWork(instruction, 1),
        [&](llvm::Value *begin, llvm::Value *end) {
          auto reader = [this](const hlo::Instruction &operand, IndexRef index) {
            return readElement(operand, index);
          };
          ElementalEmitter elemental(builder_, indexType_, reader, contraction_);
          emitRootLoop(instruction, instruction, address(out), elemental, reader, {begin, end});
        });
  }

  /// The loop that stores `root`'s elements (the instruction itself, or a
  /// fusion's root) into the buffer of `stored`, over `range` of its split
  /// dimension: one element at a time, or a reduce row by row.
  void emitRootLoop(const hlo::Instruction &root, const hlo::Instruction &stored, llvm::Value *base,
                    ElementalEmitter &elemental, ElementalEmitter::OperandReader read,
                    LoopRange range) {
    if (reducesByRows(root))
      return emitReduceRows(root, stored, base, elemental, read, range);
    if (reducesInRuns(root, module_))
      return emitReduceInRuns(root, stored, base, elemental, read, range);
    if (padsByRows(root))
      return emitPadRows(root, stored, base, read, &range);
    emitLoopNest(
        builder_, indexType_, stored.shape().dims(),
        [&](IndexRef index) {
          llvm::Value *value = elemental.emit(root, index);
          if (!value)
            return fail(root, "internal error: code generation produced no value for " +
                                  hlo::opcodeName(root.opcode()));
          storeElement(builder_, stored.shape().elementType(), value,
                       elementAddress(stored, base, index));
        },
        "d", &range);
  }
  /// The extent emitRootLoop's range runs over.
  static int64_t rootLoopExtent(const hlo::Instruction &root, const hlo::Instruction &stored) {
    if (padsByRows(root))
      return padRowsSplitExtent(root);
    return reducesByRows(root) ? reduceRowsSplitExtent(root)
                               : outermostExtent(stored.shape().dims());
  }
  void emitReduceRows(const hlo::Instruction &reduce, const hlo::Instruction &stored,
                      llvm::Value *base, ElementalEmitter &elemental,
                      ElementalEmitter::OperandReader read, LoopRange range);
  /// A float reduce over its operand's innermost dimension, a group of
  /// result elements at a time (ReductionRuns.h).
  void emitReduceInRuns(const hlo::Instruction &reduce, const hlo::Instruction &stored,
                        llvm::Value *base, ElementalEmitter &elemental,
                        ElementalEmitter::OperandReader read, LoopRange range);
  void emitReduceRowsInF32(const hlo::Instruction &reduce, const hlo::Instruction &stored,
                           llvm::Value *base, ElementalEmitter &elemental,
                           ElementalEmitter::OperandReader read, LoopRange range);

  /// Roughly how many operations a loop over `instruction`'s result costs
  /// when each element takes `perElement` of them and reductions read every
  /// element of their input.
  static double elementalWork(const hlo::Instruction &instruction, double perElement) {
    double elements = double(instruction.shape().elementCount());
    if ((instruction.opcode() == Opcode::Reduce || instruction.opcode() == Opcode::ReduceWindow ||
         instruction.opcode() == Opcode::Dot || instruction.opcode() == Opcode::Convolution) &&
        instruction.operandCount() && instruction.operand(0)->shape().isArray())
      elements = std::max(elements, double(instruction.operand(0)->shape().elementCount()));
    return elements * perElement;
  }

  void emitDynamicUpdateSlice(const hlo::Instruction &instruction) {
    const BufferSlice &out = assignment_.slice(&instruction);
    if (out.kind == BufferSlice::Kind::Empty)
      return;
    copySlice(out, assignment_.slice(instruction.operand(0)));
    emitOutlined(instruction, [&] { emitDynamicUpdateSliceBody(instruction, out); });
  }

  void emitDynamicUpdateSliceBody(const hlo::Instruction &instruction, const BufferSlice &out) {
    const hlo::Instruction &update = *instruction.operand(1);
    // Start indices clamp so the whole update fits (XLA's rule).
    llvm::SmallVector<llvm::Value *, 4> starts;
    for (int64_t d = 0; d < instruction.shape().rank(); ++d) {
      const hlo::Instruction &startOperand = *instruction.operand(2 + d);
      llvm::Value *start = readElement(startOperand, {});
      llvm::Value *wide = builder_.CreateIntCast(
          start, builder_.getInt64Ty(), hlo::isSignedInteger(startOperand.shape().elementType()));
      llvm::Value *limit = builder_.getInt64(instruction.shape().dim(d) - update.shape().dim(d));
      wide = builder_.CreateSelect(builder_.CreateICmpSLT(wide, builder_.getInt64(0)),
                                   builder_.getInt64(0), wide);
      wide = builder_.CreateSelect(builder_.CreateICmpSGT(wide, limit), limit, wide);
      starts.push_back(builder_.CreateTrunc(wide, indexType_));
    }
    llvm::Value *base = address(out);
    emitLoopNest(builder_, indexType_, update.shape().dims(), [&](IndexRef index) {
      llvm::SmallVector<llvm::Value *, 4> target;
      for (size_t d = 0; d < index.size(); ++d)
        target.push_back(builder_.CreateNUWAdd(starts[d], index[d]));
      storeElement(builder_, instruction.shape().elementType(), readElement(update, index),
                   elementAddress(instruction, base, target));
    });
  }

  /// Copies `sources[i]` into `targets[i]` in an order that never overwrites
  /// a buffer a later copy still reads; copies in a cycle (a loop state that
  /// swaps two leaves) go through a stack temporary.
  void copyLeaves(llvm::ArrayRef<BufferSlice> targets, llvm::ArrayRef<BufferSlice> sources) {
    const size_t n = targets.size();
    llvm::SmallVector<bool, 8> done(n, false);
    auto overlaps = [](const BufferSlice &a, const BufferSlice &b) {
      if (a.kind != b.kind || a.size == 0 || b.size == 0)
        return false;
      if (a.kind == BufferSlice::Kind::Arena)
        return a.offset < b.offset + b.size && b.offset < a.offset + a.size;
      return a.index == b.index && a.constant == b.constant;
    };
    for (size_t round = 0; round < n; ++round)
      for (size_t i = 0; i < n; ++i) {
        if (done[i])
          continue;
        bool readLater = false;
        for (size_t j = 0; j < n; ++j)
          if (j != i && !done[j] && targets[j] != sources[j] && overlaps(targets[i], sources[j]))
            readLater = true;
        if (readLater)
          continue;
        copySlice(targets[i], sources[i]);
        done[i] = true;
      }
    llvm::SmallVector<std::pair<size_t, llvm::Value *>, 4> staged;
    for (size_t i = 0; i < n; ++i) {
      if (done[i] || sources[i].size == 0)
        continue;
      llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
      llvm::AllocaInst *temporary =
          entry.CreateAlloca(builder_.getInt8Ty(), builder_.getInt64(sources[i].size));
      temporary->setAlignment(llvm::Align(16));
      builder_.CreateMemCpy(temporary, llvm::MaybeAlign(16), address(sources[i]),
                            llvm::MaybeAlign(1), sources[i].size);
      staged.push_back({i, temporary});
    }
    for (auto &[i, temporary] : staged)
      builder_.CreateMemCpy(address(targets[i]), llvm::MaybeAlign(1), temporary,
                            llvm::MaybeAlign(16), sources[i].size);
  }

  /// Makes the parameter of `callee` hold `argument`'s value. Buffer
  /// assignment normally gives the parameter the argument's own memory, and
  /// then this copies nothing.
  void bindParameter(const hlo::Computation &callee, const hlo::Instruction &argument) {
    if (callee.parameterCount() != 1 || !callee.parameter(0))
      return;
    const hlo::Instruction *parameter = callee.parameter(0);
    for (size_t leaf = 0, n = leafCount(parameter->shape()); leaf < n; ++leaf)
      if (assignment_.hasSlice(parameter, leaf) && assignment_.hasSlice(&argument, leaf))
        copySlice(assignment_.slice(parameter, leaf), assignment_.slice(&argument, leaf));
  }

  void emitWhile(const hlo::Instruction &instruction) {
    const hlo::Computation &condition = *instruction.calledComputation(0);
    const hlo::Computation &body = *instruction.calledComputation(1);
    const size_t n = leafCount(instruction.shape());
    llvm::SmallVector<BufferSlice, 8> state, init, next;
    for (size_t leaf = 0; leaf < n; ++leaf) {
      state.push_back(assignment_.slice(&instruction, leaf));
      init.push_back(assignment_.slice(instruction.operand(0), leaf));
      next.push_back(assignment_.slice(body.root(), leaf));
    }
    copyLeaves(state, init);

    llvm::LLVMContext &context = module_.getContext();
    llvm::BasicBlock *header = llvm::BasicBlock::Create(context, "while.cond", function_);
    llvm::BasicBlock *bodyBlock = llvm::BasicBlock::Create(context, "while.body", function_);
    llvm::BasicBlock *exit = llvm::BasicBlock::Create(context, "while.exit", function_);
    builder_.CreateBr(header);
    builder_.SetInsertPoint(header);
    bindParameter(condition, instruction);
    emitComputation(condition);
    llvm::Value *keepGoing = readElement(*condition.root(), {});
    builder_.CreateCondBr(keepGoing, bodyBlock, exit);
    builder_.SetInsertPoint(bodyBlock);
    bindParameter(body, instruction);
    emitComputation(body);
    copyLeaves(state, next);
    builder_.CreateBr(header);
    builder_.SetInsertPoint(exit);
  }

  void emitConditional(const hlo::Instruction &instruction) {
    const hlo::Instruction &selector = *instruction.operand(0);
    llvm::Value *value = readElement(selector, {});
    const size_t branches = instruction.calledComputations().size();
    llvm::Value *branchIndex;
    if (selector.shape().elementType() == hlo::PrimitiveType::Pred) {
      // true runs branch 0, false branch 1.
      branchIndex = builder_.CreateSelect(value, builder_.getInt32(0), builder_.getInt32(1));
    } else {
      // An index out of range runs the last branch.
      llvm::Value *wide = builder_.CreateSExt(value, builder_.getInt64Ty());
      llvm::Value *outOfRange =
          builder_.CreateOr(builder_.CreateICmpSLT(wide, builder_.getInt64(0)),
                            builder_.CreateICmpSGE(wide, builder_.getInt64(branches)));
      branchIndex = builder_.CreateSelect(outOfRange, builder_.getInt32(branches - 1),
                                          builder_.CreateTrunc(wide, builder_.getInt32Ty()));
    }
    llvm::LLVMContext &context = module_.getContext();
    llvm::BasicBlock *merge = llvm::BasicBlock::Create(context, "cond.merge", function_);
    llvm::SwitchInst *dispatch = builder_.CreateSwitch(branchIndex, merge, branches);
    const size_t n = leafCount(instruction.shape());
    for (size_t b = 0; b < branches; ++b) {
      const hlo::Computation &branch = *instruction.calledComputation(b);
      llvm::BasicBlock *block = llvm::BasicBlock::Create(context, "cond.branch", function_);
      dispatch->addCase(builder_.getInt32(b), block);
      builder_.SetInsertPoint(block);
      bindParameter(branch, *instruction.operand(b + 1));
      emitComputation(branch);
      llvm::SmallVector<BufferSlice, 8> targets, sources;
      for (size_t leaf = 0; leaf < n; ++leaf) {
        targets.push_back(assignment_.slice(&instruction, leaf));
        sources.push_back(assignment_.slice(branch.root(), leaf));
      }
      copyLeaves(targets, sources);
      builder_.CreateBr(merge);
    }
    builder_.SetInsertPoint(merge);
  }

  /// Emits an op of the families in NonElementalOps.cpp; false if none
  /// handles it.
  bool emitNonElemental(const hlo::Instruction &instruction);

  // Op families emitted as whole loops (one file each).
  void emitSort(const hlo::Instruction &instruction);
  void emitScatter(const hlo::Instruction &instruction);
  void emitMultiOutputReduce(const hlo::Instruction &instruction);
  void emitMultiOutputReduceWindow(const hlo::Instruction &instruction);
  void emitSelectAndScatter(const hlo::Instruction &instruction);
  void emitRngBitGenerator(const hlo::Instruction &instruction);
  void emitTopK(const hlo::Instruction &instruction);
  void emitDot(const hlo::Instruction &instruction);
  void emitConvolution(const hlo::Instruction &instruction);
  /// A dot or convolution as the register-tiled contraction `plan` of the
  /// buffers of `lhs` and `rhs` into the buffer of `instruction` (the
  /// contraction itself, or the output fusion around it, whose `epilogue`
  /// rewrites what the kernel stores).
  /// `prelude`, if given, emits code that must run before the contraction
  /// (an output fusion's pad edges).
  void emitPlannedContraction(const hlo::Instruction &instruction, const ContractionPlan &plan,
                              const hlo::Instruction &lhs, const hlo::Instruction &rhs,
                              ContractionEpilogue epilogue = nullptr,
                              llvm::function_ref<void()> prelude = nullptr);

  /// The boxes of a convolution reading a pad of `input` in place, one
  /// after the other, as emitPlannedContraction does one plan
  /// (ConvolutionEmitter.cpp).
  void emitPaddedInputConvolution(const hlo::Instruction &instruction,
                                  const PaddedInputBoxes &boxes, const hlo::Instruction &input,
                                  const hlo::Instruction &weights, ContractionEpilogue epilogue,
                                  llvm::function_ref<void()> prelude);
  /// `epilogue` as a function of its own over (offset, count, staged sums)
  /// after `instruction`'s buffers, for several kernels to call.
  OpFunction outlinedEpilogue(const hlo::Instruction &instruction, ContractionEpilogue epilogue);
  /// A function (weights, taps, tap count, starts) that stores at
  /// `starts` the s32 sums each column of `plan`, a box skipping `taps` (a
  /// count of kernel offsets), starts from: the bias (`bias`, a table of
  /// s32, or null) plus `padValue` times the column's skipped weights.
  llvm::Function *boxStartsFunction(const hlo::Instruction &instruction,
                                    const ContractionPlan &plan, int64_t padValue,
                                    llvm::Value *bias);

  //===--- Chains of contractions (ContractionChains.cpp) -----------------===//

  /// A tiled contraction whose call waits, so that a run of them, each
  /// reading the previous one's result as its lhs, can run depth-first.
  struct ChainMember {
    const hlo::Instruction *instruction = nullptr;
    ContractionPlan plan;
    BufferSlice lhs, out;
    llvm::SmallVector<BufferSlice, 8> reads; ///< every buffer it reads, lhs included
    RangedOp ranged;
  };
  /// `instruction` computing `plan` from `lhs` as a chain member, unless its
  /// footprint cannot be followed or it reads `lhs` other than as the lhs.
  std::optional<ChainMember> chainMember(const hlo::Instruction &instruction,
                                         const ContractionPlan &plan, const hlo::Instruction &lhs);
  /// Whether `member` may follow the chain being collected: it reads the
  /// last member's result as its lhs, and touches no other member's memory
  /// in a way running depth-first would reorder.
  bool joinsChain(const ChainMember &member) const;
  /// Whether `instruction` may add to the chain (else emitComputation
  /// flushes it first): a dot, convolution or output fusion, or nothing
  /// that emits code.
  static bool mayJoinChain(const hlo::Instruction &instruction);
  /// Emits the calls of the chain collected so far and empties it.
  void flushChain();
  /// For each band of the depth-first schedule, the (member, begin, end)
  /// ranges of the split loops to run, producers first.
  std::vector<llvm::SmallVector<std::array<int64_t, 3>, 4>>
  chainBands(llvm::ArrayRef<ChainMember> chain);
  /// `i1 threaded(env)`: whether the env has a parallel_for.
  llvm::Function *parallelForCheck();
  void emitFusion(const hlo::Instruction &fusion);
  /// A fusion of a tiled dot or convolution and the elementwise ops over its
  /// result (FusionEmitter.cpp).
  /// With `boxes`, the convolution reads a pad of its input in place.
  void emitOutputFusion(const hlo::Instruction &fusion, const hlo::Instruction &contraction,
                        const ContractionPlan &plan, PaddedInputBoxes *boxes = nullptr);
  /// Stores the pad value of `pad` (the root of `fusion`) in the edges of
  /// the fusion's result at `base`.
  void emitPadEdges(const hlo::Instruction &fusion, const hlo::Instruction &pad, llvm::Value *base);
  /// Stores `pad` (the root of `stored`, or `stored` itself) row by row
  /// (PadRows.cpp), over `range` of its outer rows when given.
  void emitPadRows(const hlo::Instruction &pad, const hlo::Instruction &stored, llvm::Value *base,
                   ElementalEmitter::OperandReader read, const LoopRange *range);
  /// The operand of a pad at `operandIndex`.
  using InteriorReader = llvm::function_ref<llvm::Value *(IndexRef operandIndex)>;
  /// The rows of emitPadRows with the pad value `padValue`; without
  /// `interior`, the edges only.
  void emitPadByRows(const hlo::Instruction &pad, const hlo::Instruction &stored, llvm::Value *base,
                     llvm::Value *padValue, InteriorReader interior, const LoopRange *range);
  /// Values inside a fusion: parameters and constants read from memory,
  /// other fused instructions generated in place (each generated once per
  /// index and block), and `stored` (if set) read back from `storedAt`.
  struct FusedValues {
    explicit FusedValues(const hlo::Instruction &fusion) : fusion(fusion) {}
    const hlo::Instruction &fusion;
    ElementalEmitter *elemental = nullptr;
    const hlo::Instruction *stored = nullptr;
    llvm::Value *storedAt = nullptr;
    /// Where element 0 of `stored` sits in the fusion's result (inside a pad).
    llvm::ArrayRef<int64_t> storedShift;
    /// When set, the element of `stored` being read: an integer kernel's
    /// s32 sum (IntegerContraction.h) or a half kernel's f32 sum
    /// (HalfSumStage.h).
    llvm::Value *storedSum = nullptr;
    /// In an epilogue reading staged sums in pair order (StagedPairs): the
    /// column being written, and its position in pair order, where a
    /// one-dimensional constant read at that column is read from a copy in
    /// pair order, so it comes in the sums' order (a layer's bias).
    llvm::Value *pairedColumn = nullptr, *pairedPosition = nullptr;
    int64_t pairLanes = 0;
    struct Generated {
      const hlo::Instruction *instruction;
      llvm::SmallVector<llvm::Value *, 4> index;
      llvm::BasicBlock *block;
      llvm::Value *value;
    };
    std::vector<Generated> generated;
  };
  llvm::Value *readFused(FusedValues &values, const hlo::Instruction &operand, IndexRef index);
  void emitFft(const hlo::Instruction &instruction);
  void emitCholesky(const hlo::Instruction &instruction);
  void emitTriangularSolve(const hlo::Instruction &instruction);
  void emitRng(const hlo::Instruction &instruction);
  /// The slot of the counter rng draws advance, in the entry function.
  llvm::Value *rngCounter();

  // Helpers for them (NonElementalOps.cpp).
  /// Address of element `linear` (row-major) of an array of `type` at `base`.
  llvm::Value *elementAt(hlo::PrimitiveType type, llvm::Value *base, llvm::Value *linear);
  /// A stack slot in the current function's entry block.
  llvm::AllocaInst *createLocal(llvm::Type *type, const llvm::Twine &name);
  /// `while (condition()) body();` at the builder's position.
  void emitWhileLoop(llvm::function_ref<llvm::Value *()> condition, llvm::function_ref<void()> body,
                     const llvm::Twine &name);
  /// `if (condition) then();` at the builder's position.
  void emitIf(llvm::Value *condition, llvm::function_ref<void()> then, const llvm::Twine &name);

  /// Records that `instruction` could not be emitted: emitEntryFunction then
  /// fails with the first such error instead of returning code that skips it.
  void fail(const hlo::Instruction &instruction, const llvm::Twine &message) {
    if (!failure_)
      failure_.emplace(&instruction, message.str());
  }
  /// The first failure recorded, or success.
  llvm::Error takeFailure() {
    if (!failure_)
      return llvm::Error::success();
    llvm::Error error = hlo::errorAt(*failure_->first, failure_->second);
    failure_.reset();
    return error;
  }

private:
  const passes::Schedule &schedule_;
  const passes::BufferAssignment &assignment_;
  llvm::Module &module_;
  llvm::Function *function_;
  llvm::Function *entryFunction_;
  llvm::AllocaInst *rngCounter_ = nullptr;
  llvm::IRBuilder<> builder_;
  llvm::Type *indexType_;
  llvm::Value *args_ = nullptr, *results_ = nullptr, *scratch_ = nullptr;
  llvm::Value *env_ = nullptr;  ///< the call's mote_env (entry function only)
  llvm::Value *call_ = nullptr; ///< the entry function's mote_call
  /// Inside an op function: its buffers and the arguments that hold them.
  llvm::SmallVector<std::pair<BufferSlice, llvm::Value *>, 8> sliceArguments_;
  llvm::DenseMap<const hlo::Instruction *, ReadOnlyData> constants_;
  /// readWidenedConstant's f32 copies.
  llvm::DenseMap<std::pair<const hlo::Instruction *, int64_t>, ReadOnlyData> widenedConstants_;
  WeightsBlob *weightsBlob_ = nullptr; ///< where large constants go (packages)
  uint64_t weightsReserve_ = 0;        ///< scratch bytes before the arena
  /// The weights pointer as loaded in each function that reads weights.
  llvm::DenseMap<llvm::Function *, llvm::Value *> weightsBases_;
  const target::TargetSpec *target_ = nullptr;
  eval::ContractionArithmetic contraction_;
  bool nativeHalfSums_ = false;
  bool nativeBf16Dots_ = false; ///< bf16 sums by bfdot (ContractionPlan::bf16Dots)
  bool rhsPanels_ = true;
  std::vector<ChainMember> chain_; ///< contractions whose calls wait (ContractionChains.cpp)
  std::optional<std::pair<const hlo::Instruction *, std::string>> failure_;
};

} // namespace mote::codegen

#endif // MOTE_CODEGEN_FUNCTIONEMITTER_H
