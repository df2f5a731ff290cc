//===- IntegerContractionKernel.cpp - Tiled integer contractions ----------===//
//
// The loops of an integer contraction (IntegerContraction.h): outer
// dimensions, row tiles and column tiles split exactly as the float kernel
// splits them (so tasks and depth-first chains use the same ranges), then
// per tile the contracting loops, grouped or widening, and the tile's sums
// stored, or handed to the output fusion through a one-tile s32 buffer.
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

bool isByte(PrimitiveType type) { return hlo::bitWidth(type) == 8; }

/// Whether a grouped form can compute `plan`: 8-bit operands, a constant
/// rhs shared by every row and outer index (laid out at compile time), an
/// lhs shared by the columns and contiguous along the innermost contracting
/// dimension.
bool takesGroupedForm(const ContractionPlan &plan) {
  const OperandStrides &lhs = plan.operand[0], &rhs = plan.operand[1];
  return plan.rhsValues && isByte(plan.lhsType) && isByte(plan.rhsType) &&
         !plan.contractingDims.empty() && lhs.contracting.back() == 1 && lhs.column == 0 &&
         rhs.row == 0 && llvm::all_of(rhs.outer, [](int64_t stride) { return stride == 0; });
}

bool isArmM(const llvm::Triple &triple) { return triple.isARM() || triple.isThumb(); }

/// Tiles of `rows` x `columns` scalar sums.
ContractionTiling scalarTiling(const ContractionPlan &plan, int64_t rows, int64_t columns) {
  ContractionTiling tiling;
  tiling.rows = unsigned(std::clamp<int64_t>(plan.rows, 1, rows));
  const int64_t width = std::clamp<int64_t>(plan.columns, 1, columns);
  tiling.widths.assign(size_t(width), 1);
  if (const int64_t rest = plan.columns % width)
    tiling.tail.push_back(TileWidths(size_t(rest), 1));
  tiling.leftoverRows = unsigned(plan.rows % tiling.rows);
  return tiling;
}

/// Tiles for the widening form over byte operands that are rows along the
/// columns (a depthwise convolution): a row of a tile is as many columns as
/// a vector register holds bytes, so each operand is one load a row and
/// its products fill registers of 16-bit lanes; rows as the sums leave
/// registers for (operands and products take about six).
ContractionTiling byteRowTiling(const ContractionPlan &plan, VectorRegisters registers) {
  const unsigned lanes = registers.bytes / 4; // s32 sums a register
  const int64_t columns = std::max<int64_t>(plan.columns, 1);
  const int64_t vectors =
      std::clamp<int64_t>((columns + lanes - 1) / lanes, 1, registers.bytes / lanes);
  ContractionTiling tiling;
  tiling.lanes = lanes;
  tiling.widths.assign(size_t(vectors), lanes);
  tiling.rows = unsigned(std::clamp<int64_t>((int64_t(registers.count) - 6) / vectors, 1,
                                             std::max<int64_t>(plan.rows, 1)));
  // The columns left over: vectors of the width and its halves, then scalars.
  TileWidths rest;
  int64_t left = columns % (vectors * lanes);
  for (unsigned width = lanes; width >= 1; width /= 2)
    for (; left >= width; left -= width)
      rest.push_back(width);
  if (!rest.empty())
    tiling.tail.push_back(rest);
  tiling.leftoverRows = unsigned(plan.rows % tiling.rows);
  return tiling;
}

