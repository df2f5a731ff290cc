//===- ContractionTiling.cpp - Register tiles for a contraction -----------===//

#include "codegen/ContractionTiling.h"

#include "codegen/Bf16Dots.h"
#include "codegen/IntegerContraction.h"
#include "codegen/LoopNest.h"

#include <numeric>

namespace mote::codegen {

using hlo::PrimitiveType;

VectorRegisters vectorRegisters(const llvm::Triple &triple, const target::TargetSpec *spec) {
  auto has = [&](llvm::StringRef feature) { return spec && target::hasFeature(*spec, feature); };
  if (triple.isX86())
    return {spec ? target::preferredAlignment(*spec) : 16u, has("avx512f") ? 32u : 16u};
  if (triple.isAArch64())
    return {16, 32};
  if (triple.isRISCV() && spec && target::riscvVectorBits(*spec))
    return {target::riscvVectorBits(*spec) / 8, 32};
  if ((triple.isARM() || triple.isThumb()) && has("mve.fp"))
    return {16, 8};
  return {0, 32};
}

namespace {

int64_t sum(llvm::ArrayRef<unsigned> widths) {
  return std::accumulate(widths.begin(), widths.end(), int64_t(0));
}

/// What the cost model needs to know of a plan and a target.
class TilingCosts {
public:
  TilingCosts(const ContractionPlan &plan, unsigned registers, bool scalar,
              bool rowValuesInVectorRegisters, unsigned lhsRunSteps)
      : plan_(plan), registers_(registers), scalar_(scalar),
        rowValuesInVectorRegisters_(rowValuesInVectorRegisters), lhsRunSteps_(lhsRunSteps) {
    steps_ = 1;
    for (int64_t dim : plan.contractingDims)
      steps_ *= dim;
  }

  /// Whether `rows` rows of `segments` vectors fit the registers: the sums,
  /// one loaded value of each operand, and a product when not fused. Where
  /// the lhs value a row shares is a lane of a vector register (AArch64's
  /// multiply-add by element), the compiler loads all the rows' values
  /// before the multiply-adds, so each row holds one register.
  bool fits(int64_t rows, size_t segments) const {
    const int64_t sums = rows * int64_t(segments);
    if (scalar_)
      return sums <= int64_t(registers_);
    const int64_t shared = rowValuesInVectorRegisters_ && plan_.operand[0].column == 0 ? rows : 1;
    // Steps taken in runs are unrolled twice, and LLVM then wants two
    // registers of slack to avoid spilling (7 x 3 tiles spill on AArch64).
    const int64_t slack = lhsRunSteps_ > 1 ? 2 : 0;
    return sums + int64_t(segments) + shared + (plan_.fused ? 0 : 1) + slack +
               plan_.extraRegisters <=
           int64_t(registers_);
  }

  /// Cycles of one tile: per contracting step its multiply-adds and loads
  /// at two a cycle but no faster than a multiply-add's latency, plus
  /// starting and storing its sums.
  double tile(int64_t rows, llvm::ArrayRef<unsigned> widths) const {
    const double vectors = double(widths.size());
    Loads lhs = operandLoads(plan_.operand[0], rows, widths);
    lhs.count /= lhsRunSteps_; // one load serves that many steps
    const Loads rhs = operandLoads(plan_.operand[1], rows, widths);
    const double loads = lhs.count + rhs.count;
    // Between tiles that keep the ports equally busy, the one reading fewer
    // bytes per step wins (measured on a 512^3 GEMM with AVX-512: 14 x 2
    // vectors and 8 x 3 beat 7 x 3, 6 x 4 and 4 x 6, in that order).
    // Where the lhs comes in runs, the tile that issues the fewest
    // instructions a multiply-add wins instead: a multiply-add each, a
    // load per run of a row, a load per pair of rhs vectors (AArch64 loads
    // them with one ldp). On the 512^3 GEMM under qemu-aarch64: 5 x 4
    // tiles 40.8 M guest instructions, 6 x 3 41.0 M, 9 x 2 41.2 M.
    const double tieBreak =
        lhsRunSteps_ > 1 ? kCyclesPerInstruction * (rows * vectors + lhs.count + rhs.count / 2)
                         : kCyclesPerByte * (lhs.bytes + rhs.bytes);
    const double step = std::max({rows * vectors / 2, loads / 2, kLatency}) + tieBreak;
    return double(steps_) * step + rows * vectors;
  }

