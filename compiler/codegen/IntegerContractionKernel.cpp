//===- IntegerContractionKernel.cpp - Tiled integer contractions ----------===//
//
// The loops of an integer contraction (IntegerContraction.h): outer
// dimensions, row tiles and column tiles split exactly as the float kernel
// splits them (so tasks and depth-first chains use the same ranges), then
// per tile the contracting loops, grouped or widening, and the tile's sums
// stored, or handed to the output fusion through a one-tile s32 buffer.
// IntegerTiling.cpp chooses the form and the tiles.
//
//===----------------------------------------------------------------------===//

#include "codegen/IntegerContraction.h"

#include "codegen/ElementTypes.h"
#include "codegen/IntegerDotStep.h"
#include "codegen/IntegerRhsPacking.h"
#include "codegen/LoopNest.h"

#include "llvm/IR/InlineAsm.h"

namespace mote::codegen {

using hlo::PrimitiveType;
using IndexRef = llvm::ArrayRef<llvm::Value *>;

namespace {

int64_t sumOf(llvm::ArrayRef<unsigned> widths) {
  int64_t total = 0;
  for (unsigned width : widths)
    total += width;
  return total;
}

/// Emits the loops of one integer contraction.
class IntegerKernel {
public:
  IntegerKernel(llvm::IRBuilderBase &builder, llvm::Type *indexType, const ContractionPlan &plan,
                const ContractionTiling &tiling, const IntegerDotStep &step)
      : b_(builder), indexType_(indexType), plan_(plan), tiling_(tiling), step_(step),
        grouped_(step.form() != IntegerDotForm::Widening),
        matrix_(step.form() == IntegerDotForm::ArmMatrix),
        isAArch64_(
            llvm::Triple(builder.GetInsertBlock()->getModule()->getTargetTriple()).isAArch64()),
        stageBytes_(
            llvm::Triple(builder.GetInsertBlock()->getModule()->getTargetTriple()).isArch64Bit()
                ? 16 * 1024
                : 1024) {
    llvm::LLVMContext &context = b_.getContext();
    element_[0] = storageType(context, plan.lhsType);
    element_[1] = storageType(context, plan.rhsType);
    element_[2] = storageType(context, plan.resultType);
  }

  void emit(llvm::Value *lhs, llvm::Value *rhs, llvm::Value *out,
            llvm::function_ref<llvm::AllocaInst *(llvm::Type *)> local, llvm::Value *splitBegin,
            llvm::Value *splitEnd, ContractionEpilogue epilogue) {
    if (plan_.rows == 0 || plan_.columns == 0)
      return;
    epilogue_ = epilogue;
    llvm::Module &module = *b_.GetInsertBlock()->getModule();
    // Starts computed at run time never meet a grouped form: those read an
    // lhs shared by the columns, which a depthwise convolution's is not.
    assert(!(grouped_ && plan_.columnStarts) && "run-time starts in a grouped form");
    if (grouped_)
      packed_ = packIntegerRhs(module, plan_, tiling_, step_.group(), step_.lhsOffset());
    else if (plan_.columnStarts)
      packed_.initialSums = plan_.columnStarts;
    else
      packed_.initialSums = initialSums(module, plan_, 0, {});
    if (epilogue_) {
      // A strip of main tiles (or the tail) at a time, as much as fits the
      // stage's bytes: longer rows for the epilogue's loop to vectorise.
      const int64_t tileColumns = tiling_.tileColumns();
      const int64_t tileBytes = 4 * int64_t(tiling_.rows) * tileColumns;
      const int64_t full = plan_.columns / tileColumns;
      stripTiles_ = std::clamp<int64_t>(stageBytes_ / tileBytes, 1, std::max<int64_t>(full, 1));
      // The last strip shares the stage and the epilogue with the tail.
      const int64_t lastStrip = full ? full - (full - 1) / stripTiles_ * stripTiles_ : 0;
      stageWidth_ = std::max(stripTiles_, lastStrip) * tileColumns + tiling_.tailColumns();
      stage_ = local(llvm::ArrayType::get(b_.getInt32Ty(), uint64_t(tiling_.rows * stageWidth_)));
      stage_->setAlignment(llvm::Align(64));
    }
    local_ = local;
    if (!splitBegin) {
      splitBegin = index(0);
      splitEnd = index(splitExtentOf(plan_, tiling_, PackedSchedule()));
    }
    const bool rowSplit = splitsRowTiles(plan_);
    LoopRange outerRange{splitBegin, splitEnd};
    emitLoopNest(
        b_, indexType_, plan_.outerDims,
        [&](IndexRef outer) {
          const OperandStrides *arrays[3] = {&plan_.operand[0], &plan_.operand[1], &plan_.result};
          llvm::Value *pointers[3] = {lhs, rhs, out};
          for (int side = 0; side < 3; ++side) {
            llvm::Value *offset = index(arrays[side]->base);
            for (size_t d = 0; d < outer.size(); ++d)
              offset = add(offset, mul(outer[d], arrays[side]->outer[d]));
            base_[side] = gep(side, pointers[side], offset);
            if (side == 2)
              outOffset_ = offset;
          }
          emitRowTiles(b_, plan_, tiling_, rowSplit ? splitBegin : index(0),
                       rowSplit ? splitEnd : index(rowTileCount(plan_, tiling_)),
                       [&](llvm::Value *row, unsigned rows) { emitColumns(row, rows); });
        },
        "d", rowSplit ? nullptr : &outerRange);
  }

private:
  llvm::Value *index(int64_t value) { return llvm::ConstantInt::get(indexType_, value); }
  llvm::Value *add(llvm::Value *x, llvm::Value *y) { return b_.CreateAdd(x, y); }
  llvm::Value *mul(llvm::Value *x, int64_t y) { return emitScaledIndex(b_, x, y); }
  /// Element `offset` of array `side` (0 lhs, 1 rhs, 2 result) from `base`.
  llvm::Value *gep(int side, llvm::Value *base, llvm::Value *offset) {
    return b_.CreateGEP(element_[side], base, offset);
  }
  llvm::Type *vectorOf(llvm::Type *element, unsigned lanes) {
    return lanes == 1 ? element : llvm::FixedVectorType::get(element, lanes);
  }

