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
// Edge tiles use one row at a time, then one vector, then scalars.
//
//===----------------------------------------------------------------------===//

#include "codegen/ContractionKernel.h"

#include "codegen/LoopNest.h"

namespace mote::codegen {

using hlo::PrimitiveType;
using IndexRef = llvm::ArrayRef<llvm::Value *>;

namespace {

/// The register tile for one target and element type.
struct DotTiling {
  unsigned lanes = 1;   ///< elements per vector (1: scalar registers)
  unsigned rows = 2;    ///< MR
  unsigned vectors = 2; ///< vectors per tile row (NR = vectors * lanes)
};

/// The vector registers generated code may use: width in bytes (0 for
/// none) and how many. Without a target spec, the triple's baseline.
struct VectorRegisters {
  unsigned bytes = 0, count = 0;
};

VectorRegisters vectorRegisters(const llvm::Triple &triple, const target::TargetSpec *spec) {
  auto has = [&](llvm::StringRef feature) { return spec && target::hasFeature(*spec, feature); };
  if (triple.isX86())
    return {spec ? target::preferredAlignment(*spec) : 16u, has("avx512f") ? 32u : 16u};
  if (triple.isAArch64())
    return {16, 32};
  if (triple.isRISCV() && has("v"))
    return {16, 32}; // V implies VLEN >= 128
  if ((triple.isARM() || triple.isThumb()) && has("mve.fp"))
    return {16, 8};
  return {0, 32};
}

/// Tiles sized to the registers: the MR x NR/lanes accumulators plus a
/// vector of each operand and a product fit without spilling (no fused
/// multiply-add, so each product needs a register of its own).
DotTiling registerTiling(const llvm::Triple &triple, const target::TargetSpec *spec,
                         PrimitiveType type) {
  const unsigned bytes = hlo::bitWidth(type) / 8;
  VectorRegisters registers = vectorRegisters(triple, spec);
  // MVE has no f64 lanes; Cortex-M FPUs have no f64 registers either.
  const bool armM = triple.isARM() || triple.isThumb();
  if (armM && type == PrimitiveType::F64)
    return {1, 2, 2};
  if (registers.bytes < bytes)
    return {1, 4, 4}; // 16 scalar accumulators
  const unsigned lanes = registers.bytes / bytes;
  // 24 accumulators as 8 rows of 3 vectors: per k step 3 rhs vectors and 8
  // broadcasts. On x86-64 with AVX-512 it beat 6 x 4 (512^3 GEMM 1.57 ->
  // 1.28 ms, transformer layer 1.61 -> 1.37 ms) and 4 x 6, 10 x 2, 12 x 2:
  // fewer rhs lines stream through per multiply, and 8 divides more row
  // counts than 6.
  if (registers.count >= 32)
    return {lanes, 8, 3};
  if (registers.count >= 16)
    return {lanes, 4, 2};
  return {lanes, 2, 2};
}

/// The register tiling, fitted to `columns`: columns beyond the last whole
/// vector run as scalars, so narrower vectors that divide the columns win
/// (24 output channels are three 8-lane vectors, not a 16-lane vector and 8
/// scalars), and a tile is no wider than the columns, its rows taking the
/// accumulators a narrower tile frees.
DotTiling chooseTiling(const llvm::Triple &triple, const target::TargetSpec *spec,
                       PrimitiveType type, int64_t columns) {
  DotTiling tiling = registerTiling(triple, spec, type);
  if (tiling.lanes < 2 || columns < 1)
    return tiling;
  unsigned best = tiling.lanes;
  for (unsigned lanes = tiling.lanes / 2; lanes >= 4 && lanes * 4 >= tiling.lanes; lanes /= 2)
    if (columns % lanes < columns % best)
      best = lanes;
  const unsigned accumulators = tiling.rows * tiling.vectors;
  tiling.lanes = best;
  const int64_t wholeVectors = columns / best;
  if (wholeVectors >= 1 && wholeVectors < tiling.vectors) {
    tiling.vectors = unsigned(wholeVectors);
    tiling.rows = std::min(8u, accumulators / tiling.vectors);
  }
  return tiling;
}

/// Whether tasks share out the row tiles: there is no outer dimension of
/// size > 1 to share instead.
bool splitsRowTiles(const ContractionPlan &plan) {
  return llvm::all_of(plan.outerDims, [](int64_t dim) { return dim == 1; });
}
int64_t rowTileCount(const ContractionPlan &plan, const DotTiling &tiling) {
  return (plan.rows + tiling.rows - 1) / tiling.rows;
}
int64_t splitExtentOf(const ContractionPlan &plan, const DotTiling &tiling) {
  return splitsRowTiles(plan) ? rowTileCount(plan, tiling) : outermostExtent(plan.outerDims);
}

/// Emits the loops of one planned contraction into the current function.
class ContractionKernel {
public:
  ContractionKernel(llvm::IRBuilderBase &builder, llvm::Type *indexType,
                    const ContractionPlan &plan, const DotTiling &tiling)
      : b_(builder), indexType_(indexType), plan_(plan), tiling_(tiling),
        element_(plan.type == PrimitiveType::F64 ? b_.getDoubleTy() : b_.getFloatTy()) {}