  /// Cycles of the tiles covering `columns` columns of `rows` rows with
  /// `main` tiles, then tail tiles.
  double rowStrip(int64_t rows, const TileWidths &main, int64_t columns,
                  llvm::ArrayRef<TileWidths> tail) const {
    double cost = double(columns / sum(main)) * tile(rows, main);
    for (const TileWidths &widths : tail)
      cost += tile(rows, widths);
    return cost;
  }

private:
  struct Loads {
    double count = 0, bytes = 0;
  };

  /// Loads of one operand a tile makes per contracting step: a value
  /// shared by a row (or the whole tile) once, a contiguous vector once,
  /// anything else lane by lane.
  Loads operandLoads(const OperandStrides &strides, int64_t rows,
                     llvm::ArrayRef<unsigned> widths) const {
    const double elementBytes =
        double(hlo::bitWidth(arrayType(plan_, &strides == &plan_.operand[0] ? 0 : 1)) / 8);
    Loads perRow;
    if (strides.column == 0)
      perRow = {1.0, elementBytes};
    else
      perRow = {strides.column == 1 ? double(widths.size()) : double(sum(widths)),
                double(sum(widths)) * elementBytes};
    const double times = strides.row == 0 ? 1.0 : double(rows);
    return {perRow.count * times, perRow.bytes * times};
  }