  /// The main tiles across the columns, then the tail tiles (one panel).
  /// With an epilogue, strips of main tiles go to the stage one after the
  /// other, each followed by the epilogue over the strip's rows; the last
  /// strip and the tail go to the stage together, under one epilogue whose
  /// row is long enough to vectorise (a tail of 8 columns alone is a loop
  /// LLVM leaves scalar).
  void emitColumns(llvm::Value *row, unsigned rows) {
    const int64_t tileColumns = tiling_.tileColumns();
    const int64_t full = plan_.columns / tileColumns;
    auto tiles = [&](llvm::Value *first, llvm::Value *count) {
      emitCountedLoop(
          b_, count,
          [&](llvm::Value *t) {
            emitTile(row, rows, mul(add(first, t), tileColumns), tileColumns, 0, tiling_.widths,
                     epilogue_ ? mul(t, tileColumns) : nullptr);
          },
          "jr");
    };
    if (full && !epilogue_)
      tiles(index(0), index(full));
    int64_t lastFirst = full; // the first main tile staged with the tail
    if (full && epilogue_) {
      const int64_t strips = (full + stripTiles_ - 1) / stripTiles_;
      lastFirst = (strips - 1) * stripTiles_;
      if (strips > 1)
        emitCountedLoop(
            b_, index(strips - 1),
            [&](llvm::Value *strip) {
              llvm::Value *first = mul(strip, stripTiles_);
              tiles(first, index(stripTiles_));
              emitStageEpilogue(row, rows, mul(first, tileColumns),
                                index(stripTiles_ * tileColumns));
            },
            "strip");
      tiles(index(lastFirst), index(full - lastFirst));
    }
    const int64_t staged = (full - lastFirst) * tileColumns;
    int64_t within = 0;
    for (const TileWidths &widths : tiling_.tail) {
      emitTile(row, rows, index(full * tileColumns), tiling_.tailColumns(), within, widths,
               epilogue_ ? index(staged + within) : nullptr);
      within += sumOf(widths);
    }
    if (epilogue_ && staged + within)
      emitStageEpilogue(row, rows, index(lastFirst * tileColumns), index(staged + within));
  }

  /// The epilogue over `rows` staged rows of `count` columns from `column`.
  void emitStageEpilogue(llvm::Value *row, unsigned rows, llvm::Value *column, llvm::Value *count) {
    for (unsigned r = 0; r < rows; ++r)
      epilogue_(add(outOffset_, add(mul(add(row, index(r)), plan_.result.row), column)), count,
                b_.CreateGEP(b_.getInt32Ty(), stage_, index(r * stageWidth_)), StagedPairs());
  }