  /// Emits the contraction of `lhs` and `rhs` into `out`; `local` makes a
  /// stack slot in the function's entry block.
  /// The extent of the loop tasks split: the first outer dimension, else
  /// the row tiles.
  bool splitsRows() const { return splitsRowTiles(plan_); }
  int64_t splitExtent() const { return splitExtentOf(plan_, tiling_); }
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
    if (splitsRows()) {
      tileBegin_ = splitBegin;
      tileEnd_ = splitEnd;
    }
    const int64_t tileColumns = std::max(tiling_.vectors, singleRowVectors()) * tiling_.lanes;
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
  llvm::Value *mul(llvm::Value *x, int64_t y) {
    if (y == 0)
      return index(0);
    return y == 1 ? x : b_.CreateMul(x, index(y));
  }
  llvm::Value *gep(llvm::Value *base, llvm::Value *offset) {
    return b_.CreateGEP(element_, base, offset);
  }
  llvm::Type *vectorType(unsigned lanes) {
    return lanes == 1 ? element_ : llvm::FixedVectorType::get(element_, lanes);
  }
  llvm::Align alignment() { return llvm::Align(element_->getPrimitiveSizeInBits() / 8); }

  /// A single row (a matrix-vector product, or the rows left over) spends
  /// the whole tile's accumulators on one row: enough independent sums to
  /// hide the latency of the adds.
  unsigned singleRowVectors() const { return std::min(tiling_.rows * tiling_.vectors, 8u); }

  /// Full row tiles, then the leftover rows one at a time.
  /// The row tiles of [tileBegin_, tileEnd_) (all of them unless a task
  /// has a share): full tiles, then the rows of a last partial tile one at
  /// a time.
  void emitRows(llvm::Value *columnBegin, llvm::Value *columnEnd, llvm::Value *kBlockIndex) {
    const int64_t rowTile = tiling_.rows;
    const int64_t fullTiles = plan_.rows / rowTile;
    llvm::Value *begin = tileBegin_ ? tileBegin_ : index(0);
    llvm::Value *end = tileEnd_ ? tileEnd_ : index(rowTiles());
    if (fullTiles) {
      llvm::Value *fullEnd = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, end, index(fullTiles));
      llvm::Value *count = b_.CreateSelect(b_.CreateICmpULT(begin, fullEnd),
                                           b_.CreateSub(fullEnd, begin), index(0));
      emitCountedLoop(
          b_, count,
          [&](llvm::Value *t) {
            emitColumns(mul(add(begin, t), rowTile), tiling_.rows, tiling_.vectors, columnBegin,
                        columnEnd, kBlockIndex);
          },
          "ir");
    }
    const int64_t fullRows = fullTiles * rowTile;
    if (plan_.rows > fullRows) {
      // Only the share that ends with the last tile has the leftover rows.
      llvm::Value *count = b_.CreateSelect(b_.CreateICmpUGT(end, index(fullTiles)),
                                           index(plan_.rows - fullRows), index(0));
      emitCountedLoop(
          b_, count,
          [&](llvm::Value *t) {
            emitColumns(add(t, index(fullRows)), 1, singleRowVectors(), columnBegin, columnEnd,
                        kBlockIndex);
          },
          "irest");
    }
  }

