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

#include "codegen/ContractionTiling.h"
#include "codegen/IntegerContraction.h"
#include "codegen/LoopNest.h"
#include "passes/ContractionTypes.h"

namespace mote::codegen {

using hlo::PrimitiveType;
using IndexRef = llvm::ArrayRef<llvm::Value *>;

namespace {

/// Emits the loops of one planned contraction into the current function.
class ContractionKernel {
public:
  ContractionKernel(llvm::IRBuilderBase &builder, llvm::Type *indexType,
                    const ContractionPlan &plan, const ContractionTiling &tiling,
                    const PackedSchedule &packed)
      : b_(builder), indexType_(indexType), plan_(plan), tiling_(tiling), packed_(packed),
        element_(plan.type == PrimitiveType::F64 ? b_.getDoubleTy() : b_.getFloatTy()) {}

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
    const int64_t columnBlock = std::max<int64_t>(1, 512 / tileColumns) * tileColumns;
    // Blocking k costs a reload of the partial sums per block: only worth it
    // when a whole strip of the rhs would not stay in that cache.
    const int64_t elementBytes = hlo::bitWidth(plan_.type) / 8;
    const int64_t stripBytes = plan_.contractingDims.size() == 1
                                   ? plan_.contractingDims[0] *
                                         std::min<int64_t>(plan_.columns, columnBlock) *
                                         elementBytes
                                   : 0;
    blockK_ = stripBytes > kBlock * 512 * 4 && plan_.contractingDims[0] > kBlock ? kBlock : 0;
    if (plan_.rows == 0 || plan_.columns == 0)
      return;

    LoopRange outerRange{splitBegin, splitEnd};
    emitLoopNest(b_, indexType_, plan_.outerDims, [&](IndexRef outer) {
      const OperandStrides *arrays[3] = {&plan_.operand[0], &plan_.operand[1], &plan_.result};
      llvm::Value *offsets[3];
      for (int side = 0; side < 3; ++side) {
        offsets[side] = index(arrays[side]->base);
        for (size_t d = 0; d < outer.size(); ++d)
          offsets[side] = add(offsets[side], mul(outer[d], arrays[side]->outer[d]));
      }
      base_[0] = gep(lhs, offsets[0]);
      base_[1] = gep(rhs, offsets[1]);
      base_[2] = gep(out, offsets[2]);
      outOffset_ = offsets[2];

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
    }, "d", splitsRows() ? nullptr : &outerRange);
  }

private:
  llvm::Value *index(int64_t value) { return llvm::ConstantInt::get(indexType_, value); }
  llvm::Value *add(llvm::Value *x, llvm::Value *y) { return b_.CreateAdd(x, y); }
  llvm::Value *mul(llvm::Value *x, int64_t y) { return emitScaledIndex(b_, x, y); }
  llvm::Value *gep(llvm::Value *base, llvm::Value *offset) {
    return b_.CreateGEP(element_, base, offset);
  }
  llvm::Type *vectorType(unsigned lanes) {
    return lanes == 1 ? element_ : llvm::FixedVectorType::get(element_, lanes);
  }
  llvm::Align alignment() { return llvm::Align(element_->getPrimitiveSizeInBits() / 8); }

  /// Units [begin, end) of the packed schedule (see PackedSchedule).
  void emitPackedUnits(llvm::Value *lhs, llvm::Value *rhs, llvm::Value *out, llvm::Value *begin,
                       llvm::Value *end) {
    if (plan_.rows == 0 || plan_.columns == 0)
      return;
    base_[0] = gep(lhs, index(plan_.operand[0].base));
    base_[1] = gep(rhs, index(plan_.operand[1].base));
    base_[2] = gep(out, index(plan_.result.base));
    outOffset_ = index(plan_.result.base);
    blockK_ = packed_.kBlock;
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
    return llvm::commonAlignment(llvm::Align(64), packed_.panelColumns * bytes);
  }