  /// One tile of `rows` rows of vectors of `widths`, at column
  /// `panel` + `within` of the rhs panel starting at column `panel`,
  /// `panelWidth` columns wide.
  void emitTile(llvm::Value *row, unsigned rows, llvm::Value *panel, int64_t panelWidth,
                int64_t within, llvm::ArrayRef<unsigned> widths, llvm::Value *stageColumn) {
    Tile tile{row,    rows,        add(panel, index(within)),
              panel,  panelWidth,  within,
              widths, stageColumn, nullptr,
              {},     {}};
    tile.lhs = tileLocal(base_[0], tile.column);
    int64_t offset = 0;
    for (unsigned width : widths) {
      tile.offsets.push_back(offset);
      offset += width;
    }
    llvm::Type *i32 = b_.getInt32Ty();
    const unsigned sumLanes = step_.sumLanes();
    if (matrix_)
      createMatrixSums(tile);
    for (unsigned r = 0; r < (matrix_ ? 0 : rows); ++r)
      for (size_t v = 0; v < widths.size(); ++v) {
        // Partial sums start from zero, the columns' start added once
        // they are reduced (storeTile).
        llvm::Type *type = vectorOf(i32, widths[v] * sumLanes);
        llvm::Value *initial = llvm::Constant::getNullValue(type);
        if (packed_.initialSums && sumLanes == 1)
          initial = startOfSums(tile, v, widths[v]);
        llvm::AllocaInst *sum = local_(type);
        b_.CreateStore(initial, sum);
        tile.sums.push_back(sum);
      }
    if (grouped_)
      emitGroupedSteps(tile);
    else
      emitWideningSteps(tile);
    storeTile(tile);
  }

  /// The lhs and rhs contracting offsets of one index.
  using Tap = std::array<llvm::Value *, 2>;

  struct Tile {
    llvm::Value *row;
    unsigned rows;
    llvm::Value *column; ///< of the tile's first vector
    llvm::Value *panel;
    int64_t panelWidth, within;
    llvm::ArrayRef<unsigned> widths;
    llvm::Value *stageColumn; ///< where the epilogue's stage holds the tile, or null
    llvm::Value *lhs;         ///< the lhs at the current outer index, as tileLocal gives it
    llvm::SmallVector<int64_t, 8> offsets;          ///< of each vector from `column`
    llvm::SmallVector<llvm::AllocaInst *, 32> sums; ///< row-major: rows x vectors
  };

  /// `pointer`, which LLVM cannot see is the same for every tile along a
  /// row (it depends on the tile's `column` through an empty inline asm).
  /// Otherwise, with a short contracting loop unrolled, LLVM hoists every
  /// row's lhs values out of the loop over the column tiles, and they no
  /// longer fit the registers beside the sums: the tile would spill.
  llvm::Value *tileLocal(llvm::Value *pointer, llvm::Value *column) {
    llvm::Type *types[2] = {pointer->getType(), column->getType()};
    auto *barrier = llvm::InlineAsm::get(llvm::FunctionType::get(pointer->getType(), types, false),
                                         "", "=r,0,r",
                                         /*hasSideEffects=*/false);
    return b_.CreateCall(barrier, {pointer, column});
  }

  void accumulate(Tile &tile, unsigned r, size_t v, llvm::Value *lhs, llvm::Value *rhs) {
    llvm::AllocaInst *slot = tile.sums[r * tile.widths.size() + v];
    llvm::Value *sum = b_.CreateLoad(slot->getAllocatedType(), slot);
    b_.CreateStore(step_.addProducts(sum, lhs, rhs), slot);
  }

  /// The contracting loops of a grouped form: every outer contracting
  /// index, then the groups of the innermost dimension, in blocks of groups
  /// whose lhs values one vector load brings (AArch64's sdot by element
  /// takes a group from a lane), the last group possibly short.
  void emitGroupedSteps(Tile &tile) {
    llvm::ArrayRef<int64_t> dims = plan_.contractingDims;
    const int64_t group = step_.group(), inner = dims.back();
    const int64_t fullGroups = inner / group, rest = inner % group;
    // sdot by element takes a group from a lane of four; the matrix form
    // splits one 16-byte load of each row into two steps.
    int64_t block = 1;
    if (step_.form() == IntegerDotForm::ArmDot && fullGroups >= 4)
      block = 4;
    else if (matrix_ && fullGroups >= 2)
      block = 2;
    emitLoopNest(
        b_, indexType_, dims.drop_back(),
        [&](IndexRef k) {
          llvm::Value *lhsOffset = index(0);
          for (size_t d = 0; d < k.size(); ++d)
            lhsOffset = add(lhsOffset, mul(k[d], plan_.operand[0].contracting[d]));
          llvm::Value *firstStep =
              mul(emitLinearIndex(b_, indexType_, dims.drop_back(), k), packed_.groups);
          auto groups = [&](int64_t first, int64_t count, int64_t size) {
            emitGroups(tile, add(lhsOffset, index(first * group)), add(firstStep, index(first)),
                       count, size);
          };
          if (fullGroups / block)
            emitCountedLoop(
                b_, index(fullGroups / block),
                [&](llvm::Value *b) {
                  emitGroups(tile, add(lhsOffset, mul(b, block * group)),
                             add(firstStep, mul(b, block)), block, group);
                },
                "kg");
          for (int64_t g = fullGroups / block * block; g < fullGroups; ++g)
            groups(g, 1, group);
          if (rest)
            groups(fullGroups, 1, rest);
        },
        "k");
  }

