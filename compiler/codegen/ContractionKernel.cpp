//===- ContractionKernel.cpp - Register-tiled strided contractions --------===//
//
// Columns run along the result's contiguous direction, rows along another
// one. Each operand is read with its own strides in each direction: an
// operand contiguous along the columns is loaded as vectors, one that does
// not vary along them is loaded once and splatted, anything else is gathered
// lane by lane. The remaining result dimensions are plain outer loops.
// Columns are blocked so a strip of the rhs stays in cache while all row
// tiles use it; a single contracting dimension is blocked too, the partial
// sums going through the result (exact: it has the accumulator's type).
// The tiles themselves, edges included, are ContractionTiling's choice.
//
//===----------------------------------------------------------------------===//

#include "codegen/ContractionKernel.h"

#include "codegen/Bf16Dots.h"
#include "codegen/Bf16Pairs.h"
#include "codegen/ContractionTiling.h"
#include "codegen/ElementTypes.h"
#include "codegen/HalfSumStage.h"
#include "codegen/IntegerContraction.h"
#include "codegen/LoopNest.h"
#include "passes/ContractionTypes.h"

#include "llvm/Analysis/VectorUtils.h"

namespace mote::codegen {

using hlo::PrimitiveType;
using IndexRef = llvm::ArrayRef<llvm::Value *>;

namespace {

/// Emits the loops of one planned contraction into the current function.
class ContractionKernel {
public:
  ContractionKernel(llvm::IRBuilderBase &builder, llvm::Type *indexType,
                    const ContractionPlan &plan, const ContractionTiling &tiling,
                    const PackedSchedule &packed, unsigned lhsRunSteps, bool prefetches,
                    bool hardwareHalf, bool splatsHalfBits, bool widensRhsOnce, bool pairsBf16)
      : b_(builder), indexType_(indexType), plan_(plan), tiling_(tiling), packed_(packed),
        kSteps_(tiling.lanes > 1 ? lhsRunSteps : 1), prefetches_(prefetches),
        hardwareHalf_(hardwareHalf), splatsHalfBits_(splatsHalfBits), widensRhsOnce_(widensRhsOnce),
        pairsBf16_(pairsBf16), element_(plan.type == PrimitiveType::F64   ? b_.getDoubleTy()
                                        : plan.type == PrimitiveType::F16 ? b_.getHalfTy()
                                                                          : b_.getFloatTy()) {
    for (int side = 0; side < 3; ++side)
      storage_[side] = storageType(b_.getContext(), arrayType(plan, side));
  }

  /// Emits the contraction of `lhs` and `rhs` into `out`; `local` makes a
  /// stack slot in the function's entry block.
  /// The extent of the loop tasks split: the first outer dimension, else
  /// the row tiles.
  bool splitsRows() const { return splitsRowTiles(plan_); }
  int64_t splitExtent() const { return splitExtentOf(plan_, tiling_, packed_); }
  int64_t rowTiles() const { return rowTileCount(plan_, tiling_); }

  void emit(llvm::Value *lhs, llvm::Value *rhs, llvm::Value *out,
            llvm::function_ref<llvm::AllocaInst *(llvm::Type *)> local, llvm::Value *splitBegin,
            llvm::Value *splitEnd, ContractionEpilogue epilogue) {
    local_ = local;
    epilogue_ = epilogue;
    stage_ = nullptr;
    // A window the rows slide along is unrolled instead.
    if (slidingWindowDimension() >= 0)
      kSteps_ = 1;
    if (!splitBegin) {
      splitBegin = index(0);
      splitEnd = index(splitExtent());
    }
    if (packed_.enabled)
      return emitPackedUnits(lhs, rhs, out, splitBegin, splitEnd);
    if (splitsRows()) {
      tileBegin_ = splitBegin;
      tileEnd_ = splitEnd;
    }
    // Blocks are whole main tiles wide, so only the last one has tail columns.
    const int64_t tileColumns = tiling_.tileColumns();
    // Strips of 512 columns and k blocks of 128 (64 for f64): the 256 KiB
    // rhs block they cover stays in the L2 cache while every row tile uses
    // it (the best of the sizes tried for a 512^3 f32 GEMM on x86-64).
    const int64_t kBlock = plan_.type == PrimitiveType::F64 ? 64 : 128;
    int64_t columnBlock = std::max<int64_t>(1, 512 / tileColumns) * tileColumns;
    if (stagesHalfSums())
      columnBlock = prepareStage(columnBlock);
    oneStrip_ = stage_ && plan_.columns <= columnBlock;
    // Blocking k costs a reload of the partial sums per block: only worth it
    // when a whole strip of the rhs would not stay in that cache.
    const int64_t elementBytes = hlo::bitWidth(plan_.rhsType) / 8;
    const int64_t stripBytes = plan_.contractingDims.size() == 1
                                   ? plan_.contractingDims[0] *
                                         std::min<int64_t>(plan_.columns, columnBlock) *
                                         elementBytes
                                   : 0;
    // Partial sums go through the result, so only one that holds them exactly.
    // bfdot tiles take their whole contracting loop at once.
    blockK_ = resultHoldsSums(plan_) && !plan_.bf16Dots && stripBytes > kBlock * 512 * 4 &&
                      plan_.contractingDims[0] > kBlock
                  ? kBlock
                  : 0;
    pairedStage_ = leavesPairsStaged();
    if (plan_.rows == 0 || plan_.columns == 0)
      return;
    if (const int64_t lhsElements = wholeLhsElements())
      lhs = widenWholeLhs(lhs, lhsElements);
    prepareLhsPanel();
    prepareWidenedRhs();
    // Weights the same for every outer index are widened once for all.
    const bool rhsVariesOuter =
        llvm::any_of(plan_.operand[1].outer, [](int64_t stride) { return stride != 0; });
    if (widenedRhs_ && !rhsVariesOuter) {
      base_[1] = at(1, rhs, index(plan_.operand[1].base));
      widenRhs();
    }

    LoopRange outerRange{splitBegin, splitEnd};
    emitLoopNest(
        b_, indexType_, plan_.outerDims,
        [&](IndexRef outer) {
          const OperandStrides *arrays[3] = {&plan_.operand[0], &plan_.operand[1], &plan_.result};
          llvm::Value *offsets[3];
          for (int side = 0; side < 3; ++side) {
            offsets[side] = index(arrays[side]->base);
            for (size_t d = 0; d < outer.size(); ++d)
              offsets[side] = add(offsets[side], mul(outer[d], arrays[side]->outer[d]));
          }
          base_[0] = at(0, lhs, offsets[0]);
          base_[1] = at(1, rhs, offsets[1]);
          base_[2] = at(2, out, offsets[2]);
          outOffset_ = offsets[2];
          if (widenedRhs_ && rhsVariesOuter)
            widenRhs();

          const int64_t columnBlocks = (plan_.columns + columnBlock - 1) / columnBlock;
          emitCountedLoop(
              b_, index(columnBlocks),
              [&](llvm::Value *block) {
                llvm::Value *begin = mul(block, columnBlock);
                llvm::Value *end = b_.CreateBinaryIntrinsic(
                    llvm::Intrinsic::umin, add(begin, index(columnBlock)), index(plan_.columns));
                if (!blockK_)
                  return emitRows(begin, end, nullptr);
                const int64_t kBlocks = (plan_.contractingDims[0] + blockK_ - 1) / blockK_;
                emitCountedLoop(
                    b_, index(kBlocks), [&](llvm::Value *kb) { emitRows(begin, end, kb); }, "kb");
              },
              "jc");
        },
        "d", splitsRows() ? nullptr : &outerRange);
  }

private:
  llvm::Value *index(int64_t value) { return llvm::ConstantInt::get(indexType_, value); }
  llvm::Value *add(llvm::Value *x, llvm::Value *y) { return b_.CreateAdd(x, y); }
  llvm::Value *mul(llvm::Value *x, int64_t y) { return emitScaledIndex(b_, x, y); }
  /// Element `offset` of a buffer of sums (the packed panel).
  llvm::Value *gep(llvm::Value *base, llvm::Value *offset) {
    return b_.CreateGEP(element_, base, offset);
  }
  /// Element `offset` of array `side` (0 lhs, 1 rhs, 2 result) from `base`.
  llvm::Value *at(int side, llvm::Value *base, llvm::Value *offset) {
    return b_.CreateGEP(storage_[side], base, offset);
  }
  static llvm::Type *vectorOf(llvm::Type *element, unsigned lanes) {
    return lanes == 1 ? element : llvm::FixedVectorType::get(element, lanes);
  }
  llvm::Type *vectorType(unsigned lanes) { return vectorOf(element_, lanes); }
  llvm::Align alignment() { return llvm::Align(element_->getPrimitiveSizeInBits() / 8); }
  llvm::Align alignment(int side) { return llvm::Align(hlo::bitWidth(arrayType(plan_, side)) / 8); }