  /// Full column tiles of [begin, end), then single vectors, then scalars.
  void emitColumns(llvm::Value *row, unsigned rows, unsigned vectors, llvm::Value *begin,
                   llvm::Value *end, llvm::Value *kBlockIndex) {
    const unsigned lanes = tiling_.lanes;
    const int64_t tileColumns = vectors * lanes;
    llvm::Value *width = b_.CreateSub(end, begin);
    llvm::Value *full = b_.CreateUDiv(width, index(tileColumns));
    emitCountedLoop(
        b_, full,
        [&](llvm::Value *t) {
          emitTile(row, rows, add(begin, mul(t, tileColumns)), vectors, lanes, kBlockIndex);
        },
        "jr");
    llvm::Value *rest = b_.CreateSub(width, mul(full, tileColumns));
    llvm::Value *restBegin = b_.CreateSub(end, rest);
    if (lanes > 1 && vectors > 1) {
      llvm::Value *vectors = b_.CreateUDiv(rest, index(lanes));
      emitCountedLoop(
          b_, vectors,
          [&](llvm::Value *t) {
            emitTile(row, rows, add(restBegin, mul(t, lanes)), 1, lanes, kBlockIndex);
          },
          "jv");
      rest = b_.CreateURem(rest, index(lanes));
      restBegin = b_.CreateSub(end, rest);
    }
    emitCountedLoop(
        b_, rest,
        [&](llvm::Value *t) { emitTile(row, rows, add(restBegin, t), 1, 1, kBlockIndex); }, "js");
    // The rewrite waits for the whole strip of tiles: reading a vector right
    // after storing it can stall (no store-to-load forwarding of the widest
    // vectors on some cores), and the strip is still in the first-level cache.
    if (epilogue_)
      emitEpilogue(row, rows, begin, width, kBlockIndex);
  }

  /// The value of operand `side` for tile row `r`, vector `v` at k offset
  /// `kOffset` (lanes along the columns).
  llvm::Value *loadOperand(int side, llvm::Value *row, llvm::Value *column, unsigned r, unsigned v,
                           unsigned lanes, llvm::Value *kOffset) {
    const OperandStrides &strides = plan_.operand[side];
    llvm::Value *position =
        add(add(mul(add(row, index(r)), strides.row), kOffset),
            mul(add(column, index(static_cast<int64_t>(v) * lanes)), strides.column));
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

  /// One rows x (vectors * lanes) tile at (row, column): accumulators in
  /// registers for the whole k range of this block.
  void emitTile(llvm::Value *row, unsigned rows, llvm::Value *column, unsigned vectors,
                unsigned lanes, llvm::Value *kBlockIndex) {
    llvm::Type *type = vectorType(lanes);
    llvm::SmallVector<llvm::AllocaInst *, 32> sums;
    auto outAddress = [&](unsigned r, unsigned v) {
      llvm::Value *position = add(mul(add(row, index(r)), plan_.result.row),
                                  add(column, index(static_cast<int64_t>(v) * lanes)));
      return gep(base_[2], position);
    };
    llvm::Value *firstBlock = kBlockIndex ? b_.CreateICmpEQ(kBlockIndex, index(0)) : nullptr;
    for (unsigned r = 0; r < rows; ++r)
      for (unsigned v = 0; v < vectors; ++v) {
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

    auto body = [&](llvm::Value *kOffset[2]) {
      // Operands that do not move along a direction are loaded once.
      llvm::SmallVector<llvm::Value *, 32> values[2];
      for (int side = 0; side < 2; ++side) {
        const OperandStrides &strides = plan_.operand[side];
        for (unsigned r = 0; r < rows; ++r)
          for (unsigned v = 0; v < vectors; ++v) {
            if ((r > 0 && strides.row == 0) || (v > 0 && strides.column == 0))
              values[side].push_back(values[side][(strides.row == 0 ? 0 : r) * vectors +
                                                  (strides.column == 0 ? 0 : v)]);
            else
              values[side].push_back(loadOperand(side, row, column, r, v, lanes, kOffset[side]));
          }
      }
      // Rows of a shared contiguous operand are a k stride apart, too far
      // for hardware prefetchers: ask for the line a few k steps ahead.
      for (int side = 0; side < 2; ++side) {
        const OperandStrides &strides = plan_.operand[side];
        if (lanes == 1 || strides.column != 1 || strides.row != 0 || strides.contracting.empty())
          continue;
        llvm::Value *ahead =
            add(add(kOffset[side], index(kPrefetchDistance * strides.contracting.back())), column);
        const int64_t lineElements =
            std::max<int64_t>(1, 64 / (element_->getPrimitiveSizeInBits() / 8));
        for (int64_t c = 0; c < int64_t(vectors) * lanes; c += lineElements)
          b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {b_.getPtrTy()},
                             {gep(base_[side], add(ahead, index(c))), b_.getInt32(0),
                              b_.getInt32(3), b_.getInt32(1)});
      }
      for (size_t t = 0; t < sums.size(); ++t) {
        llvm::Value *current = b_.CreateLoad(type, sums[t]);
        llvm::Value *product = b_.CreateFMul(values[0][t], values[1][t]);
        b_.CreateStore(b_.CreateFAdd(current, product), sums[t]);
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
            llvm::Value *kOffset[2] = {mul(kk, plan_.operand[0].contracting[0]),
                                       mul(kk, plan_.operand[1].contracting[0])};
            body(kOffset);
          },
          "k");
    } else {
      emitLoopNest(
          b_, indexType_, plan_.contractingDims,
          [&](IndexRef k) {
            llvm::Value *kOffset[2] = {index(0), index(0)};
            for (size_t c = 0; c < k.size(); ++c)
              for (int side = 0; side < 2; ++side)
                kOffset[side] = add(kOffset[side], mul(k[c], plan_.operand[side].contracting[c]));
            body(kOffset);
          },
          "k");
    }

    for (unsigned r = 0; r < rows; ++r)
      for (unsigned v = 0; v < vectors; ++v)
        b_.CreateAlignedStore(b_.CreateLoad(type, sums[r * vectors + v]), outAddress(r, v),
                              alignment());
  }