  /// `count` steps from packed step `step`: each row's `count` groups of
  /// lhs values from contracting offset `lhsOffset` (the last one `size`
  /// values long, zeros after them) in one load, against the rhs.
  void emitGroups(Tile &tile, llvm::Value *lhsOffset, llvm::Value *step, int64_t count,
                  int64_t size) {
    if (matrix_)
      return emitMatrixGroups(tile, lhsOffset, step, count, size);
    const unsigned group = step_.group();
    llvm::SmallVector<llvm::Value *, 32> rhs = loadPackedRhs(tile, step, count);
    llvm::Type *groupWord = b_.getIntNTy(group * hlo::bitWidth(plan_.lhsType));
    for (unsigned r = 0; r < tile.rows; ++r) {
      llvm::Value *address =
          gep(0, tile.lhs, add(mul(add(tile.row, index(r)), plan_.operand[0].row), lhsOffset));
      llvm::Value *values =
          step_.adjustLhs(loadLhs(address, count * group, (count - 1) * group + size));
      // Each group as one scalar, broadcast to the lanes of a vector.
      llvm::Value *words =
          b_.CreateBitCast(values, llvm::FixedVectorType::get(groupWord, unsigned(count)));
      for (int64_t u = 0; u < count; ++u)
        for (size_t v = 0; v < tile.widths.size(); ++v) {
          const unsigned lanes = tile.widths[v];
          llvm::SmallVector<int, 16> pick;
          for (unsigned i = 0; i < (lanes == 1 ? group : lanes); ++i)
            pick.push_back(lanes == 1 ? int(u * group + i) : int(u));
          llvm::Value *rhsValues = rhs[size_t(u) * tile.widths.size() + v];
          llvm::Value *lhs = lanes == 1 ? b_.CreateShuffleVector(values, pick)
                                        : b_.CreateBitCast(b_.CreateShuffleVector(words, pick),
                                                           rhsValues->getType());
          accumulate(tile, r, v, lhs, rhsValues);
        }
    }
  }

  /// The packed rhs of `count` steps from packed step `step`: per step, per
  /// vector of the tile, its columns' groups one after the other.
  llvm::SmallVector<llvm::Value *, 32> loadPackedRhs(Tile &tile, llvm::Value *step, int64_t count) {
    const unsigned group = step_.group();
    llvm::SmallVector<llvm::Value *, 32> rhs;
    for (int64_t u = 0; u < count; ++u)
      for (size_t v = 0; v < tile.widths.size(); ++v) {
        llvm::Value *position =
            add(mul(tile.panel, packed_.steps), add(mul(add(step, index(u)), tile.panelWidth),
                                                    index(tile.within + tile.offsets[v])));
        rhs.push_back(b_.CreateAlignedLoad(vectorOf(element_[1], tile.widths[v] * group),
                                           gep(1, packed_.values, mul(position, group)),
                                           llvm::Align(1)));
      }
    return rhs;
  }

  /// The matrix form's sums: for each pair of rows, vector and pair of its
  /// columns, a 2x2 block [r0c0 r0c1 r1c0 r1c1] starting from the columns'
  /// initial sums (a missing second column's block lanes from zero).
  void createMatrixSums(Tile &tile) {
    llvm::Type *i32 = b_.getInt32Ty();
    auto *block = llvm::FixedVectorType::get(i32, 4);
    for (unsigned pair = 0; pair < (tile.rows + 1) / 2; ++pair)
      for (size_t v = 0; v < tile.widths.size(); ++v)
        for (unsigned half = 0; half < 2; ++half) {
          const unsigned lanes = tile.widths[v];
          llvm::Value *initial = llvm::Constant::getNullValue(block);
          if (packed_.initialSums && 2 * half < lanes) {
            auto *type = llvm::FixedVectorType::get(i32, lanes);
            llvm::Value *columns = b_.CreateAlignedLoad(
                type,
                b_.CreateGEP(i32, packed_.initialSums, add(tile.column, index(tile.offsets[v]))),
                llvm::Align(4));
            llvm::SmallVector<int, 4> pick;
            for (unsigned lane = 0; lane < 4; ++lane) {
              const unsigned column = 2 * half + lane % 2;
              pick.push_back(int(column < lanes ? column : lanes)); // lanes: the zero
            }
            initial = b_.CreateShuffleVector(columns, llvm::Constant::getNullValue(type), pick);
          }
          llvm::AllocaInst *sum = local_(block);
          b_.CreateStore(initial, sum);
          tile.sums.push_back(sum);
        }
  }

  llvm::AllocaInst *matrixSums(Tile &tile, unsigned pair, size_t v, unsigned half) {
    return tile.sums[(pair * tile.widths.size() + v) * 2 + half];
  }