  /// `lanes` elements of array `side` at `address`, as sums' values: half
  /// values widen in registers (exactly).
  llvm::Value *loadArray(int side, llvm::Value *address, unsigned lanes) {
    return widen(side,
                 b_.CreateAlignedLoad(vectorOf(storage_[side], lanes), address, alignment(side)));
  }
  /// Values of array `side` as sums' values: f16 with the target's
  /// conversions where it has them (one instruction a vector), bf16 by a
  /// shift.
  llvm::Value *widen(int side, llvm::Value *value) {
    if (plan_.type == PrimitiveType::F16) // native f16 sums: the bits as half
      return b_.CreateBitCast(value, vectorOf(element_, lanesOf(value)));
    if (arrayType(plan_, side) == PrimitiveType::F16)
      return widenF16(b_, value, hardwareHalf_);
    return toCompute(b_, arrayType(plan_, side), value);
  }
  /// Sums rounded to the result's type.
  llvm::Value *narrow(llvm::Value *value) {
    if (plan_.type == PrimitiveType::F16)
      return b_.CreateBitCast(value, vectorOf(storage_[2], lanesOf(value)));
    if (plan_.resultType == PrimitiveType::F16)
      return narrowToF16(b_, value, hardwareHalf_);
    return fromCompute(b_, plan_.resultType, value);
  }
  /// Whether scalars of array `side` shared by the columns are splatted as
  /// f16 bits (splatsHalfBits_).
  bool splatsHalfBitsOf(int side) const {
    return splatsHalfBits_ && plan_.type == PrimitiveType::F32 &&
           arrayType(plan_, side) == PrimitiveType::F16;
  }
  static unsigned lanesOf(llvm::Value *value) {
    auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(value->getType());
    return vector ? vector->getNumElements() : 1;
  }

  /// Units [begin, end) of the packed schedule (see PackedSchedule).
  void emitPackedUnits(llvm::Value *lhs, llvm::Value *rhs, llvm::Value *out, llvm::Value *begin,
                       llvm::Value *end) {
    if (plan_.rows == 0 || plan_.columns == 0)
      return;
    base_[0] = at(0, lhs, index(plan_.operand[0].base));
    base_[1] = at(1, rhs, index(plan_.operand[1].base));
    base_[2] = at(2, out, index(plan_.result.base));
    outOffset_ = index(plan_.result.base);
    blockK_ = packed_.kBlock;
    prepareLhsPanel();
    chunkEpilogue_ = true;
    if (!plan_.rhsInPanels) {
      panelBuffer_ = local_(llvm::ArrayType::get(element_, blockK_ * packed_.panelColumns));
      panelBuffer_->setAlignment(llvm::Align(64));
    }
    const int64_t width = packed_.panelColumns;
    const int64_t fullPanels = plan_.columns / width;
    const int64_t kBlocks = (plan_.contractingDims[0] + blockK_ - 1) / blockK_;
    emitCountedLoop(
        b_, b_.CreateSub(end, begin),
        [&](llvm::Value *u) {
          llvm::Value *unit = add(begin, u);
          llvm::Value *panel = b_.CreateUDiv(unit, index(packed_.chunks));
          llvm::Value *chunk = b_.CreateURem(unit, index(packed_.chunks));
          llvm::Value *columnBegin = mul(panel, width);
          llvm::Value *columnEnd = b_.CreateBinaryIntrinsic(
              llvm::Intrinsic::umin, add(columnBegin, index(width)), index(plan_.columns));
          tileBegin_ = mul(chunk, packed_.chunkTiles);
          tileEnd_ = b_.CreateBinaryIntrinsic(
              llvm::Intrinsic::umin, add(tileBegin_, index(packed_.chunkTiles)), index(rowTiles()));
          auto blocks = [&](bool pack) {
            packing_ = pack;
            emitCountedLoop(
                b_, index(kBlocks),
                [&](llvm::Value *kb) {
                  if (pack)
                    emitPack(columnBegin, kb);
                  emitRows(columnBegin, columnEnd, kb);
                },
                "kb");
            packing_ = false;
          };
          if (plan_.rhsInPanels) {
            blocks(false); // stored in panels at compile time: read in place
          } else if (fullPanels == packed_.panels) {
            blocks(true);
          } else {
            // The last panel is narrower than a tile: it reads the rhs in place.
            llvm::Function *function = b_.GetInsertBlock()->getParent();
            auto *full = llvm::BasicBlock::Create(b_.getContext(), "panel.full", function);
            auto *narrow = llvm::BasicBlock::Create(b_.getContext(), "panel.narrow", function);
            auto *done = llvm::BasicBlock::Create(b_.getContext(), "panel.done", function);
            b_.CreateCondBr(b_.CreateICmpULT(panel, index(fullPanels)), full, narrow);
            b_.SetInsertPoint(full);
            blocks(true);
            b_.CreateBr(done);
            b_.SetInsertPoint(narrow);
            blocks(false);
            b_.CreateBr(done);
            b_.SetInsertPoint(done);
          }
          if (epilogue_)
            emitChunkEpilogue(columnBegin, b_.CreateSub(columnEnd, columnBegin));
        },
        "unit");
  }

  /// The alignment of every vector in the panel buffer: the buffer is
  /// 64-byte aligned, its k steps a panel width apart.
  llvm::Align panelAlignment() const {
    const uint64_t bytes = element_->getPrimitiveSizeInBits() / 8;
    return llvm::commonAlignment(llvm::Align(64), tiling_.tileColumns() * bytes);
  }

  /// Copies k block `kBlockIndex` of the rhs panel starting at `column`
  /// into the panel buffer, k step by k step (half values widened once
  /// here, not in every tile that reads them).
  void emitPack(llvm::Value *column, llvm::Value *kBlockIndex) {
    const int64_t width = packed_.panelColumns;
    llvm::Value *kBegin = mul(kBlockIndex, blockK_);
    llvm::Value *kEnd = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, add(kBegin, index(blockK_)),
                                                 index(plan_.contractingDims[0]));
    const int64_t kStride = plan_.operand[1].contracting[0];
    emitCountedLoop(
        b_, b_.CreateSub(kEnd, kBegin),
        [&](llvm::Value *k) {
          llvm::Value *source = at(1, base_[1], add(mul(add(kBegin, k), kStride), column));
          llvm::Value *target = gep(panelBuffer_, mul(k, width));
          int64_t c = 0;
          for (unsigned lanes : tiling_.widths) {
            b_.CreateAlignedStore(loadArray(1, at(1, source, index(c)), lanes),
                                  gep(target, index(c)), panelAlignment());
            c += lanes;
          }
        },
        "kpack");
  }

  /// The output fusion over the rows of the current chunk, columns
  /// [column, column + columns), once they are final (after the last k
  /// block): the chunk was just written and is still in cache.
  void emitChunkEpilogue(llvm::Value *column, llvm::Value *columns) {
    llvm::Value *rowBegin = mul(tileBegin_, tiling_.rows);
    llvm::Value *rowEnd = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin,
                                                   mul(tileEnd_, tiling_.rows), index(plan_.rows));
    emitCountedLoop(
        b_, b_.CreateSub(rowEnd, rowBegin),
        [&](llvm::Value *r) {
          llvm::Value *row = add(rowBegin, r);
          epilogue_(add(outOffset_, add(mul(row, plan_.result.row), column)), columns, nullptr,
                    StagedPairs());
        },
        "erow");
  }