  /// Copies k block `kBlockIndex` of the rhs panel starting at `column`
  /// into the panel buffer, k step by k step.
  void emitPack(llvm::Value *column, llvm::Value *kBlockIndex) {
    const int64_t width = packed_.panelColumns;
    llvm::Value *kBegin = mul(kBlockIndex, blockK_);
    llvm::Value *kEnd = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, add(kBegin, index(blockK_)),
                                                 index(plan_.contractingDims[0]));
    const int64_t kStride = plan_.operand[1].contracting[0];
    emitCountedLoop(
        b_, b_.CreateSub(kEnd, kBegin),
        [&](llvm::Value *k) {
          llvm::Value *source = gep(base_[1], add(mul(add(kBegin, k), kStride), column));
          llvm::Value *target = gep(panelBuffer_, mul(k, width));
          int64_t c = 0;
          for (unsigned lanes : tiling_.widths) {
            b_.CreateAlignedStore(
                b_.CreateAlignedLoad(vectorType(lanes), gep(source, index(c)), alignment()),
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
          epilogue_(add(outOffset_, add(mul(row, plan_.result.row), column)), columns, nullptr);
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
    const int64_t tileColumns = tiling_.tileColumns();
    llvm::Value *width = b_.CreateSub(end, begin);
    llvm::Value *full = b_.CreateUDiv(width, index(tileColumns));
    emitCountedLoop(
        b_, full,
        [&](llvm::Value *t) {
          // A packed unit holds one main tile of the rhs.
          if (packing_)
            panel_ = panelBuffer_;
          emitTile(row, rows, add(begin, mul(t, tileColumns)), tiling_.widths, kBlockIndex);
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
      emitEpilogue(row, rows, begin, width, kBlockIndex);
  }

  static int64_t sumOf(llvm::ArrayRef<unsigned> widths) {
    int64_t total = 0;
    for (unsigned width : widths)
      total += width;
    return total;
  }

  /// The value of operand `side` for tile row `r`, the `lanes` columns from
  /// `column` + `offset`, at k offset `kOffset`.
  llvm::Value *loadOperand(int side, llvm::Value *row, llvm::Value *column, unsigned r,
                           int64_t offset, unsigned lanes, llvm::Value *kOffset) {
    const OperandStrides &strides = plan_.operand[side];
    llvm::Value *position =
        add(add(mul(add(row, index(r)), strides.row), kOffset),
            side == 1 && plan_.rhsInPanels ? add(panelColumn(column), index(offset))
                                           : mul(add(column, index(offset)), strides.column));
    llvm::Value *address = gep(base_[side], position);
    if (strides.column == 0 || lanes == 1) {
      llvm::Value *scalar = b_.CreateAlignedLoad(element_, address, alignment());
      return lanes == 1 ? scalar : b_.CreateVectorSplat(lanes, scalar);
    }
    if (strides.column == 1)
      return b_.CreateAlignedLoad(vectorType(lanes), address, alignment());
    llvm::Value *vector = llvm::PoisonValue::get(vectorType(lanes));
    for (unsigned lane = 0; lane < lanes; ++lane) {
      llvm::Value *laneAddress = gep(address, index(lane * strides.column));
      vector = b_.CreateInsertElement(
          vector, b_.CreateAlignedLoad(element_, laneAddress, alignment()), lane);
    }
    return vector;
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
    return span * (hlo::bitWidth(plan_.type) / 8);
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
      return gep(base_[2], position);
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

    llvm::Value *kPanel = nullptr; // the k step's offset in the panel buffer
    auto body = [&](llvm::Value *kOffset[2]) {
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
              if (r == 0 || strides.row != 0)
                scalars.push_back(loadOperand(side, row, column, r, 0, 1, kOffset[side]));
              llvm::Value *scalar = scalars.back();
              values[side].push_back(lanes == 1 ? scalar : b_.CreateVectorSplat(lanes, scalar));
            } else if (r > 0 && strides.row == 0) {
              values[side].push_back(values[side][v]);
            } else if (side == 1 && panel_) {
              values[side].push_back(b_.CreateAlignedLoad(
                  vectorType(lanes), gep(panel_, add(kPanel, index(offsets[v]))),
                  panelAlignment()));
            } else {
              values[side].push_back(
                  loadOperand(side, row, column, r, offsets[v], lanes, kOffset[side]));
            }
          }
      }
      // Rows of a shared contiguous operand are a k stride apart, too far
      // for hardware prefetchers: ask for the line a few k steps ahead,
      // unless the operand is small enough to stay in the first-level cache
      // (a depthwise convolution's weights).
      for (int side = 0; side < 2; ++side) {
        const OperandStrides &strides = plan_.operand[side];
        if (tiling_.lanes == 1 || strides.column != 1 || strides.row != 0 ||
            strides.contracting.empty() || (side == 1 && (panel_ || plan_.rhsInPanels)) ||
            contractingSpanBytes(strides) < kPrefetchMinBytes)
          continue;
        llvm::Value *ahead =
            add(add(kOffset[side], index(kPrefetchDistance * strides.contracting.back())), column);
        const int64_t lineElements =
            std::max<int64_t>(1, 64 / (element_->getPrimitiveSizeInBits() / 8));
        for (int64_t c = 0; c < tileColumns; c += lineElements)
          b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {b_.getPtrTy()},
                             {gep(base_[side], add(ahead, index(c))), b_.getInt32(0),
                              b_.getInt32(3), b_.getInt32(1)});
      }
      for (size_t t = 0; t < sums.size(); ++t) {
        llvm::Value *current = b_.CreateLoad(sums[t]->getAllocatedType(), sums[t]);
        b_.CreateStore(emitMultiplyAdd(b_, current, values[0][t], values[1][t], plan_.fused),
                       sums[t]);
      }
    };

    if (blockK_) {
      llvm::Value *kBegin = mul(kBlockIndex, blockK_);
      llvm::Value *kEnd = b_.CreateBinaryIntrinsic(
          llvm::Intrinsic::umin, add(kBegin, index(blockK_)), index(plan_.contractingDims[0]));
      emitCountedLoop(
          b_, b_.CreateSub(kEnd, kBegin),
          [&](llvm::Value *k) {
            llvm::Value *kk = add(kBegin, k);
            kPanel = mul(k, packed_.panelColumns);
            llvm::Value *kOffset[2] = {mul(kk, plan_.operand[0].contracting[0]),
                                       mul(kk, plan_.operand[1].contracting[0])};
            body(kOffset);
          },
          "k");
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
            llvm::Value *kOffset[2] = {index(0), index(0)};
            for (size_t c = 0; c < k.size(); ++c)
              for (int side = 0; side < 2; ++side)
                if (int(c) != unrolled)
                  kOffset[side] = add(kOffset[side], mul(k[c], plan_.operand[side].contracting[c]));
            if (unrolled < 0)
              return body(kOffset);
            for (int64_t u = 0; u < plan_.contractingDims[unrolled]; ++u) {
              llvm::Value *at[2];
              for (int side = 0; side < 2; ++side)
                at[side] = add(kOffset[side], index(u * plan_.operand[side].contracting[unrolled]));
              body(at);
            }
          },
          "k");
    }