  /// emitGroups for the matrix form: each pair of rows' groups side by side
  /// in one register, against each pair of columns' (a column past the
  /// tile's last reads zeros; a row past it repeats the last row).
  void emitMatrixGroups(Tile &tile, llvm::Value *lhsOffset, llvm::Value *step, int64_t count,
                        int64_t size) {
    const unsigned group = step_.group();
    llvm::SmallVector<llvm::Value *, 32> rhs = loadPackedRhs(tile, step, count);
    for (unsigned pair = 0; pair < (tile.rows + 1) / 2; ++pair) {
      llvm::Value *rows[2];
      for (unsigned half = 0; half < 2; ++half) {
        const unsigned r = std::min(2 * pair + half, tile.rows - 1);
        llvm::Value *address =
            gep(0, tile.lhs, add(mul(add(tile.row, index(r)), plan_.operand[0].row), lhsOffset));
        rows[half] = step_.adjustLhs(loadLhs(address, count * group, (count - 1) * group + size));
      }
      // A group is 8 bytes: the two rows' groups u as 64-bit lanes, which
      // one zip1 / zip2 puts side by side (bytes shuffled one by one cost
      // a move and an insert).
      auto *groups = llvm::FixedVectorType::get(b_.getInt64Ty(), unsigned(count));
      llvm::Value *rowGroups[2] = {b_.CreateBitCast(rows[0], groups),
                                   b_.CreateBitCast(rows[1], groups)};
      for (int64_t u = 0; u < count; ++u) {
        llvm::Value *lhs = b_.CreateBitCast(
            b_.CreateShuffleVector(rowGroups[0], rowGroups[1], {int(u), int(count + u)}),
            llvm::FixedVectorType::get(element_[0], 2 * group));
        for (size_t v = 0; v < tile.widths.size(); ++v) {
          llvm::Value *columns = rhs[size_t(u) * tile.widths.size() + v];
          const unsigned bytes = tile.widths[v] * group;
          llvm::Value *zero = llvm::Constant::getNullValue(columns->getType());
          for (unsigned half = 0; 2 * half < tile.widths[v]; ++half) {
            llvm::SmallVector<int, 16> bytePick;
            for (unsigned i = 0; i < 2 * group; ++i)
              bytePick.push_back(int(std::min(2 * half * group + i, bytes)));
            llvm::AllocaInst *slot = matrixSums(tile, pair, v, half);
            llvm::Value *sums = b_.CreateLoad(slot->getAllocatedType(), slot);
            b_.CreateStore(
                step_.addProducts(sums, lhs, b_.CreateShuffleVector(columns, zero, bytePick)),
                slot);
          }
        }
      }
    }
  }

  /// Row `r`'s sums of vector `v` of the tile: the s32 lanes to store.
  llvm::Value *tileRow(Tile &tile, unsigned r, size_t v) {
    if (matrix_) {
      // Lanes 2 * (r % 2) and the next of each of the vector's blocks.
      const unsigned lanes = tile.widths[v];
      llvm::Value *blocks[2];
      for (unsigned half = 0; half < 2; ++half) {
        llvm::AllocaInst *slot = matrixSums(tile, r / 2, v, 2 * half < lanes ? half : 0);
        blocks[half] = b_.CreateLoad(slot->getAllocatedType(), slot);
      }
      llvm::SmallVector<int, 4> pick;
      for (unsigned lane = 0; lane < lanes; ++lane)
        pick.push_back(int(lane / 2 * 4 + r % 2 * 2 + lane % 2));
      return lanes == 1 ? b_.CreateExtractElement(blocks[0], uint64_t(pick[0]))
                        : b_.CreateShuffleVector(blocks[0], blocks[1], pick);
    }
    llvm::AllocaInst *slot = tile.sums[r * tile.widths.size() + v];
    llvm::Value *sums = b_.CreateLoad(slot->getAllocatedType(), slot);
    if (step_.sumLanes() > 1)
      sums = b_.CreateAddReduce(sums);
    return sums;
  }