  /// The row tiles of [tileBegin_, tileEnd_) (all of them unless a task
  /// has a share): full tiles, then the partial tile of the rows left over.
  void emitRows(llvm::Value *columnBegin, llvm::Value *columnEnd, llvm::Value *kBlockIndex) {
    llvm::Value *begin = tileBegin_ ? tileBegin_ : index(0);
    llvm::Value *end = tileEnd_ ? tileEnd_ : index(rowTiles());
    emitRowTiles(b_, plan_, tiling_, begin, end, [&](llvm::Value *row, unsigned rows) {
      emitColumns(row, rows, columnBegin, columnEnd, kBlockIndex);
    });
  }

  /// Emits `body` where `condition` holds, and goes on after it.
  void emitIf(llvm::Value *condition, const llvm::Twine &name, llvm::function_ref<void()> body) {
    emitIfThen(b_, condition, body, name);
  }

  /// Main tiles across [begin, end), then the tail tiles. Blocks and panels
  /// are whole main tiles wide except the last, so whatever is left after
  /// the main tiles is exactly the tail.
  void emitColumns(llvm::Value *row, unsigned rows, llvm::Value *begin, llvm::Value *end,
                   llvm::Value *kBlockIndex) {
    if (lhsPanel_)
      emitLhsPanel(row, rows, kBlockIndex);
    stripBegin_ = begin;
    const int64_t tileColumns = tiling_.tileColumns();
    llvm::Value *width = b_.CreateSub(end, begin);
    llvm::Value *full = b_.CreateUDiv(width, index(tileColumns));
    emitCountedLoop(
        b_, full,
        [&](llvm::Value *t) {
          llvm::Value *column = add(begin, mul(t, tileColumns));
          // A packed unit holds one main tile of the rhs; the widened rhs
          // holds every main tile's panel, K steps each.
          if (packing_)
            panel_ = panelBuffer_;
          else if (widenedRhs_)
            panel_ = gep(widenedRhs_, mul(column, widenedRhsSteps_));
          emitTile(row, rows, column, tiling_.widths, kBlockIndex);
          panel_ = nullptr;
        },
        "jr");
    if (!tiling_.tail.empty()) {
      llvm::Value *rest = b_.CreateSub(width, mul(full, tileColumns));
      emitIf(b_.CreateICmpNE(rest, index(0)), "tail", [&] {
        int64_t offset = -tiling_.tailColumns();
        for (const TileWidths &widths : tiling_.tail) {
          emitTile(row, rows, add(end, index(offset)), widths, kBlockIndex);
          offset += sumOf(widths);
        }
      });
    }
    // The rewrite waits for the whole strip of tiles: reading a vector right
    // after storing it can stall (no store-to-load forwarding of the widest
    // vectors on some cores), and the strip is still in the first-level cache.
    if (epilogue_ && !chunkEpilogue_)
      emitEpilogue(row, rows, begin, oneStrip_ ? index(plan_.columns) : width, kBlockIndex);
  }

  /// Whether the rows of a tile read their half-precision lhs through a
  /// panel widened once per row tile (see emitLhsPanel), and how many
  /// contracting steps it holds.
  int64_t lhsPanelSteps() const {
    const OperandStrides &lhs = plan_.operand[0];
    if ((plan_.lhsType != PrimitiveType::F16 && plan_.lhsType != PrimitiveType::BF16) ||
        plan_.type != PrimitiveType::F32 || kSteps_ > 1 || tiling_.lanes == 1 || lhs.column != 0 ||
        lhs.row == 0 || slidingWindowDimension() >= 0 || plan_.bf16Dots)
      return 0;
    int64_t steps = blockK_;
    if (!steps) {
      steps = 1;
      for (int64_t dim : plan_.contractingDims)
        steps *= dim;
    }
    return tiling_.rows * steps * 4 <= kMaxLhsPanelBytes ? steps : 0;
  }

  void prepareLhsPanel() {
    lhsPanelSteps_ = lhsPanelSteps();
    if (!lhsPanelSteps_)
      return;
    lhsPanel_ = local_(llvm::ArrayType::get(element_, tiling_.rows * lhsPanelSteps_));
    lhsPanel_->setAlignment(llvm::Align(64));
  }

  /// Widens the lhs values of the `rows` rows from `row` for every
  /// contracting step (of block `kBlockIndex`) into the panel, step after
  /// step: the tiles of the row then load them as f32, each broadcast folded
  /// into its multiply-adds as for f32 operands, where widening a half value
  /// for each step would cost three instructions more (x86-64: a load, a
  /// move, vcvtph2ps) per row and step.
  void emitLhsPanel(llvm::Value *row, unsigned rows, llvm::Value *kBlockIndex) {
    const OperandStrides &lhs = plan_.operand[0];
    for (unsigned r = 0; r < rows; ++r) {
      llvm::Value *rowBase = at(0, base_[0], mul(add(row, index(r)), lhs.row));
      llvm::Value *panelRow = gep(lhsPanel_, index(r * lhsPanelSteps_));
      auto copy = [&](llvm::Value *offset, llvm::Value *step) {
        b_.CreateAlignedStore(loadArray(0, at(0, rowBase, offset), 1), gep(panelRow, step),
                              alignment());
      };
      if (kBlockIndex) {
        llvm::Value *kBegin = mul(kBlockIndex, blockK_);
        llvm::Value *kEnd = b_.CreateBinaryIntrinsic(
            llvm::Intrinsic::umin, add(kBegin, index(blockK_)), index(plan_.contractingDims[0]));
        emitCountedLoop(
            b_, b_.CreateSub(kEnd, kBegin),
            [&](llvm::Value *k) { copy(mul(add(kBegin, k), lhs.contracting[0]), k); }, "kl");
        continue;
      }
      const llvm::SmallVector<int64_t, 4> linear = rowMajorStrides(plan_.contractingDims);
      emitLoopNest(
          b_, indexType_, plan_.contractingDims,
          [&](IndexRef k) {
            llvm::Value *offset = index(0), *step = index(0);
            for (size_t c = 0; c < k.size(); ++c) {
              offset = add(offset, mul(k[c], lhs.contracting[c]));
              step = add(step, mul(k[c], linear[c]));
            }
            copy(offset, step);
          },
          "kl");
    }
  }

  /// How many contracting steps the widened rhs holds (every one), or 0
  /// when the rhs is read in place: see prepareWidenedRhs.
  int64_t widenedRhsSteps() const {
    const OperandStrides &rhs = plan_.operand[1];
    const int64_t panels = plan_.columns / tiling_.tileColumns();
    if (!widensRhsOnce_ || plan_.type != PrimitiveType::F32 ||
        (plan_.rhsType != PrimitiveType::F16 && plan_.rhsType != PrimitiveType::BF16) || blockK_ ||
        tiling_.lanes == 1 || rhs.row != 0 || rhs.column == 0 || panels == 0)
      return 0;
    int64_t steps = 1, outer = 1;
    for (int64_t dim : plan_.contractingDims)
      steps *= dim;
    for (int64_t dim : plan_.outerDims)
      outer *= dim;
    // Widened per outer index where the rhs varies along it (a batched
    // product), else once for all of them: worth it when more than one row
    // tile reads each widening.
    if (llvm::any_of(rhs.outer, [](int64_t stride) { return stride != 0; }))
      outer = 1;
    const int64_t bytes = panels * tiling_.tileColumns() * steps * 4;
    return bytes <= kMaxWidenedRhsBytes && outer * rowTiles() > 1 ? steps : 0;
  }

