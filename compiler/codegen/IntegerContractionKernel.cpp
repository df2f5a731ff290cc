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
        grouped_(step.form() != IntegerDotForm::Widening) {
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
    if (grouped_)
      packed_ = packIntegerRhs(*b_.GetInsertBlock()->getModule(), plan_, tiling_, step_.group(),
                               step_.lhsOffset());
    if (epilogue_) {
      int64_t widest = tiling_.tileColumns();
      for (const TileWidths &widths : tiling_.tail)
        widest = std::max(widest, sumOf(widths));
      stage_ = local(llvm::ArrayType::get(b_.getInt32Ty(), uint64_t(tiling_.rows * widest)));
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
  void emitColumns(llvm::Value *row, unsigned rows) {
    const int64_t tileColumns = tiling_.tileColumns();
    const int64_t full = plan_.columns / tileColumns;
    if (full)
      emitCountedLoop(
          b_, index(full),
          [&](llvm::Value *t) {
            emitTile(row, rows, mul(t, tileColumns), tileColumns, 0, tiling_.widths);
          },
          "jr");
    int64_t within = 0;
    for (const TileWidths &widths : tiling_.tail) {
      emitTile(row, rows, index(full * tileColumns), tiling_.tailColumns(), within, widths);
      within += sumOf(widths);
    }
  }

  /// One tile of `rows` rows of vectors of `widths`, at column
  /// `panel` + `within` of the rhs panel starting at column `panel`,
  /// `panelWidth` columns wide.
  void emitTile(llvm::Value *row, unsigned rows, llvm::Value *panel, int64_t panelWidth,
                int64_t within, llvm::ArrayRef<unsigned> widths) {
    Tile tile{row, rows, add(panel, index(within)), panel, panelWidth, within, widths, {}, {}};
    int64_t offset = 0;
    for (unsigned width : widths) {
      tile.offsets.push_back(offset);
      offset += width;
    }
    llvm::Type *i32 = b_.getInt32Ty();
    for (unsigned r = 0; r < rows; ++r)
      for (size_t v = 0; v < widths.size(); ++v) {
        llvm::Type *type = vectorOf(i32, widths[v]);
        llvm::Value *initial = llvm::Constant::getNullValue(type);
        if (packed_.initialSums)
          initial = b_.CreateAlignedLoad(
              type,
              b_.CreateGEP(i32, packed_.initialSums, add(tile.column, index(tile.offsets[v]))),
              llvm::Align(4));
        llvm::AllocaInst *sum = local_(type);
        b_.CreateStore(initial, sum);
        tile.sums.push_back(sum);
      }
    if (grouped_)
      emitGroupedSteps(tile);
    else
      emitWideningSteps(tile);
    storeTile(tile, offset);
  }

  struct Tile {
    llvm::Value *row;
    unsigned rows;
    llvm::Value *column; ///< of the tile's first vector
    llvm::Value *panel;
    int64_t panelWidth, within;
    llvm::ArrayRef<unsigned> widths;
    llvm::SmallVector<int64_t, 8> offsets;          ///< of each vector from `column`
    llvm::SmallVector<llvm::AllocaInst *, 32> sums; ///< row-major: rows x vectors
  };

  void accumulate(Tile &tile, unsigned r, size_t v, llvm::Value *lhs, llvm::Value *rhs) {
    llvm::AllocaInst *slot = tile.sums[r * tile.widths.size() + v];
    llvm::Value *sum = b_.CreateLoad(slot->getAllocatedType(), slot);
    b_.CreateStore(step_.addProducts(sum, lhs, rhs), slot);
  }

  /// The contracting loops of a grouped form: every outer contracting
  /// index, then the groups of the innermost dimension, the last one
  /// possibly short.
  void emitGroupedSteps(Tile &tile) {
    llvm::ArrayRef<int64_t> dims = plan_.contractingDims;
    const int64_t group = step_.group(), inner = dims.back();
    const int64_t fullGroups = inner / group, rest = inner % group;
    emitLoopNest(
        b_, indexType_, dims.drop_back(),
        [&](IndexRef k) {
          llvm::Value *lhsOffset = index(0);
          for (size_t d = 0; d < k.size(); ++d)
            lhsOffset = add(lhsOffset, mul(k[d], plan_.operand[0].contracting[d]));
          llvm::Value *firstStep =
              mul(emitLinearIndex(b_, indexType_, dims.drop_back(), k), packed_.groups);
          if (fullGroups)
            emitCountedLoop(
                b_, index(fullGroups),
                [&](llvm::Value *g) {
                  emitGroup(tile, add(lhsOffset, mul(g, group)), add(firstStep, g), group);
                },
                "kg");
          if (rest)
            emitGroup(tile, add(lhsOffset, index(fullGroups * group)),
                      add(firstStep, index(fullGroups)), rest);
        },
        "k");
  }

  /// One step: `size` lhs values from contracting offset `lhsOffset` of
  /// each row against packed step `step`.
  void emitGroup(Tile &tile, llvm::Value *lhsOffset, llvm::Value *step, int64_t size) {
    const unsigned group = step_.group();
    llvm::SmallVector<llvm::Value *, 8> rhs;
    for (size_t v = 0; v < tile.widths.size(); ++v) {
      llvm::Value *position =
          add(mul(tile.panel, packed_.steps),
              add(mul(step, tile.panelWidth), index(tile.within + tile.offsets[v])));
      rhs.push_back(b_.CreateAlignedLoad(vectorOf(element_[1], tile.widths[v] * group),
                                         gep(1, packed_.values, mul(position, group)),
                                         llvm::Align(1)));
    }
    for (unsigned r = 0; r < tile.rows; ++r) {
      llvm::Value *address =
          gep(0, base_[0], add(mul(add(tile.row, index(r)), plan_.operand[0].row), lhsOffset));
      llvm::Value *values = step_.adjustLhs(loadGroup(address, size));
      // One scalar holding the group, broadcast to each lane of a vector.
      llvm::Value *whole =
          b_.CreateBitCast(values, b_.getIntNTy(group * hlo::bitWidth(plan_.lhsType)));
      for (size_t v = 0; v < tile.widths.size(); ++v) {
        const unsigned lanes = tile.widths[v];
        llvm::Value *lhs =
            lanes == 1 ? values
                       : b_.CreateBitCast(b_.CreateVectorSplat(lanes, whole), rhs[v]->getType());
        accumulate(tile, r, v, lhs, rhs[v]);
      }
    }
  }

  /// `size` lhs values from `address` as a vector of G, zeros after them.
  llvm::Value *loadGroup(llvm::Value *address, int64_t size) {
    const unsigned group = step_.group();
    llvm::Type *type = llvm::FixedVectorType::get(element_[0], group);
    if (size == group)
      return b_.CreateAlignedLoad(type, address, llvm::Align(1));
    llvm::Value *zero = llvm::Constant::getNullValue(type);
    if (group > 4) {
      llvm::SmallVector<llvm::Constant *, 16> mask;
      for (unsigned i = 0; i < group; ++i)
        mask.push_back(b_.getInt1(i < size));
      return b_.CreateMaskedLoad(type, address, llvm::Align(1), llvm::ConstantVector::get(mask),
                                 zero);
    }
    llvm::Value *values = zero;
    for (int64_t i = 0; i < size; ++i)
      values = b_.CreateInsertElement(
          values, b_.CreateAlignedLoad(element_[0], gep(0, address, index(i)), llvm::Align(1)),
          uint64_t(i));
    return values;
  }

  /// The contracting loops of the widening form: one product per lane and
  /// contracting index, each operand read with its own strides.
  void emitWideningSteps(Tile &tile) {
    emitLoopNest(
        b_, indexType_, plan_.contractingDims,
        [&](IndexRef k) {
          llvm::Value *kOffset[2] = {index(0), index(0)};
          for (size_t d = 0; d < k.size(); ++d)
            for (int side = 0; side < 2; ++side)
              kOffset[side] = add(kOffset[side], mul(k[d], plan_.operand[side].contracting[d]));
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

  /// Operand `side` for tile row `r`, vector `v`, at contracting offset
  /// `kOffset`: a vector along the columns, one value broadcast, or lanes
  /// gathered one by one.
  llvm::Value *loadOperand(int side, Tile &tile, unsigned r, size_t v, llvm::Value *kOffset) {
    const OperandStrides &strides = plan_.operand[side];
    const unsigned lanes = tile.widths[v];
    llvm::Value *position = add(add(mul(add(tile.row, index(r)), strides.row), kOffset),
                                mul(add(tile.column, index(tile.offsets[v])), strides.column));
    llvm::Value *address = gep(side, base_[side], position);
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
  /// output fusion, to the stage buffer, each row then handed to the
  /// epilogue.
  void storeTile(Tile &tile, int64_t tileColumns) {
    for (unsigned r = 0; r < tile.rows; ++r)
      for (size_t v = 0; v < tile.widths.size(); ++v) {
        llvm::AllocaInst *slot = tile.sums[r * tile.widths.size() + v];
        llvm::Value *sums = b_.CreateLoad(slot->getAllocatedType(), slot);
        if (epilogue_) {
          b_.CreateAlignedStore(
              sums, b_.CreateGEP(b_.getInt32Ty(), stage_, index(r * tileColumns + tile.offsets[v])),
              llvm::Align(4));
          continue;
        }
        llvm::Type *type = vectorOf(element_[2], tile.widths[v]);
        llvm::Value *position = add(mul(add(tile.row, index(r)), plan_.result.row),
                                    add(tile.column, index(tile.offsets[v])));
        b_.CreateAlignedStore(b_.CreateTrunc(sums, type), gep(2, base_[2], position),
                              llvm::Align(element_[2]->getPrimitiveSizeInBits() / 8));
      }
    if (!epilogue_)
      return;
    for (unsigned r = 0; r < tile.rows; ++r)
      epilogue_(add(outOffset_, add(mul(add(tile.row, index(r)), plan_.result.row), tile.column)),
                index(tileColumns), b_.CreateGEP(b_.getInt32Ty(), stage_, index(r * tileColumns)));
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
  llvm::AllocaInst *stage_ = nullptr; ///< one tile of s32 sums for the epilogue
  llvm::Value *base_[3] = {};         ///< lhs, rhs, result at the current outer index
  llvm::Value *outOffset_ = nullptr;  ///< of the current outer index in the result
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
  if (triple.isAArch64())
    return has("dotprod") ? IntegerDotForm::ArmDot : IntegerDotForm::ArmMultiplyPairs;
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
  switch (chooseIntegerDotForm(plan, triple, spec)) {
  case IntegerDotForm::MveReduce:
    // Eight sums in general registers, four lhs and two rhs vectors in
    // MVE's eight.
    return scalarTiling(plan, 4, 2);
  case IntegerDotForm::ArmDsp:
    return scalarTiling(plan, 2, 2);
  default:
    break;
  }
  // Thumb without vectors has about a dozen free registers.
  if (isArmM(triple) && !(spec && target::hasFeature(*spec, "mve.fp")))
    return scalarTiling(plan, 2, 2);
  // s32 lanes are f32 lanes: the float cost model's register tiles fit.
  ContractionPlan lanes = plan;
  lanes.type = PrimitiveType::F32;
  lanes.fused = true;
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