  /// `valid` lhs values from `address` as a vector of `length`, zeros after
  /// them.
  llvm::Value *loadLhs(llvm::Value *address, int64_t length, int64_t valid) {
    llvm::Type *type = llvm::FixedVectorType::get(element_[0], unsigned(length));
    if (valid == length)
      return b_.CreateAlignedLoad(type, address, llvm::Align(1));
    llvm::Value *zero = llvm::Constant::getNullValue(type);
    if (isAArch64_ && valid >= 2 && llvm::isPowerOf2_64(uint64_t(valid))) {
      // One narrower load, widened with zeros (free on NEON: a d-register
      // load clears the upper half; Helium's masked loads are better left
      // alone).
      llvm::Value *values = b_.CreateAlignedLoad(
          llvm::FixedVectorType::get(element_[0], unsigned(valid)), address, llvm::Align(1));
      llvm::SmallVector<int, 16> lanes;
      for (int64_t i = 0; i < length; ++i)
        lanes.push_back(int(i < valid ? i : valid));
      return b_.CreateShuffleVector(values, llvm::Constant::getNullValue(values->getType()), lanes);
    }
    if (length > 4) {
      llvm::SmallVector<llvm::Constant *, 16> mask;
      for (int64_t i = 0; i < length; ++i)
        mask.push_back(b_.getInt1(i < valid));
      return b_.CreateMaskedLoad(type, address, llvm::Align(1), llvm::ConstantVector::get(mask),
                                 zero);
    }
    llvm::Value *values = zero;
    for (int64_t i = 0; i < valid; ++i)
      values = b_.CreateInsertElement(
          values, b_.CreateAlignedLoad(element_[0], gep(0, address, index(i)), llvm::Align(1)),
          uint64_t(i));
    return values;
  }

  /// The contracting loops of the widening form: one product per lane and
  /// contracting index, each operand read with its own strides.
  void emitWideningSteps(Tile &tile) {
    // Operands that are rows along the columns (vectors, or one value
    // broadcast) multiply a whole tile row at once: the products of bytes
    // are 16 bits wide, twice as many to a register as the sums.
    const bool rows = rowsAlongColumns(plan_);
    if (rows && step_.addsProductPairs() && plan_.contractingDims.back() >= 2)
      return emitPairedRowSteps(tile);
    emitLoopNest(
        b_, indexType_, plan_.contractingDims,
        [&](IndexRef k) {
          const Tap kOffset = contractingOffsets(k);
          if (rows)
            return emitRowProducts(tile, {kOffset});
          llvm::SmallVector<llvm::Value *, 32> values[2];
          for (int side = 0; side < 2; ++side)
            for (unsigned r = 0; r < tile.rows; ++r)
              for (size_t v = 0; v < tile.widths.size(); ++v)
                values[side].push_back(r > 0 && plan_.operand[side].row == 0
                                           ? values[side][v]
                                           : loadOperand(side, tile, r, v, kOffset[side]));
          for (unsigned r = 0; r < tile.rows; ++r)
            for (size_t v = 0; v < tile.widths.size(); ++v) {
              const size_t t = r * tile.widths.size() + v;
              accumulate(tile, r, v, values[0][t], values[1][t]);
            }
        },
        "k");
  }

  /// The lhs and rhs offsets of the contracting indices `k` (the leading
  /// contracting dimensions, or all of them).
  Tap contractingOffsets(IndexRef k) {
    Tap offsets = {index(0), index(0)};
    for (size_t d = 0; d < k.size(); ++d)
      for (int side = 0; side < 2; ++side)
        offsets[side] = add(offsets[side], mul(k[d], plan_.operand[side].contracting[d]));
    return offsets;
  }

  /// emitWideningSteps for rows whose products add in pairs: the innermost
  /// contracting dimension two indices a step (a depthwise convolution's
  /// taps along a kernel row), one left over where its size is odd.
  void emitPairedRowSteps(Tile &tile) {
    llvm::ArrayRef<int64_t> dims = plan_.contractingDims;
    const int64_t inner = dims.back();
    emitLoopNest(
        b_, indexType_, dims.drop_back(),
        [&](IndexRef k) {
          const Tap outer = contractingOffsets(k);
          auto tap = [&](llvm::Value *i) -> Tap {
            return {add(outer[0], mul(i, plan_.operand[0].contracting.back())),
                    add(outer[1], mul(i, plan_.operand[1].contracting.back()))};
          };
          emitCountedLoop(
              b_, index(inner / 2),
              [&](llvm::Value *pair) {
                llvm::Value *first = mul(pair, 2);
                emitRowProducts(tile, {tap(first), tap(add(first, index(1)))});
              },
              "kp");
          if (inner % 2)
            emitRowProducts(tile, {tap(index(inner - 1))});
        },
        "k");
  }

  /// Where operand `side` of tile row `r` starts at contracting offset `kOffset`.
  llvm::Value *rowStart(Tile &tile, int side, unsigned r, llvm::Value *kOffset) {
    const OperandStrides &strides = plan_.operand[side];
    return gep(side, side == 0 ? tile.lhs : base_[side],
               add(add(mul(add(tile.row, index(r)), strides.row), kOffset),
                   mul(tile.column, strides.column)));
  }