  /// Widens the rhs once, before any tile reads it, into a stack buffer laid
  /// out as packed panels of every contracting step (one per main tile of
  /// columns; the tail tiles read the rhs in place), when the rhs is the same
  /// for every row and small enough to stay in the first-level cache (the
  /// weights of a 1x1 or depthwise convolution; each head's keys and values
  /// in attention, which a batched product widens per outer index).
  /// Widening half weights in every row tile costs a conversion per vector
  /// and row tile that competes with the multiply-adds for ports (x86-64:
  /// vcvtph2ps is two micro-operations on the multiply-add ports); the tiles
  /// then read f32 vectors as an f32 contraction does.
  void prepareWidenedRhs() {
    widenedRhsSteps_ = widenedRhsSteps();
    if (!widenedRhsSteps_)
      return;
    const int64_t panels = plan_.columns / tiling_.tileColumns();
    widenedRhs_ =
        local_(llvm::ArrayType::get(element_, panels * tiling_.tileColumns() * widenedRhsSteps_));
    widenedRhs_->setAlignment(llvm::Align(64));
  }

  /// Fills the widened rhs from the rhs at base_[1].
  void widenRhs() {
    const int64_t width = tiling_.tileColumns();
    const int64_t panels = plan_.columns / width;
    const llvm::SmallVector<int64_t, 4> linear = rowMajorStrides(plan_.contractingDims);
    emitCountedLoop(
        b_, index(panels),
        [&](llvm::Value *panel) {
          llvm::Value *column = mul(panel, width);
          emitLoopNest(
              b_, indexType_, plan_.contractingDims,
              [&](IndexRef k) {
                llvm::Value *offset = index(0), *step = index(0);
                for (size_t c = 0; c < k.size(); ++c) {
                  offset = add(offset, mul(k[c], plan_.operand[1].contracting[c]));
                  step = add(step, mul(k[c], linear[c]));
                }
                llvm::Value *target =
                    gep(widenedRhs_, add(mul(column, widenedRhsSteps_), mul(step, width)));
                const llvm::SmallVector<bool, 8> pairs = bf16PairStarts(tiling_.widths);
                int64_t c = 0;
                for (size_t v = 0; v < tiling_.widths.size(); ++v) {
                  const unsigned lanes = tiling_.widths[v];
                  if (pairs[v]) { // stored as the tiles read it: even columns, then odd
                    auto [even, odd] = loadBf16Deinterleaved(
                        b_, operandAddress(1, index(0), column, 0, c, offset), lanes, alignment(1));
                    b_.CreateAlignedStore(even, gep(target, index(c)), panelAlignment());
                    b_.CreateAlignedStore(odd, gep(target, index(c + lanes)), panelAlignment());
                    c += 2 * lanes;
                    ++v;
                    continue;
                  }
                  b_.CreateAlignedStore(loadOperand(1, index(0), column, 0, c, lanes, offset),
                                        gep(target, index(c)), panelAlignment());
                  c += lanes;
                }
              },
              "kw");
        },
        "pw");
  }

  /// How many elements of a half lhs widenWholeLhs widens (0: none): a
  /// window sliding along the rows over values the columns share (DS-CNN's
  /// first layer, one input channel), which the tiles would otherwise widen
  /// value by value for every row and step (x86-64: vpbroadcastw and
  /// vcvtph2ps per row, for a few multiply-adds), and whose rows the lhs
  /// panel cannot hold.
  int64_t wholeLhsElements() const {
    const OperandStrides &lhs = plan_.operand[0];
    if (!widensRhsOnce_ || plan_.type != PrimitiveType::F32 ||
        (plan_.lhsType != PrimitiveType::F16 && plan_.lhsType != PrimitiveType::BF16) ||
        tiling_.lanes == 1 || lhs.column != 0 || slidingWindowDimension() < 0)
      return 0;
    int64_t last = lhs.base + (plan_.rows - 1) * lhs.row;
    bool forward = lhs.base >= 0 && lhs.row >= 0;
    auto reach = [&](llvm::ArrayRef<int64_t> dims, llvm::ArrayRef<int64_t> strides) {
      for (size_t d = 0; d < dims.size(); ++d) {
        forward &= strides[d] >= 0;
        last += (dims[d] - 1) * strides[d];
      }
    };
    reach(plan_.outerDims, lhs.outer);
    reach(plan_.contractingDims, lhs.contracting);
    return forward && (last + 1) * 4 <= kMaxWidenedRhsBytes ? last + 1 : 0;
  }

  /// Widens the first `count` elements of the lhs into an f32 stack buffer,
  /// a vector at a time, and reads the lhs from there as f32.
  llvm::Value *widenWholeLhs(llvm::Value *lhs, int64_t count) {
    llvm::AllocaInst *buffer = local_(llvm::ArrayType::get(element_, count));
    buffer->setAlignment(llvm::Align(64));
    const unsigned lanes = tiling_.lanes;
    auto copy = [&](llvm::Value *offset, unsigned width) {
      b_.CreateAlignedStore(loadArray(0, at(0, lhs, offset), width), gep(buffer, offset),
                            alignment());
    };
    emitCountedLoop(
        b_, index(count / lanes), [&](llvm::Value *v) { copy(mul(v, lanes), lanes); }, "lw");
    for (int64_t i = count / lanes * lanes; i < count; ++i)
      copy(index(i), 1);
    plan_.lhsType = PrimitiveType::F32;
    storage_[0] = element_;
    return buffer;
  }

  static int64_t sumOf(llvm::ArrayRef<unsigned> widths) {
    int64_t total = 0;
    for (unsigned width : widths)
      total += width;
    return total;
  }

  /// The value of operand `side` for tile row `r`, the `lanes` columns from
  /// `column` + `offset`, at k offset `kOffset`.
  /// With `widened` false, a scalar (lanes 1) comes as its stored bits.
  llvm::Value *loadOperand(int side, llvm::Value *row, llvm::Value *column, unsigned r,
                           int64_t offset, unsigned lanes, llvm::Value *kOffset,
                           bool widened = true) {
    const OperandStrides &strides = plan_.operand[side];
    llvm::Value *address = operandAddress(side, row, column, r, offset, kOffset);
    if (strides.column == 0 || lanes == 1) {
      llvm::Value *scalar = widened
                                ? loadArray(side, address, 1)
                                : b_.CreateAlignedLoad(storage_[side], address, alignment(side));
      return lanes == 1 ? scalar : b_.CreateVectorSplat(lanes, scalar);
    }
    if (strides.column == 1)
      return loadArray(side, address, lanes);
    llvm::Value *vector = llvm::PoisonValue::get(vectorOf(storage_[side], lanes));
    for (unsigned lane = 0; lane < lanes; ++lane) {
      llvm::Value *laneAddress = at(side, address, index(lane * strides.column));
      vector = b_.CreateInsertElement(
          vector, b_.CreateAlignedLoad(storage_[side], laneAddress, alignment(side)), lane);
    }
    return widen(side, vector);
  }

  /// Where loadOperand reads: operand `side` for tile row `r`, column
  /// `column` + `offset`, at k offset `kOffset`.
  llvm::Value *operandAddress(int side, llvm::Value *row, llvm::Value *column, unsigned r,
                              int64_t offset, llvm::Value *kOffset) {
    const OperandStrides &strides = plan_.operand[side];
    llvm::Value *position =
        add(add(mul(add(row, index(r)), strides.row), kOffset),
            side == 1 && plan_.rhsInPanels ? add(panelColumn(column), index(offset))
                                           : mul(add(column, index(offset)), strides.column));
    return at(side, base_[side], position);
  }

  /// Whether the tiles read the lhs as bf16 pairs deinterleaved
  /// (Bf16Pairs.h): a bf16 lhs contiguous along the columns (a depthwise
  /// convolution's input) whose every other operand vector can come in the
  /// same order (a bf16 rhs contiguous along the columns, widened into the
  /// panel in that order or read in place, or one rhs value per row), with
  /// sums no other tile continues (no k blocks, no packed units).
  bool readsBf16Pairs() const {
    const OperandStrides &rhs = plan_.operand[1];
    return pairsBf16_ && plan_.type == PrimitiveType::F32 && plan_.lhsType == PrimitiveType::BF16 &&
           plan_.operand[0].column == 1 && tiling_.lanes > 1 && kSteps_ == 1 && !packed_.enabled &&
           !blockK_ &&
           (rhs.column == 0 || (plan_.rhsType == PrimitiveType::BF16 && rhs.column == 1));
  }