    for (unsigned r = 0; r < rows; ++r)
      for (size_t v = 0; v < segments; ++v) {
        llvm::AllocaInst *sum = sums[r * segments + v];
        b_.CreateAlignedStore(b_.CreateLoad(sum->getAllocatedType(), sum), outAddress(r, v),
                              alignment());
      }
  }

  /// The output fusion's code over `rows` stored rows from `column` on,
  /// once their sums are final (after the last k block).
  void emitEpilogue(llvm::Value *row, unsigned rows, llvm::Value *column, llvm::Value *columns,
                    llvm::Value *kBlockIndex) {
    auto rewrite = [&] {
      for (unsigned r = 0; r < rows; ++r)
        epilogue_(add(outOffset_, add(mul(add(row, index(r)), plan_.result.row), column)), columns,
                  nullptr);
    };
    if (!kBlockIndex)
      return rewrite();
    const int64_t lastBlock = (plan_.contractingDims[0] + blockK_ - 1) / blockK_ - 1;
    emitIf(b_.CreateICmpEQ(kBlockIndex, index(lastBlock)), "epilogue", rewrite);
  }

  llvm::IRBuilderBase &b_;
  llvm::Type *indexType_;
  const ContractionPlan &plan_;
  ContractionTiling tiling_;
  PackedSchedule packed_;
  llvm::Type *element_;
  llvm::function_ref<llvm::AllocaInst *(llvm::Type *)> local_;
  ContractionEpilogue epilogue_;
  llvm::Value *outOffset_ = nullptr; ///< of the current outer index in `out`
  int64_t blockK_ = 0;
  llvm::Value *tileBegin_ = nullptr, *tileEnd_ = nullptr; ///< row tiles of this share
  static constexpr int64_t kPrefetchDistance = 8;
  static constexpr int64_t kMaxUnrolledWindow = 8;
  static constexpr int64_t kPrefetchMinBytes = 32 * 1024;
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
  const bool integer = passes::isIntegerContractionType(result, lhs, rhs);
  plan.type = integer ? PrimitiveType::S32 : result;
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
  ContractionKernel kernel(builder, indexType, plan, tiling, packedSchedule(plan, tiling, triple));
  kernel.emit(lhs, rhs, out, local, splitBegin, splitEnd, epilogue);
}

} // namespace mote::codegen