  static constexpr double kLatency = 4; // cycles of a dependent multiply-add
  static constexpr double kCyclesPerByte = 0.01;
  static constexpr double kCyclesPerInstruction = 0.05;
  const ContractionPlan &plan_;
  unsigned registers_;
  bool scalar_;
  bool rowValuesInVectorRegisters_;
  unsigned lhsRunSteps_;
  int64_t steps_ = 1;
};

/// `columns` as vectors of `widths` (widest first) and scalars for what is
/// narrower than the narrowest.
TileWidths coverColumns(int64_t columns, llvm::ArrayRef<unsigned> widths) {
  TileWidths result;
  for (unsigned width : widths)
    for (; columns >= width; columns -= width)
      result.push_back(width);
  for (; columns > 0; --columns)
    result.push_back(1);
  return result;
}

/// `widths` cut into tiles of at most `perTile` vectors each.
llvm::SmallVector<TileWidths, 2> splitTiles(const TileWidths &widths, size_t perTile) {
  llvm::SmallVector<TileWidths, 2> tiles;
  for (size_t i = 0; i < widths.size(); i += perTile)
    tiles.emplace_back(widths.begin() + i, widths.begin() + std::min(widths.size(), i + perTile));
  return tiles;
}

} // namespace

int64_t ContractionTiling::tileColumns() const { return sum(widths); }

int64_t ContractionTiling::tailColumns() const {
  int64_t columns = 0;
  for (const TileWidths &tile : tail)
    columns += sum(tile);
  return columns;
}

ContractionTiling chooseContractionTiling(const ContractionPlan &plan, const llvm::Triple &triple,
                                          const target::TargetSpec *spec) {
  if (isIntegerContraction(plan))
    return chooseIntegerTiling(plan, triple, spec);
  const unsigned bytes = hlo::bitWidth(plan.type) / 8;
  const VectorRegisters registers = vectorRegisters(triple, spec);
  // Cortex-M FPUs and MVE have no f64 vectors; soft f64 wants few live values.
  const bool armM = triple.isARM() || triple.isThumb();
  const bool softDouble = armM && plan.type == PrimitiveType::F64;
  const unsigned lanes = !softDouble && registers.bytes >= bytes ? registers.bytes / bytes : 1;
  const bool scalar = lanes == 1;
  // Vectors of the widest width and its halves (no narrower than two lanes).
  llvm::SmallVector<unsigned, 3> vectorWidths;
  for (unsigned width = lanes; width >= 2 && vectorWidths.size() < 3; width /= 2)
    vectorWidths.push_back(width);
  const unsigned narrowest = scalar ? 1 : vectorWidths.back();
  // 16 scalar sums (4 x 4 before), 4 for software f64.
  const unsigned budget = softDouble ? 4 : scalar ? 16 : registers.count;
  // x86 folds a broadcast into the multiply-add's memory operand, RISC-V V
  // and Helium multiply by a scalar register; AArch64 takes a vector lane.
  TilingCosts costs(plan, budget, scalar, triple.isAArch64(),
                    scalar ? 1 : lhsRunSteps(plan, triple));

  const int64_t rows = std::max<int64_t>(plan.rows, 1);
  const int64_t columns = std::max<int64_t>(plan.columns, 1);
  ContractionTiling best;
  best.lanes = lanes;
  double bestCost = -1;
  // Tile widths: whole numbers of the narrowest vector up to eight of the
  // widest (a single row wants many independent sums), never wider than
  // the columns need.
  const int64_t widest =
      std::min<int64_t>(int64_t(lanes) * 8, (columns + narrowest - 1) / narrowest * narrowest);
  for (int64_t width = narrowest; width <= widest; width += narrowest) {
    TileWidths main = coverColumns(width, vectorWidths);
    if (main.size() > 8)
      continue;
    for (int64_t tileRows = std::min<int64_t>(rows, 16); tileRows >= 1; --tileRows) {
      if (!costs.fits(tileRows, main.size()))
        continue;
      // The tail: what is left of the columns, as few tiles as fit.
      auto tailFor = [&](int64_t tailRows) {
        TileWidths rest = coverColumns(columns % width, vectorWidths);
        size_t perTile = main.size();
        while (perTile > 1 && !costs.fits(tailRows, perTile))
          --perTile;
        return splitTiles(rest, std::max<size_t>(perTile, 1));
      };
      auto tail = tailFor(tileRows);
      const int64_t leftover = rows % tileRows;
      double cost = double(rows / tileRows) * costs.rowStrip(tileRows, main, columns, tail);
      if (leftover)
        cost += costs.rowStrip(leftover, main, columns, tail);
      if (bestCost < 0 || cost < bestCost) {
        bestCost = cost;
        best.rows = unsigned(tileRows);
        best.widths = main;
        best.tail = std::move(tail);
        best.leftoverRows = unsigned(leftover);
      }
    }
  }
  return best;
}

unsigned lhsRunSteps(const ContractionPlan &plan, const llvm::Triple &triple) {
  const OperandStrides &lhs = plan.operand[0];
  const unsigned steps = 16 / (hlo::bitWidth(plan.type) / 8);
  if (!triple.isAArch64() || lhs.column != 0 || lhs.row == 0 || plan.operand[1].row != 0 ||
      plan.contractingDims.empty() || lhs.contracting.back() != 1 ||
      plan.contractingDims.back() < steps)
    return 1;
  return steps;
}

bool splitsRowTiles(const ContractionPlan &plan) {
  return llvm::all_of(plan.outerDims, [](int64_t dim) { return dim == 1; });
}
int64_t rowTileCount(const ContractionPlan &plan, const ContractionTiling &tiling) {
  return (plan.rows + tiling.rows - 1) / tiling.rows;
}

void emitRowTiles(llvm::IRBuilderBase &builder, const ContractionPlan &plan,
                  const ContractionTiling &tiling, llvm::Value *begin, llvm::Value *end,
                  llvm::function_ref<void(llvm::Value *row, unsigned rows)> tile) {
  llvm::Type *indexType = begin->getType();
  auto index = [&](int64_t value) { return llvm::ConstantInt::get(indexType, value); };
  const int64_t fullTiles = plan.rows / tiling.rows;
  if (fullTiles) {
    llvm::Value *fullEnd =
        builder.CreateBinaryIntrinsic(llvm::Intrinsic::umin, end, index(fullTiles));
    llvm::Value *count = builder.CreateSelect(builder.CreateICmpULT(begin, fullEnd),
                                              builder.CreateSub(fullEnd, begin), index(0));
    emitCountedLoop(
        builder, count,
        [&](llvm::Value *t) {
          tile(emitScaledIndex(builder, builder.CreateAdd(begin, t), tiling.rows), tiling.rows);
        },
        "ir");
  }
  if (tiling.leftoverRows)
    emitIfThen(
        builder, builder.CreateICmpUGT(end, index(fullTiles)),
        [&] { tile(index(fullTiles * tiling.rows), tiling.leftoverRows); }, "rows.left");
}

PackedSchedule packedSchedule(const ContractionPlan &plan, const ContractionTiling &tiling,
                              const llvm::Triple &triple) {
  PackedSchedule schedule;
  // bfdot tiles read both operands in place (Bf16Dots.h).
  if (bf16DotsFit(plan, tiling))
    return schedule;
  const OperandStrides &rhs = plan.operand[1];
  const int64_t rowTiles = rowTileCount(plan, tiling);
  const int64_t panelColumns = tiling.tileColumns();
  const int64_t elementBytes = hlo::bitWidth(plan.rhsType) / 8;
  // 32-bit targets are microcontrollers: their products are small and their
  // stacks too small for the buffer. The k blocks' partial sums go through
  // the result. Integer kernels lay a constant rhs out at compile time
  // instead.
  if (isIntegerContraction(plan) || !triple.isArch64Bit() || tiling.lanes < 2 ||
      !splitsRowTiles(plan) || !resultHoldsSums(plan) || plan.contractingDims.size() != 1 ||
      rhs.column != 1 || rhs.row != 0 || plan.columns < panelColumns)
    return schedule;
  // Packing pays when each panel feeds many row tiles and the rhs would not
  // stay in the first-level cache anyway. Below that (the transformer
  // layer's 128-row products, MobileNetV2's 1x1 convolutions with 14 KiB of
  // weights) it measured 1-7% slower than reading the rhs in place on
  // x86-64. Where the lhs comes in runs (AArch64) a packed panel also puts
  // the vectors of a k step next to each other, so they load in pairs (ldp
  // reaches 1 KiB; the rows of a 512-wide f32 rhs are 2 KiB apart): it pays
  // from 8 row tiles (MLP 64x784-512-512-10 under qemu-aarch64: 14.7 M ->
  // 13.6 M guest instructions).
  const int64_t minRowTiles = lhsRunSteps(plan, triple) > 1 ? 8 : 32;
  constexpr int64_t kMinRhsBytes = 128 * 1024;
  if (rowTiles < minRowTiles ||
      plan.contractingDims[0] * plan.columns * elementBytes < kMinRhsBytes)
    return schedule;
  // A 24 KiB panel block: it and the tile being computed fit the
  // first-level cache (128 k steps of 48 f32 columns on AVX-512).
  constexpr int64_t kPanelBytes = 24 * 1024;
  schedule.enabled = true;
  schedule.panelColumns = panelColumns;
  const int64_t panelElementBytes = hlo::bitWidth(plan.type) / 8; // widened as packed
  schedule.kBlock =
      std::min(plan.contractingDims[0],
               std::max<int64_t>(1, kPanelBytes / (panelColumns * panelElementBytes)));
  schedule.panels = (plan.columns + panelColumns - 1) / panelColumns;
  // Chunks of up to 64 row tiles (each panel block is packed once per
  // chunk), halved until there are enough units to balance two threads.
  int64_t chunkTiles = 64;
  while (chunkTiles > 8 && schedule.panels * ((rowTiles + chunkTiles - 1) / chunkTiles) < 16)
    chunkTiles /= 2;
  schedule.chunkTiles = std::min(chunkTiles, rowTiles);
  schedule.chunks = (rowTiles + schedule.chunkTiles - 1) / schedule.chunkTiles;
  return schedule;
}

int64_t splitExtentOf(const ContractionPlan &plan, const ContractionTiling &tiling,
                      const PackedSchedule &packed) {
  if (packed.enabled)
    return packed.units();
  return splitsRowTiles(plan) ? rowTileCount(plan, tiling) : outermostExtent(plan.outerDims);
}

int64_t contractionSplitExtent(const ContractionPlan &plan, const llvm::Triple &triple,
                               const target::TargetSpec *spec) {
  const ContractionTiling tiling = chooseContractionTiling(plan, triple, spec);
  return splitExtentOf(plan, tiling, packedSchedule(plan, tiling, triple));
}

std::optional<ContractionFootprint> contractionFootprint(const ContractionPlan &plan,
                                                         const llvm::Triple &triple,
                                                         const target::TargetSpec *spec,
                                                         int64_t splits) {
  const ContractionTiling tiling = chooseContractionTiling(plan, triple, spec);
  const PackedSchedule packed = packedSchedule(plan, tiling, triple);
  if (packed.enabled)
    return std::nullopt;
  // The split direction: the row tiles, or the first outer dimension with
  // more than one index (what emitLoopNest's outer range applies to).
  const bool rowTiles = splitsRowTiles(plan);
  int64_t splitDim = -1;
  for (size_t d = 0; !rowTiles && d < plan.outerDims.size() && splitDim < 0; ++d)
    if (plan.outerDims[d] != 1)
      splitDim = int64_t(d);
  if (!rowTiles && splitDim < 0)
    return std::nullopt;
  splits = std::clamp<int64_t>(splits, 0, splitExtentOf(plan, tiling, packed));
  const int64_t rows = rowTiles ? std::min<int64_t>(splits * tiling.rows, plan.rows) : plan.rows;

  // The farthest element an array's strides reach over the covered
  // directions, and how far one step of the split direction spreads.
  struct Reach {
    int64_t last = 0, inner = 0;
    bool forward = true;
  };
  auto reachOf = [&](const OperandStrides &strides, bool contracting) {
    Reach reach{strides.base, 0, true};
    auto add = [&](int64_t extent, int64_t stride, bool split) {
      reach.forward &= stride >= 0;
      if (extent <= 0)
        return;
      reach.last += (extent - 1) * stride;
      if (!split)
        reach.inner += (extent - 1) * stride;
    };
    for (size_t d = 0; d < plan.outerDims.size(); ++d)
      add(int64_t(d) == splitDim ? splits : plan.outerDims[d], strides.outer[d],
          int64_t(d) == splitDim);
    add(rows, strides.row, rowTiles);
    add(plan.columns, strides.column, false);
    if (contracting)
      for (size_t d = 0; d < plan.contractingDims.size(); ++d)
        add(plan.contractingDims[d], strides.contracting[d], false);
    return reach;
  };
  const Reach result = reachOf(plan.result, false), lhs = reachOf(plan.operand[0], true);
  // What one step of the split writes must lie below the next step's start.
  const int64_t step = rowTiles ? plan.result.row : plan.result.outer[size_t(splitDim)];
  if (!result.forward || !lhs.forward || result.inner + 1 > step)
    return std::nullopt;
  if (splits == 0 || rows == 0)
    return ContractionFootprint{};
  return ContractionFootprint{result.last + 1, lhs.last + 1};
}

} // namespace mote::codegen