  /// The vectors of a tile row of `widths` that start a deinterleaved pair
  /// (none unless readsBf16Pairs).
  llvm::SmallVector<bool, 8> bf16PairStarts(llvm::ArrayRef<unsigned> widths) const {
    if (!readsBf16Pairs())
      return llvm::SmallVector<bool, 8>(widths.size(), false);
    return deinterleavedPairStarts(widths);
  }

  /// Where `column` (a tile's first, so the tile lies in one panel) starts
  /// in an rhs stored in panels: its panel's K x NR block, then its place
  /// in the panel.
  llvm::Value *panelColumn(llvm::Value *column) {
    const int64_t width = tiling_.tileColumns();
    int64_t steps = 1;
    for (int64_t dim : plan_.contractingDims)
      steps *= dim;
    return add(mul(b_.CreateUDiv(column, index(width)), steps * width),
               b_.CreateURem(column, index(width)));
  }

  /// The bytes an operand spans along the contracting dimensions.
  int64_t contractingSpanBytes(const OperandStrides &strides) const {
    int64_t span = 1;
    for (size_t d = 0; d < strides.contracting.size(); ++d)
      span += (plan_.contractingDims[d] - 1) * std::abs(strides.contracting[d]);
    return span * (hlo::bitWidth(arrayType(plan_, &strides == &plan_.operand[0] ? 0 : 1)) / 8);
  }

  /// The innermost contracting dimension (of at most kMaxUnrolledWindow
  /// steps) along which the lhs moves by a fraction of its row stride, so
  /// that rows a few steps apart read the same lhs elements (a convolution
  /// window sliding along the rows); -1 if there is none.
  int slidingWindowDimension() const {
    const OperandStrides &lhs = plan_.operand[0];
    for (int d = int(plan_.contractingDims.size()) - 1; d >= 0; --d) {
      const int64_t size = plan_.contractingDims[d], step = lhs.contracting[d];
      if (size == 1)
        continue;
      if (size <= kMaxUnrolledWindow && step > 0 && lhs.row > 0 && lhs.row % step == 0 &&
          lhs.row / step < size)
        return d;
      return -1;
    }
    return -1;
  }

  /// One tile at (row, column): `rows` rows of vectors of `widths`, their
  /// sums in registers for the whole k range of this block.
  void emitTile(llvm::Value *row, unsigned rows, llvm::Value *column,
                llvm::ArrayRef<unsigned> widths, llvm::Value *kBlockIndex) {
    const size_t segments = widths.size();
    llvm::SmallVector<int64_t, 8> offsets; // of each vector from `column`
    int64_t tileColumns = 0;
    for (unsigned width : widths) {
      offsets.push_back(tileColumns);
      tileColumns += width;
    }
    llvm::SmallVector<llvm::AllocaInst *, 32> sums;
    auto outAddress = [&](unsigned r, size_t v) {
      llvm::Value *position =
          add(mul(add(row, index(r)), plan_.result.row), add(column, index(offsets[v])));
      return at(2, base_[2], position);
    };
    llvm::Value *firstBlock = kBlockIndex ? b_.CreateICmpEQ(kBlockIndex, index(0)) : nullptr;
    for (unsigned r = 0; r < rows; ++r)
      for (size_t v = 0; v < segments; ++v) {
        llvm::Type *type = vectorType(widths[v]);
        llvm::AllocaInst *sum = local_(type);
        llvm::Value *initial = llvm::Constant::getNullValue(type);
        if (firstBlock) {
          // Later k blocks continue the partial sums stored by earlier ones.
          llvm::Value *partial = b_.CreateAlignedLoad(type, outAddress(r, v), alignment());
          initial = b_.CreateSelect(firstBlock, initial, partial);
        }
        b_.CreateStore(initial, sum);
        sums.push_back(sum);
      }

    const llvm::SmallVector<bool, 8> pairStarts = bf16PairStarts(widths);
    llvm::Value *kPanel = nullptr; // the k step's offset in the panel buffer
    // One contracting step at kOffset. With `runs`, the lhs values are lane
    // `lane` of each row's run of k values instead of loads of their own.
    auto body = [&](llvm::Value *kOffset[3], llvm::ArrayRef<llvm::Value *> runs = {},
                    unsigned lane = 0) {
      // Operands that do not move along a direction are loaded once: a
      // value shared by the columns is one scalar per row, splatted.
      llvm::SmallVector<llvm::Value *, 32> values[2];
      for (int side = 0; side < 2; ++side) {
        const OperandStrides &strides = plan_.operand[side];
        llvm::SmallVector<llvm::Value *, 16> scalars; // per row, when shared by the columns
        for (unsigned r = 0; r < rows; ++r)
          for (size_t v = 0; v < segments; ++v) {
            const unsigned lanes = widths[v];
            if (strides.column == 0) {
              const bool fromRuns = side == 0 && !runs.empty();
              if (fromRuns && v == 0)
                scalars.push_back(b_.CreateExtractElement(runs[r], lane));
              else if (side == 0 && lhsPanel_ && v == 0)
                scalars.push_back(b_.CreateAlignedLoad(
                    element_, gep(lhsPanel_, add(index(r * lhsPanelSteps_), kOffset[2])),
                    alignment()));
              else if (!fromRuns && !(side == 0 && lhsPanel_) && (r == 0 || strides.row != 0))
                scalars.push_back(loadOperand(side, row, column, r, 0, 1, kOffset[side],
                                              !splatsHalfBitsOf(side)));
              llvm::Value *scalar = scalars.back();
              if (scalar->getType() == storage_[side] && storage_[side]->isIntegerTy())
                values[side].push_back( // f16 bits (splatsHalfBitsOf)
                    widen(side, lanes == 1 ? scalar : b_.CreateVectorSplat(lanes, scalar)));
              else
                values[side].push_back(lanes == 1 ? scalar : b_.CreateVectorSplat(lanes, scalar));
            } else if (r > 0 && strides.row == 0) {
              values[side].push_back(values[side][v]);
            } else if (side == 1 && panel_) {
              values[side].push_back(b_.CreateAlignedLoad(
                  vectorType(lanes), gep(panel_, add(kPanel, index(offsets[v]))),
                  panelAlignment()));
            } else if (pairStarts[v]) { // this vector and the next, deinterleaved
              auto [even, odd] = loadBf16Deinterleaved(
                  b_, operandAddress(side, row, column, r, offsets[v], kOffset[side]), lanes,
                  alignment(side));
              values[side].append({even, odd});
              ++v;
            } else {
              values[side].push_back(
                  loadOperand(side, row, column, r, offsets[v], lanes, kOffset[side]));
            }
          }
      }
      // Rows of a shared contiguous operand are a k stride apart, too far
      // for hardware prefetchers: ask for the line a few k steps ahead,
      // unless the operand is small enough to stay in the first-level cache
      // (a depthwise convolution's weights). Measured on x86-64 only.
      for (int side = 0; side < 2 && prefetches_; ++side) {
        const OperandStrides &strides = plan_.operand[side];
        if (tiling_.lanes == 1 || strides.column != 1 || strides.row != 0 ||
            strides.contracting.empty() || (side == 1 && (panel_ || plan_.rhsInPanels)) ||
            contractingSpanBytes(strides) < kPrefetchMinBytes)
          continue;
        llvm::Value *ahead =
            add(add(kOffset[side], index(kPrefetchDistance * strides.contracting.back())), column);
        const int64_t lineElements =
            std::max<int64_t>(1, 64 / (hlo::bitWidth(arrayType(plan_, side)) / 8));
        for (int64_t c = 0; c < tileColumns; c += lineElements)
          b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {b_.getPtrTy()},
                             {at(side, base_[side], add(ahead, index(c))), b_.getInt32(0),
                              b_.getInt32(3), b_.getInt32(1)});
      }
      for (size_t t = 0; t < sums.size(); ++t) {
        llvm::Value *current = b_.CreateLoad(sums[t]->getAllocatedType(), sums[t]);
        b_.CreateStore(emitMultiplyAdd(b_, current, values[0][t], values[1][t], plan_.fused),
                       sums[t]);
      }
    };
    // kSteps_ steps from kOffset (and kPanel), each row's lhs values for
    // them loaded as one vector: each sum still takes its products one k
    // after the other.
    auto steps = [&](llvm::Value *kOffset[3]) {
      llvm::SmallVector<llvm::Value *, 16> runs;
      const OperandStrides &lhs = plan_.operand[0];
      for (unsigned r = 0; r < rows; ++r)
        runs.push_back(loadArray(
            0, at(0, base_[0], add(mul(add(row, index(r)), lhs.row), kOffset[0])), kSteps_));
      llvm::Value *panelStart = kPanel;
      for (unsigned j = 0; j < kSteps_; ++j) {
        llvm::Value *shifted[3] = {kOffset[0],
                                   add(kOffset[1], index(j * plan_.operand[1].contracting.back())),
                                   kOffset[2]};
        if (panelStart)
          kPanel = add(panelStart, index(j * tiling_.tileColumns()));
        body(shifted, runs, j);
      }
      kPanel = panelStart;
    };