  /// The output fusion's code over `rows` stored rows from `column` on,
  /// once their sums are final (after the last k block).
  void emitEpilogue(llvm::Value *row, unsigned rows, llvm::Value *column, llvm::Value *columns,
                    llvm::Value *kBlockIndex) {
    llvm::BasicBlock *done = nullptr;
    if (kBlockIndex) {
      const int64_t lastBlock = (plan_.contractingDims[0] + blockK_ - 1) / blockK_ - 1;
      llvm::Function *function = b_.GetInsertBlock()->getParent();
      llvm::BasicBlock *last = llvm::BasicBlock::Create(b_.getContext(), "epilogue", function);
      done = llvm::BasicBlock::Create(b_.getContext(), "epilogue.done", function);
      b_.CreateCondBr(b_.CreateICmpEQ(kBlockIndex, index(lastBlock)), last, done);
      b_.SetInsertPoint(last);
    }
    for (unsigned r = 0; r < rows; ++r)
      epilogue_(add(outOffset_, add(mul(add(row, index(r)), plan_.result.row), column)), columns);
    if (done) {
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
    }
  }

  llvm::IRBuilderBase &b_;
  llvm::Type *indexType_;
  const ContractionPlan &plan_;
  DotTiling tiling_;
  llvm::Type *element_;
  llvm::function_ref<llvm::AllocaInst *(llvm::Type *)> local_;
  ContractionEpilogue epilogue_;
  llvm::Value *outOffset_ = nullptr; ///< of the current outer index in `out`
  int64_t blockK_ = 0;
  llvm::Value *tileBegin_ = nullptr, *tileEnd_ = nullptr; ///< row tiles of this share
  static constexpr int64_t kPrefetchDistance = 8;
  llvm::Value *base_[3] = {};
};

} // namespace

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

int64_t contractionSplitExtent(const ContractionPlan &plan, const llvm::Triple &triple,
                               const target::TargetSpec *spec) {
  return splitExtentOf(plan, chooseTiling(triple, spec, plan.type, plan.columns));
}

void emitContraction(llvm::IRBuilderBase &builder, llvm::Type *indexType,
                     const ContractionPlan &plan, const llvm::Triple &triple,
                     const target::TargetSpec *spec, llvm::Value *lhs, llvm::Value *rhs,
                     llvm::Value *out, llvm::function_ref<llvm::AllocaInst *(llvm::Type *)> local,
                     llvm::Value *splitBegin, llvm::Value *splitEnd, ContractionEpilogue epilogue) {
  ContractionKernel kernel(builder, indexType, plan, chooseTiling(triple, spec, plan.type, plan.columns));
  kernel.emit(lhs, rhs, out, local, splitBegin, splitEnd, epilogue);
}

} // namespace mote::codegen