bool rowsAlongColumns(const ContractionPlan &plan) {
  return llvm::all_of(plan.operand, [](const OperandStrides &strides) {
    return strides.column == 0 || strides.column == 1;
  });
}

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
    if (grouped_)
      packed_ = packIntegerRhs(module, plan_, tiling_, step_.group(), step_.lhsOffset());
    else
      packed_.initialSums = initialSums(module, plan_, 0, {});
    if (epilogue_) {
      // A strip of main tiles (or the tail) at a time, as much as fits the
      // stage's bytes: longer rows for the epilogue's loop to vectorise.
      const int64_t tileColumns = tiling_.tileColumns();
      const int64_t tileBytes = 4 * int64_t(tiling_.rows) * tileColumns;
      stripTiles_ = std::clamp<int64_t>(stageBytes_ / tileBytes, 1,
                                        std::max<int64_t>(plan_.columns / tileColumns, 1));
      stageWidth_ = std::max(stripTiles_ * tileColumns, tiling_.tailColumns());
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
  /// other, each followed by the epilogue over the strip's rows, and the
  /// tail the same way.
  void emitColumns(llvm::Value *row, unsigned rows) {
    const int64_t tileColumns = tiling_.tileColumns();
    const int64_t full = plan_.columns / tileColumns;
    if (full && !epilogue_)
      emitCountedLoop(
          b_, index(full),
          [&](llvm::Value *t) {
            emitTile(row, rows, mul(t, tileColumns), tileColumns, 0, tiling_.widths, nullptr);
          },
          "jr");
    if (full && epilogue_) {
      const int64_t strips = (full + stripTiles_ - 1) / stripTiles_;
      emitCountedLoop(
          b_, index(strips),
          [&](llvm::Value *strip) {
            llvm::Value *first = mul(strip, stripTiles_);
            llvm::Value *count = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, index(stripTiles_),
                                                          b_.CreateSub(index(full), first));
            emitCountedLoop(
                b_, count,
                [&](llvm::Value *t) {
                  emitTile(row, rows, mul(add(first, t), tileColumns), tileColumns, 0,
                           tiling_.widths, mul(t, tileColumns));
                },
                "jr");
            emitStageEpilogue(row, rows, mul(first, tileColumns), mul(count, tileColumns));
          },
          "strip");
    }
    int64_t within = 0;
    for (const TileWidths &widths : tiling_.tail) {
      emitTile(row, rows, index(full * tileColumns), tiling_.tailColumns(), within, widths,
               epilogue_ ? index(within) : nullptr);
      within += sumOf(widths);
    }
    if (epilogue_ && within)
      emitStageEpilogue(row, rows, index(full * tileColumns), index(within));
  }

  /// The epilogue over `rows` staged rows of `count` columns from `column`.
  void emitStageEpilogue(llvm::Value *row, unsigned rows, llvm::Value *column, llvm::Value *count) {
    for (unsigned r = 0; r < rows; ++r)
      epilogue_(add(outOffset_, add(mul(add(row, index(r)), plan_.result.row), column)), count,
                b_.CreateGEP(b_.getInt32Ty(), stage_, index(r * stageWidth_)));
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
    for (unsigned r = 0; r < rows; ++r)
      for (size_t v = 0; v < widths.size(); ++v) {
        llvm::Type *type = vectorOf(i32, widths[v]);
        llvm::Value *initial = llvm::Constant::getNullValue(type);
        if (packed_.initialSums)
          initial = b_.CreateAlignedLoad(
              type,
              b_.CreateGEP(i32, packed_.initialSums, add(tile.column, index(tile.offsets[v]))),
              llvm::Align(4));
        if (sumLanes > 1) { // partial sums, the start in the first lane
          type = vectorOf(i32, widths[v] * sumLanes);
          initial =
              b_.CreateInsertElement(llvm::Constant::getNullValue(type), initial, uint64_t(0));
        }
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
    const int64_t block = step_.form() == IntegerDotForm::ArmDot && fullGroups >= 4 ? 4 : 1;
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
    const unsigned group = step_.group();
    llvm::SmallVector<llvm::Value *, 32> rhs; // per step, per vector
    for (int64_t u = 0; u < count; ++u)
      for (size_t v = 0; v < tile.widths.size(); ++v) {
        llvm::Value *position =
            add(mul(tile.panel, packed_.steps), add(mul(add(step, index(u)), tile.panelWidth),
                                                    index(tile.within + tile.offsets[v])));
        rhs.push_back(b_.CreateAlignedLoad(vectorOf(element_[1], tile.widths[v] * group),
                                           gep(1, packed_.values, mul(position, group)),
                                           llvm::Align(1)));
      }
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

  /// `valid` lhs values from `address` as a vector of `length`, zeros after
  /// them.
  llvm::Value *loadLhs(llvm::Value *address, int64_t length, int64_t valid) {
    llvm::Type *type = llvm::FixedVectorType::get(element_[0], unsigned(length));
    if (valid == length)
      return b_.CreateAlignedLoad(type, address, llvm::Align(1));
    llvm::Value *zero = llvm::Constant::getNullValue(type);
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
    emitLoopNest(
        b_, indexType_, plan_.contractingDims,
        [&](IndexRef k) {
          llvm::Value *kOffset[2] = {index(0), index(0)};
          for (size_t d = 0; d < k.size(); ++d)
            for (int side = 0; side < 2; ++side)
              kOffset[side] = add(kOffset[side], mul(k[d], plan_.operand[side].contracting[d]));
          if (rows)
            return emitRowProducts(tile, kOffset);
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

  /// One contracting index of the widening form, tile row by tile row: the
  /// products of the row's operands, then each vector's share of them added
  /// to its sums.
  void emitRowProducts(Tile &tile, llvm::Value *kOffset[2]) {
    const int64_t width = sumOf(tile.widths);
    if (byteQuads(tile))
      return emitByteQuads(tile, kOffset);
    llvm::Value *operands[2] = {};
    for (unsigned r = 0; r < tile.rows; ++r) {
      for (int side = 0; side < 2; ++side) {
        const OperandStrides &strides = plan_.operand[side];
        if (r > 0 && strides.row == 0)
          continue;
        llvm::Value *address =
            gep(side, side == 0 ? tile.lhs : base_[side],
                add(add(mul(add(tile.row, index(r)), strides.row), kOffset[side]),
                    mul(tile.column, strides.column)));
        const llvm::Align align(element_[side]->getPrimitiveSizeInBits() / 8);
        operands[side] =
            strides.column == 1 || width == 1
                ? b_.CreateAlignedLoad(vectorOf(element_[side], unsigned(width)), address, align)
                : b_.CreateVectorSplat(unsigned(width),
                                       b_.CreateAlignedLoad(element_[side], address, align));
      }
      llvm::Value *products = step_.products(operands[0], operands[1]);
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
        llvm::Value *address =
            gep(side, side == 0 ? tile.lhs : base_[side],
                add(add(mul(add(tile.row, index(r)), strides.row), kOffset[side]), tile.column));
        words[side] = b_.CreateAlignedLoad(b_.getInt32Ty(), address, llvm::Align(1));
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

  /// The tile's sums to the result (truncated to its type), or, with an
  /// output fusion, to the stage.
  void storeTile(Tile &tile) {
    for (unsigned r = 0; r < tile.rows; ++r)
      for (size_t v = 0; v < tile.widths.size(); ++v) {
        llvm::AllocaInst *slot = tile.sums[r * tile.widths.size() + v];
        llvm::Value *sums = b_.CreateLoad(slot->getAllocatedType(), slot);
        if (step_.sumLanes() > 1)
          sums = b_.CreateAddReduce(sums);
        if (tile.stageColumn) {
          llvm::Value *position = add(index(r * stageWidth_ + tile.offsets[v]), tile.stageColumn);
          b_.CreateAlignedStore(sums, b_.CreateGEP(b_.getInt32Ty(), stage_, position),
                                llvm::Align(4));
          continue;
        }
        llvm::Type *type = vectorOf(element_[2], tile.widths[v]);
        llvm::Value *position = add(mul(add(tile.row, index(r)), plan_.result.row),
                                    add(tile.column, index(tile.offsets[v])));
        b_.CreateAlignedStore(b_.CreateTrunc(sums, type), gep(2, base_[2], position),
                              llvm::Align(element_[2]->getPrimitiveSizeInBits() / 8));
      }
  }

  llvm::IRBuilderBase &b_;
  llvm::Type *indexType_;
  const ContractionPlan &plan_;
  const ContractionTiling &tiling_;
  const IntegerDotStep &step_;
  const bool grouped_;
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

llvm::StringRef integerDotFormName(IntegerDotForm form) {
  switch (form) {
  case IntegerDotForm::Widening:
    return "widening";
  case IntegerDotForm::X86Vnni:
    return "x86-vnni";
  case IntegerDotForm::X86MaddWords:
    return "x86-madd-words";
  case IntegerDotForm::ArmDot:
    return "arm-dot";
  case IntegerDotForm::ArmMultiplyPairs:
    return "arm-multiply-pairs";
  case IntegerDotForm::ArmPartialSums:
    return "arm-partial-sums";
  case IntegerDotForm::ArmDsp:
    return "arm-dsp";
  case IntegerDotForm::MveReduce:
    return "mve-reduce";
  }
  return "?";
}

bool isIntegerContraction(const ContractionPlan &plan) { return plan.type == PrimitiveType::S32; }

IntegerDotForm chooseIntegerDotForm(const ContractionPlan &plan, const llvm::Triple &triple,
                                    const target::TargetSpec *spec) {
  if (!takesGroupedForm(plan))
    return IntegerDotForm::Widening;
  auto has = [&](llvm::StringRef feature) { return spec && target::hasFeature(*spec, feature); };
  if (triple.isX86())
    return has("avx512vnni") || has("avxvnni") ? IntegerDotForm::X86Vnni
                                               : IntegerDotForm::X86MaddWords;
  if (triple.isAArch64()) {
    if (has("dotprod"))
      return IntegerDotForm::ArmDot;
    // Rows of whole 16-byte groups: partial sums a column; else pairs.
    return plan.contractingDims.back() % 16 == 0 ? IntegerDotForm::ArmPartialSums
                                                 : IntegerDotForm::ArmMultiplyPairs;
  }
  if (isArmM(triple)) {
    if (has("mve"))
      return IntegerDotForm::MveReduce;
    if (has("dsp"))
      return IntegerDotForm::ArmDsp;
  }
  return IntegerDotForm::Widening;
}

ContractionTiling chooseIntegerTiling(const ContractionPlan &plan, const llvm::Triple &triple,
                                      const target::TargetSpec *spec) {
  const IntegerDotForm form = chooseIntegerDotForm(plan, triple, spec);
  switch (form) {
  case IntegerDotForm::MveReduce:
    // Eight sums in general registers, four lhs and two rhs vectors in
    // MVE's eight.
    return scalarTiling(plan, 4, 2);
  case IntegerDotForm::ArmDsp:
    return scalarTiling(plan, 2, 2);
  case IntegerDotForm::ArmPartialSums:
    // Sixteen sums of four lanes, four lhs and four rhs vectors, products.
    return scalarTiling(plan, 4, 4);
  default:
    break;
  }
  // Thumb without vectors has about a dozen free registers; a depthwise
  // convolution's bytes go four channels a word (IntegerDotStep::addByteQuad).
  if (isArmM(triple) && !(spec && target::hasFeature(*spec, "mve.fp"))) {
    const bool quads = form == IntegerDotForm::Widening && isByte(plan.lhsType) &&
                       isByte(plan.rhsType) && plan.operand[0].column == 1 &&
                       plan.operand[1].column == 1 && spec && target::hasFeature(*spec, "dsp");
    return quads ? scalarTiling(plan, 1, 4) : scalarTiling(plan, 2, 2);
  }
  const VectorRegisters registers = vectorRegisters(triple, spec);
  if (form == IntegerDotForm::Widening && isByte(plan.lhsType) && isByte(plan.rhsType) &&
      registers.bytes >= 16 && rowsAlongColumns(plan))
    return byteRowTiling(plan, registers);
  // s32 lanes are f32 lanes: the float cost model's register tiles fit,
  // less the registers the form's arithmetic holds.
  ContractionPlan lanes = plan;
  lanes.type = PrimitiveType::F32;
  lanes.fused = true;
  lanes.extraRegisters = integerStepRegisters(form, plan, spec);
  return chooseContractionTiling(lanes, triple, spec);
}

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