    // `count` steps of one contracting dimension: at(k, n) emits the n steps
    // from the k-th. Runs of kSteps_ go in pairs per loop iteration (fewer
    // loop instructions a multiply-add), then what is left one by one.
    auto emitSteps = [&](llvm::Value *count,
                         llvm::function_ref<void(llvm::Value * k, unsigned n)> at) {
      if (kSteps_ <= 1)
        return emitCountedLoop(
            b_, count, [&](llvm::Value *k) { at(k, 1); }, "k");
      const int64_t span = 2 * int64_t(kSteps_);
      llvm::Value *pairs = b_.CreateUDiv(count, index(span));
      emitCountedLoop(
          b_, pairs,
          [&](llvm::Value *p) {
            at(mul(p, span), kSteps_);
            at(add(mul(p, span), index(kSteps_)), kSteps_);
          },
          "kg");
      llvm::Value *done = mul(pairs, span);
      llvm::Value *rest = b_.CreateSub(count, done);
      emitIf(b_.CreateICmpUGE(rest, index(kSteps_)), "kg.last", [&] { at(done, kSteps_); });
      llvm::Value *singles = b_.CreateURem(rest, index(kSteps_));
      llvm::Value *first = b_.CreateSub(count, singles);
      emitCountedLoop(
          b_, singles, [&](llvm::Value *i) { at(add(first, i), 1); }, "k");
    };

    // The k step's offset in a panel holding every step (the widened rhs).
    auto panelStep = [&](llvm::Value *linearStep) {
      return panel_ ? mul(linearStep, tiling_.tileColumns()) : nullptr;
    };
    // Steps k and k + 1 of the innermost contracting dimension in one bfdot
    // a sum (Bf16Dots.h): each row's pair of lhs values splatted, each
    // vector's rhs rows k and k + 1 interleaved.
    auto pairBody = [&](llvm::Value *kOffset[3]) {
      const int64_t nextK = plan_.operand[1].contracting.back();
      llvm::SmallVector<llvm::Value *, 8> lhsPairs, rhsPairs;
      for (unsigned r = 0; r < rows; ++r)
        lhsPairs.push_back(b_.CreateAlignedLoad(
            b_.getInt32Ty(), operandAddress(0, row, column, r, 0, kOffset[0]), llvm::Align(2)));
      for (size_t v = 0; v < segments; ++v) {
        llvm::Value *rowK = operandAddress(1, row, column, 0, offsets[v], kOffset[1]);
        llvm::Value *rowNext =
            operandAddress(1, row, column, 0, offsets[v], add(kOffset[1], index(nextK)));
        if (widths[v] == 1) {
          rhsPairs.push_back(nullptr);
          continue;
        }
        // Two vectors side by side load their rows as one.
        const bool twice = v + 1 < segments && widths[v + 1] == widths[v];
        rhsPairs.append(
            loadBf16RowPairs(b_, rowK, rowNext, twice ? 2 * widths[v] : widths[v], widths[v]));
        v += twice;
      }
      for (size_t t = 0; t < sums.size(); ++t) {
        const unsigned r = unsigned(t / segments), v = unsigned(t % segments);
        if (widths[v] == 1) { // one column: its two steps as widened multiply-adds
          llvm::Value *sum = b_.CreateLoad(sums[t]->getAllocatedType(), sums[t]);
          for (int64_t step = 0; step < 2; ++step) {
            llvm::Value *lhsK = add(kOffset[0], index(step));
            llvm::Value *rhsK = add(kOffset[1], index(step * nextK));
            sum = emitMultiplyAdd(b_, sum, loadOperand(0, row, column, r, 0, 1, lhsK),
                                  loadOperand(1, row, column, 0, offsets[v], 1, rhsK), plan_.fused);
          }
          b_.CreateStore(sum, sums[t]);
          continue;
        }
        llvm::Value *lhsPair =
            b_.CreateBitCast(b_.CreateVectorSplat(widths[v], lhsPairs[r]),
                             llvm::FixedVectorType::get(b_.getBFloatTy(), 2 * widths[v]));
        llvm::Value *current = b_.CreateLoad(sums[t]->getAllocatedType(), sums[t]);
        b_.CreateStore(emitBf16Dot(b_, current, rhsPairs[v], lhsPair), sums[t]);
      }
    };
    // Loops over every contracting dimension but the innermost: at each,
    // `base` is where its innermost run starts, and innermostStep(base, i,
    // kOffset) gives the offsets of the run's step i.
    llvm::ArrayRef<int64_t> dims = plan_.contractingDims;
    auto eachInnermostRun = [&](llvm::function_ref<void(llvm::Value * base[3])> run) {
      const llvm::SmallVector<int64_t, 4> linear = rowMajorStrides(dims);
      emitLoopNest(
          b_, indexType_, dims.drop_back(),
          [&](IndexRef k) {
            llvm::Value *base[3] = {index(0), index(0), index(0)};
            for (size_t c = 0; c < k.size(); ++c) {
              for (int side = 0; side < 2; ++side)
                base[side] = add(base[side], mul(k[c], plan_.operand[side].contracting[c]));
              base[2] = add(base[2], mul(k[c], linear[c]));
            }
            run(base);
          },
          "k");
    };
    auto innermostStep = [&](llvm::Value *base[3], llvm::Value *i, llvm::Value *kOffset[3]) {
      for (int side = 0; side < 2; ++side)
        kOffset[side] = add(base[side], mul(i, plan_.operand[side].contracting.back()));
      kOffset[2] = add(base[2], i);
    };
    if (plan_.bf16Dots) {
      // The innermost dimension two steps at a time, an odd last one alone.
      eachInnermostRun([&](llvm::Value *base[3]) {
        llvm::Value *kOffset[3];
        emitCountedLoop(
            b_, index(dims.back() / 2),
            [&](llvm::Value *p) {
              innermostStep(base, mul(p, 2), kOffset);
              pairBody(kOffset);
            },
            "kp");
        if (dims.back() % 2) {
          innermostStep(base, index(dims.back() - 1), kOffset);
          body(kOffset);
        }
      });
    } else if (blockK_) {
      llvm::Value *kBegin = mul(kBlockIndex, blockK_);
      llvm::Value *kEnd = b_.CreateBinaryIntrinsic(
          llvm::Intrinsic::umin, add(kBegin, index(blockK_)), index(plan_.contractingDims[0]));
      emitSteps(b_.CreateSub(kEnd, kBegin), [&](llvm::Value *k, unsigned n) {
        llvm::Value *kk = add(kBegin, k);
        kPanel = mul(k, packed_.panelColumns);
        llvm::Value *kOffset[3] = {mul(kk, plan_.operand[0].contracting[0]),
                                   mul(kk, plan_.operand[1].contracting[0]), k};
        if (n == 1)
          return body(kOffset);
        steps(kOffset);
      });
    } else if (kSteps_ > 1) {
      // The innermost dimension in runs.
      eachInnermostRun([&](llvm::Value *base[3]) {
        emitSteps(index(dims.back()), [&](llvm::Value *i, unsigned n) {
          llvm::Value *kOffset[3];
          innermostStep(base, i, kOffset);
          kPanel = panelStep(kOffset[2]);
          if (n == 1)
            return body(kOffset);
          steps(kOffset);
        });
      });
    } else {
      // A window dimension the rows slide along is unrolled: adjacent rows
      // then load the same lhs vectors at neighbouring window positions,
      // and each is loaded once for all of them.
      const int unrolled = slidingWindowDimension();
      llvm::SmallVector<int64_t, 4> looped(plan_.contractingDims.begin(),
                                           plan_.contractingDims.end());
      if (unrolled >= 0)
        looped[unrolled] = 1;
      emitLoopNest(
          b_, indexType_, looped,
          [&](IndexRef k) {
            llvm::Value *kOffset[3] = {index(0), index(0), index(0)};
            const llvm::SmallVector<int64_t, 4> linear = rowMajorStrides(plan_.contractingDims);
            for (size_t c = 0; c < k.size(); ++c) {
              for (int side = 0; side < 2; ++side)
                if (int(c) != unrolled)
                  kOffset[side] = add(kOffset[side], mul(k[c], plan_.operand[side].contracting[c]));
              kOffset[2] = add(kOffset[2], mul(k[c], linear[c]));
            }
            if (unrolled < 0) {
              kPanel = panelStep(kOffset[2]);
              return body(kOffset);
            }
            for (int64_t u = 0; u < plan_.contractingDims[unrolled]; ++u) {
              llvm::Value *shifted[3] = {nullptr, nullptr,
                                         add(kOffset[2], index(u * linear[unrolled]))};
              for (int side = 0; side < 2; ++side)
                shifted[side] =
                    add(kOffset[side], index(u * plan_.operand[side].contracting[unrolled]));
              kPanel = panelStep(shifted[2]);
              body(shifted);
            }
          },
          "k");
    }