  /// One contracting index of the widening form (or two whose products add
  /// exactly before they widen, IntegerDotStep::addsProductPairs), tile row
  /// by tile row: the products of the row's operands, then each vector's
  /// share of them added to its sums.
  void emitRowProducts(Tile &tile, llvm::ArrayRef<Tap> taps) {
    const int64_t width = sumOf(tile.widths);
    if (byteQuads(tile)) {
      llvm::Value *kOffset[2] = {taps[0][0], taps[0][1]};
      return emitByteQuads(tile, kOffset);
    }
    llvm::SmallVector<std::array<llvm::Value *, 2>, 2> operands(taps.size());
    for (unsigned r = 0; r < tile.rows; ++r) {
      llvm::Value *products = nullptr;
      for (size_t t = 0; t < taps.size(); ++t) {
        for (int side = 0; side < 2; ++side) {
          const OperandStrides &strides = plan_.operand[side];
          if (r > 0 && strides.row == 0)
            continue;
          llvm::Value *address = rowStart(tile, side, r, taps[t][side]);
          const llvm::Align align(element_[side]->getPrimitiveSizeInBits() / 8);
          operands[t][side] =
              strides.column == 1 || width == 1
                  ? b_.CreateAlignedLoad(vectorOf(element_[side], unsigned(width)), address, align)
                  : b_.CreateVectorSplat(unsigned(width),
                                         b_.CreateAlignedLoad(element_[side], address, align));
        }
        llvm::Value *tapProducts = step_.products(operands[t][0], operands[t][1]);
        products = products ? b_.CreateAdd(products, tapProducts) : tapProducts;
      }
      for (size_t v = 0; v < tile.widths.size(); ++v) {
        llvm::Value *share = products;
        if (width > 1) {
          llvm::SmallVector<int, 16> lanes;
          for (unsigned lane = 0; lane < tile.widths[v]; ++lane)
            lanes.push_back(int(tile.offsets[v] + lane));
          share = tile.widths[v] == 1 ? b_.CreateExtractElement(products, uint64_t(lanes[0]))
                                      : b_.CreateShuffleVector(products, lanes);
        }
        llvm::AllocaInst *slot = tile.sums[r * tile.widths.size() + v];
        llvm::Value *sum = b_.CreateLoad(slot->getAllocatedType(), slot);
        b_.CreateStore(step_.addProductValues(sum, share), slot);
      }
    }
  }

  /// Whether a tile's rows are four scalar sums over bytes both operands
  /// hold contiguously (a depthwise convolution's channels on a Cortex-M4).
  bool byteQuads(const Tile &tile) const {
    return step_.addsByteQuads() && tile.widths.size() == 4 &&
           llvm::all_of(tile.widths, [](unsigned width) { return width == 1; }) &&
           plan_.operand[0].column == 1 && plan_.operand[1].column == 1;
  }

  /// One contracting index of such a tile: a word of each operand a row.
  void emitByteQuads(Tile &tile, llvm::Value *kOffset[2]) {
    llvm::Value *words[2] = {};
    for (unsigned r = 0; r < tile.rows; ++r) {
      for (int side = 0; side < 2; ++side) {
        const OperandStrides &strides = plan_.operand[side];
        if (r > 0 && strides.row == 0)
          continue;
        words[side] = b_.CreateAlignedLoad(b_.getInt32Ty(), rowStart(tile, side, r, kOffset[side]),
                                           llvm::Align(1));
      }
      llvm::Value *sums[4];
      for (size_t v = 0; v < 4; ++v) {
        llvm::AllocaInst *slot = tile.sums[r * 4 + v];
        sums[v] = b_.CreateLoad(slot->getAllocatedType(), slot);
      }
      step_.addByteQuad(sums, words[0], words[1]);
      for (size_t v = 0; v < 4; ++v)
        b_.CreateStore(sums[v], tile.sums[r * 4 + v]);
    }
  }

  /// Operand `side` for tile row `r`, vector `v`, at contracting offset
  /// `kOffset`: a vector along the columns, one value broadcast, or lanes
  /// gathered one by one.
  llvm::Value *loadOperand(int side, Tile &tile, unsigned r, size_t v, llvm::Value *kOffset) {
    const OperandStrides &strides = plan_.operand[side];
    const unsigned lanes = tile.widths[v];
    llvm::Value *position = add(add(mul(add(tile.row, index(r)), strides.row), kOffset),
                                mul(add(tile.column, index(tile.offsets[v])), strides.column));
    llvm::Value *address = gep(side, side == 0 ? tile.lhs : base_[side], position);
    llvm::Type *element = element_[side];
    const llvm::Align align(element->getPrimitiveSizeInBits() / 8);
    if (strides.column == 0 || lanes == 1) {
      llvm::Value *scalar = b_.CreateAlignedLoad(element, address, align);
      return lanes == 1 ? scalar : b_.CreateVectorSplat(lanes, scalar);
    }
    if (strides.column == 1)
      return b_.CreateAlignedLoad(vectorOf(element, lanes), address, align);
    llvm::Value *vector = llvm::PoisonValue::get(vectorOf(element, lanes));
    for (unsigned lane = 0; lane < lanes; ++lane)
      vector = b_.CreateInsertElement(
          vector,
          b_.CreateAlignedLoad(element, gep(side, address, index(lane * strides.column)), align),
          lane);
    return vector;
  }

