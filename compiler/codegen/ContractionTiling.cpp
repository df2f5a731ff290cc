//===- ContractionTiling.cpp - Register tiles for a contraction -----------===//

#include "codegen/ContractionTiling.h"

#include <numeric>

namespace mote::codegen {

using hlo::PrimitiveType;

namespace {

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
  if (triple.isRISCV() && has("v")) {
    // V promises 128-bit registers; zvl<N>b promises N bits.
    for (unsigned bits : {1024u, 512u, 256u})
      if (has(("zvl" + llvm::Twine(bits) + "b").str()))
        return {bits / 8, 32};
    return {16, 32};
  }
  if ((triple.isARM() || triple.isThumb()) && has("mve.fp"))
    return {16, 8};
  return {0, 32};
}

int64_t sum(llvm::ArrayRef<unsigned> widths) {
  return std::accumulate(widths.begin(), widths.end(), int64_t(0));
}

/// What the cost model needs to know of a plan and a target.
class TilingCosts {
public:
  TilingCosts(const ContractionPlan &plan, unsigned registers, bool scalar,
              bool rowValuesInVectorRegisters)
      : plan_(plan), registers_(registers), scalar_(scalar),
        rowValuesInVectorRegisters_(rowValuesInVectorRegisters) {
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
    return sums + int64_t(segments) + shared + (plan_.fused ? 0 : 1) <= int64_t(registers_);
  }

  /// Cycles of one tile: per contracting step its multiply-adds and loads
  /// at two a cycle but no faster than a multiply-add's latency, plus
  /// starting and storing its sums.
  double tile(int64_t rows, llvm::ArrayRef<unsigned> widths) const {
    const double vectors = double(widths.size());
    const Loads lhs = operandLoads(plan_.operand[0], rows, widths);
    const Loads rhs = operandLoads(plan_.operand[1], rows, widths);
    const double loads = lhs.count + rhs.count;
    // Between tiles that keep the ports equally busy, the one reading fewer
    // bytes per step wins (measured on a 512^3 GEMM with AVX-512: 14 x 2
    // vectors and 8 x 3 beat 7 x 3, 6 x 4 and 4 x 6, in that order).
    const double step = std::max({rows * vectors / 2, loads / 2, kLatency}) +
                        kCyclesPerByte * (lhs.bytes + rhs.bytes);
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
    const double elementBytes = double(hlo::bitWidth(plan_.type) / 8);
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
  const ContractionPlan &plan_;
  unsigned registers_;
  bool scalar_;
  bool rowValuesInVectorRegisters_;
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
  TilingCosts costs(plan, budget, scalar, triple.isAArch64());

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

} // namespace mote::codegen