    // Sums of deinterleaved pairs back in column order, unless a main
    // tile's go to a stage its epilogue reads in pair order.
    const bool staysPaired = pairedStage_ && sumOf(widths) == tiling_.tileColumns();
    for (unsigned r = 0; r < rows; ++r)
      for (size_t v = 0; v < segments; ++v) {
        if (!pairStarts[v] || staysPaired)
          continue;
        llvm::AllocaInst *even = sums[r * segments + v], *odd = sums[r * segments + v + 1];
        auto [low, high] = interleavePair(b_, b_.CreateLoad(even->getAllocatedType(), even),
                                          b_.CreateLoad(odd->getAllocatedType(), odd));
        b_.CreateStore(low, even);
        b_.CreateStore(high, odd);
      }
    auto sumOfSegment = [&](unsigned r, size_t v) {
      llvm::AllocaInst *sum = sums[r * segments + v];
      return b_.CreateLoad(sum->getAllocatedType(), sum);
    };
    for (unsigned r = 0; r < rows; ++r)
      for (size_t v = 0; v < segments; ++v) {
        llvm::Value *value = sumOfSegment(r, v);
        if (stage_) {
          storeStaged(r, add(b_.CreateSub(column, stripBegin_), index(offsets[v])), value);
          continue;
        }
        const bool paired = pairsNarrowedStores() && widths[v] > 1 && v + 1 < segments &&
                            widths[v + 1] == widths[v];
        if (paired) // the next vector's columns follow these
          value = b_.CreateShuffleVector(value, sumOfSegment(r, v + 1),
                                         llvm::createSequentialMask(0, 2 * widths[v], 0));
        b_.CreateAlignedStore(narrow(value), outAddress(r, v), alignment(2));
        v += paired;
      }
  }

  /// Whether the tiles hand their f32 sums to a half result's epilogue
  /// through the stage instead of rounding them into the result.
  bool stagesHalfSums() const {
    return epilogue_ && !packed_.enabled && stagesHalfSumsFor(plan_, hardwareHalf_);
  }

  /// Makes the stage for strips of at most `columnBlock` columns, and
  /// returns the strip width it holds (whole main tiles).
  int64_t prepareStage(int64_t columnBlock) {
    const HalfSumStage shape =
        halfSumStage(plan_, tiling_, columnBlock,
                     llvm::Triple(b_.GetInsertBlock()->getModule()->getTargetTriple()));
    stageWidth_ = shape.width;
    stage_ = local_(llvm::ArrayType::get(element_, uint64_t(tiling_.rows * stageWidth_)));
    stage_->setAlignment(llvm::Align(64));
    return shape.stripColumns;
  }

  /// Tile row `r`'s sums `value` at column `column` of the strip, to the stage.
  void storeStaged(unsigned r, llvm::Value *column, llvm::Value *value) {
    b_.CreateAlignedStore(value, gep(stage_, add(index(r * stageWidth_), column)), alignment());
  }

  /// Whether the main tiles leave their deinterleaved pairs' sums in pair
  /// order in the stage (StagedPairs), for an epilogue that reads them so:
  /// every vector of a main tile is a full one in a pair, so the main
  /// tiles' columns of a strip are whole blocks of two vectors. The
  /// epilogue then writes an even and an odd channel's 16-bit results as
  /// one 32-bit lane (a shift and a bit select per 32 results), which saves
  /// the two f32 permutes per 32 sums the interleaving took. Only for
  /// blocks of 32 (vectors of 16 lanes, AVX-512); x86-64-v3 code is
  /// unchanged.
  bool leavesPairsStaged() const {
    const TileWidths &widths = tiling_.widths;
    return stage_ && plan_.epilogueReadsPairs && readsBf16Pairs() && tiling_.lanes == 16 &&
           widths.size() % 2 == 0 &&
           llvm::all_of(widths, [&](unsigned width) { return width == tiling_.lanes; });
  }

  /// Whether the bf16 results of two vectors side by side in a tile row are
  /// rounded and stored as one vector: their narrowings then share a pack
  /// (x86-64-v3: two shifts, a pack and a permute for 16 values, where 8
  /// alone take a shift, an extract and a pack). The bits are the same.
  bool pairsNarrowedStores() const {
    return plan_.type == PrimitiveType::F32 && plan_.resultType == PrimitiveType::BF16;
  }

  /// The output fusion's code over `rows` stored rows from `column` on,
  /// once their sums are final (after the last k block).
  void emitEpilogue(llvm::Value *row, unsigned rows, llvm::Value *column, llvm::Value *columns,
                    llvm::Value *kBlockIndex) {
    auto rewrite = [&] {
      for (unsigned r = 0; r < rows; ++r)
        epilogue_(add(outOffset_, add(mul(add(row, index(r)), plan_.result.row), column)), columns,
                  stage_ ? gep(stage_, index(r * stageWidth_)) : nullptr,
                  pairedStage_ ? StagedPairs{tiling_.tileColumns(), int64_t(tiling_.lanes)}
                               : StagedPairs());
    };
    if (!kBlockIndex)
      return rewrite();
    const int64_t lastBlock = (plan_.contractingDims[0] + blockK_ - 1) / blockK_ - 1;
    emitIf(b_.CreateICmpEQ(kBlockIndex, index(lastBlock)), "epilogue", rewrite);
  }

  llvm::IRBuilderBase &b_;
  llvm::Type *indexType_;
  /// A copy: a half lhs widened whole is f32 from then on (widenWholeLhs).
  ContractionPlan plan_;
  ContractionTiling tiling_;
  PackedSchedule packed_;
  unsigned kSteps_;   ///< contracting steps taken at once (lhsRunSteps)
  bool prefetches_;   ///< asks for rhs lines ahead (x86-64)
  bool hardwareHalf_; ///< f16 converts with the target's instructions
  /// An f16 value shared by a row's columns is splatted as its bits and the
  /// vector widened (x86-64: vpbroadcastw and vcvtph2ps, two instructions
  /// where widening the scalar first takes four: movzwl, vmovd, vcvtph2ps,
  /// vbroadcastss).
  bool splatsHalfBits_;
  /// The target has stack for the widened rhs (64-bit targets, not
  /// microcontrollers).
  bool widensRhsOnce_;
  /// bf16 vectors may be read in deinterleaved pairs (readsBf16Pairs):
  /// x86, where widening them in order takes a shuffle-port instruction each.
  bool pairsBf16_;
  llvm::Type *element_;    ///< the sums' element type
  llvm::Type *storage_[3]; ///< the element types lhs, rhs and the result are stored as
  llvm::function_ref<llvm::AllocaInst *(llvm::Type *)> local_;
  ContractionEpilogue epilogue_;
  /// Rows x stageWidth_ f32 sums of a strip for a half result's epilogue
  /// (HalfSumStage.cpp), or null; stripBegin_ is the strip's first column.
  llvm::AllocaInst *stage_ = nullptr;
  int64_t stageWidth_ = 0;
  bool pairedStage_ = false; ///< leavesPairsStaged
  llvm::Value *stripBegin_ = nullptr;
  /// A staged epilogue's strip covers all columns: its runs have a known
  /// length (the loop vectorizer's width for them depends on it). Not for
  /// f16 in place: two AVX-512 registers a step for DS-CNN f16's runs of 64
  /// took 0.0345 ms against 0.0338 (x86-64-v4, mote-run --bench 3000
  /// minima; x86-64-v3 took fewer instructions, 884 K -> 871 K).
  bool oneStrip_ = false;
  llvm::Value *outOffset_ = nullptr; ///< of the current outer index in `out`
  int64_t blockK_ = 0;
  llvm::Value *tileBegin_ = nullptr, *tileEnd_ = nullptr; ///< row tiles of this share
  static constexpr int64_t kPrefetchDistance = 8;
  static constexpr int64_t kMaxUnrolledWindow = 8;
  static constexpr int64_t kPrefetchMinBytes = 32 * 1024;
  static constexpr int64_t kMaxLhsPanelBytes = 64 * 1024;
  static constexpr int64_t kMaxWidenedRhsBytes = 32 * 1024;
  llvm::AllocaInst *widenedRhs_ = nullptr; ///< the rhs widened once (prepareWidenedRhs)
  int64_t widenedRhsSteps_ = 0;
  llvm::AllocaInst *lhsPanel_ = nullptr; ///< widened lhs rows of the row tile
  int64_t lhsPanelSteps_ = 0;
  llvm::AllocaInst *panelBuffer_ = nullptr; ///< one k block of a packed panel
  bool packing_ = false;                    ///< the tiles being emitted read panelBuffer_
  llvm::Value *panel_ = nullptr;            ///< panelBuffer_ while emitting a packed tile
  bool chunkEpilogue_ = false;              ///< the epilogue runs per unit, not per strip
  llvm::Value *base_[3] = {};
};

} // namespace