  /// The packed start of `lanes` sums from vector `v` of the tile on.
  llvm::Value *startOfSums(Tile &tile, size_t v, unsigned lanes) {
    return b_.CreateAlignedLoad(vectorOf(b_.getInt32Ty(), lanes),
                                b_.CreateGEP(b_.getInt32Ty(), packed_.initialSums,
                                             add(tile.column, index(tile.offsets[v]))),
                                llvm::Align(4));
  }

  /// The tile's sums to the result (truncated to its type), or, with an
  /// output fusion, to the stage. Partial sums of four single columns in a
  /// row are reduced together, into one vector.
  void storeTile(Tile &tile) {
    const bool partial = step_.sumLanes() > 1;
    for (unsigned r = 0; r < tile.rows; ++r)
      for (size_t v = 0; v < tile.widths.size();) {
        unsigned lanes = tile.widths[v];
        llvm::Value *sums;
        if (partial && v + 4 <= tile.widths.size() &&
            llvm::all_of(tile.widths.slice(v, 4), [](unsigned width) { return width == 1; })) {
          llvm::Value *columns[4];
          for (size_t c = 0; c < 4; ++c) {
            llvm::AllocaInst *slot = tile.sums[r * tile.widths.size() + v + c];
            columns[c] = b_.CreateLoad(slot->getAllocatedType(), slot);
          }
          sums = step_.reduceFourColumns(columns);
          lanes = 4;
        } else {
          sums = tileRow(tile, r, v);
        }
        if (partial && packed_.initialSums)
          sums = b_.CreateAdd(sums, startOfSums(tile, v, lanes));
        storeRow(tile, r, v, sums, lanes);
        v += lanes == tile.widths[v] ? 1 : lanes;
      }
  }

  /// `sums`, `lanes` s32 values of tile row `r` from vector `v` on, to the
  /// stage or the result.
  void storeRow(Tile &tile, unsigned r, size_t v, llvm::Value *sums, unsigned lanes) {
    if (tile.stageColumn) {
      llvm::Value *position = add(index(r * stageWidth_ + tile.offsets[v]), tile.stageColumn);
      b_.CreateAlignedStore(sums, b_.CreateGEP(b_.getInt32Ty(), stage_, position), llvm::Align(4));
      return;
    }
    llvm::Type *type = vectorOf(element_[2], lanes);
    llvm::Value *position = add(mul(add(tile.row, index(r)), plan_.result.row),
                                add(tile.column, index(tile.offsets[v])));
    b_.CreateAlignedStore(b_.CreateTrunc(sums, type), gep(2, base_[2], position),
                          llvm::Align(element_[2]->getPrimitiveSizeInBits() / 8));
  }

  llvm::IRBuilderBase &b_;
  llvm::Type *indexType_;
  const ContractionPlan &plan_;
  const ContractionTiling &tiling_;
  const IntegerDotStep &step_;
  const bool grouped_;
  const bool matrix_; ///< sums in 2x2 blocks (IntegerDotForm::ArmMatrix)
  const bool isAArch64_;
  llvm::Type *element_[3]; ///< storage types of lhs, rhs, result
  PackedIntegerRhs packed_;
  ContractionEpilogue epilogue_;
  llvm::function_ref<llvm::AllocaInst *(llvm::Type *)> local_;
  llvm::AllocaInst *stage_ = nullptr; ///< rows x stageWidth_ s32 sums for the epilogue
  int64_t stageWidth_ = 0, stripTiles_ = 1;
  /// The stage's size: microcontrollers' stacks are small.
  const int64_t stageBytes_;
  llvm::Value *base_[3] = {};        ///< lhs, rhs, result at the current outer index
  llvm::Value *outOffset_ = nullptr; ///< of the current outer index in the result
};

} // namespace

void emitIntegerContraction(llvm::IRBuilderBase &builder, llvm::Type *indexType,
                            const ContractionPlan &plan, const llvm::Triple &triple,
                            const target::TargetSpec *spec, llvm::Value *lhs, llvm::Value *rhs,
                            llvm::Value *out,
                            llvm::function_ref<llvm::AllocaInst *(llvm::Type *)> local,
                            llvm::Value *splitBegin, llvm::Value *splitEnd,
                            ContractionEpilogue epilogue) {
  const ContractionTiling tiling = chooseIntegerTiling(plan, triple, spec);
  const IntegerDotStep step(builder, chooseIntegerDotForm(plan, triple, spec), plan, triple, spec);
  IntegerKernel kernel(builder, indexType, plan, tiling, step);
  kernel.emit(lhs, rhs, out, local, splitBegin, splitEnd, epilogue);
}

} // namespace mote::codegen