eval::ContractionArithmetic contractionArithmetic(const target::TargetSpec &spec) {
  eval::ContractionArithmetic arithmetic;
  arithmetic.fusedF32 = target::hasFusedMultiplyAdd(spec, 32);
  arithmetic.fusedF64 = target::hasFusedMultiplyAdd(spec, 64);
  return arithmetic;
}

bool isFused(eval::ContractionArithmetic arithmetic, PrimitiveType type) {
  return (type == PrimitiveType::F32 && arithmetic.fusedF32) ||
         (type == PrimitiveType::F64 && arithmetic.fusedF64);
}

llvm::Value *emitMultiplyAdd(llvm::IRBuilderBase &builder, llvm::Value *sum, llvm::Value *x,
                             llvm::Value *y, bool fused) {
  if (fused)
    return builder.CreateIntrinsic(llvm::Intrinsic::fma, {sum->getType()}, {x, y, sum});
  return builder.CreateFAdd(sum, builder.CreateFMul(x, y));
}

void setContractionTypes(ContractionPlan &plan, PrimitiveType result, PrimitiveType lhs,
                         PrimitiveType rhs) {
  plan.type = *passes::tiledSumType(lhs, rhs, result);
  plan.lhsType = lhs;
  plan.rhsType = rhs;
  plan.resultType = result;
}

llvm::SmallVector<int64_t, 4> rowMajorStrides(llvm::ArrayRef<int64_t> dims) {
  llvm::SmallVector<int64_t, 4> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;)
    strides[d - 1] = strides[d] * dims[d];
  return strides;
}

void coalesceRows(ContractionPlan &plan) {
  auto drop = [&](size_t d) {
    plan.outerDims.erase(plan.outerDims.begin() + d);
    for (OperandStrides *strides : {&plan.operand[0], &plan.operand[1], &plan.result})
      strides->outer.erase(strides->outer.begin() + d);
  };
  for (size_t d = plan.outerDims.size(); d-- > 0;)
    if (plan.outerDims[d] == 1)
      drop(d);
  while (!plan.outerDims.empty()) {
    const size_t d = plan.outerDims.size() - 1;
    auto continues = [&](const OperandStrides &strides) {
      return strides.outer[d] == plan.rows * strides.row;
    };
    if (!continues(plan.operand[0]) || !continues(plan.operand[1]) || !continues(plan.result))
      return;
    plan.rows *= plan.outerDims[d];
    drop(d);
  }
}

double contractionWork(const ContractionPlan &plan) {
  double work = 2.0 * double(plan.rows) * double(plan.columns);
  for (int64_t dim : plan.outerDims)
    work *= double(dim);
  for (int64_t dim : plan.contractingDims)
    work *= double(dim);
  return work;
}

void emitContraction(llvm::IRBuilderBase &builder, llvm::Type *indexType,
                     const ContractionPlan &plan, const llvm::Triple &triple,
                     const target::TargetSpec *spec, llvm::Value *lhs, llvm::Value *rhs,
                     llvm::Value *out, llvm::function_ref<llvm::AllocaInst *(llvm::Type *)> local,
                     llvm::Value *splitBegin, llvm::Value *splitEnd, ContractionEpilogue epilogue) {
  if (isIntegerContraction(plan))
    return emitIntegerContraction(builder, indexType, plan, triple, spec, lhs, rhs, out, local,
                                  splitBegin, splitEnd, epilogue);
  const ContractionTiling tiling = chooseContractionTiling(plan, triple, spec);
  const bool hardwareHalf = spec ? target::hasHalfConversions(*spec) : triple.isAArch64();
  if (plan.bf16Dots) {
    // Native bf16 sums read both operands as bf16 pairs in place.
    ContractionPlan dots = plan;
    dots.bf16Dots = bf16DotsFit(plan, tiling);
    if (dots.bf16Dots) {
      ContractionKernel kernel(builder, indexType, dots, tiling,
                               packedSchedule(dots, tiling, triple), 1, triple.isX86(),
                               hardwareHalf, false, false, false);
      return kernel.emit(lhs, rhs, out, local, splitBegin, splitEnd, epilogue);
    }
    return emitContraction(builder, indexType, dots, triple, spec, lhs, rhs, out, local, splitBegin,
                           splitEnd, epilogue);
  }
  ContractionKernel kernel(builder, indexType, plan, tiling, packedSchedule(plan, tiling, triple),
                           lhsRunSteps(plan, triple), triple.isX86(), hardwareHalf,
                           hardwareHalf && triple.isX86(), triple.isArch64Bit(), triple.isX86());
  kernel.emit(lhs, rhs, out, local, splitBegin, splitEnd, epilogue);
}

} // namespace mote::codegen
