//===- ContractionTiling.h - Register tiles for a contraction ---*- C++ -*-===//
///
/// \file
/// Internal to code generation: which register tiles ContractionKernel
/// covers a contraction's result with. A tile is a few rows, each a run of
/// vectors (of the target's widest width and the halves of it where columns
/// run out; 1 is a scalar), whose sums stay in registers for the whole
/// contracting loop. The main tile repeats over the rows and columns; the
/// columns a whole number of main tiles leaves over get tail tiles, and the
/// rows left over one partial tile of fewer rows. Every size is known at
/// compile time, so the edges cost no run-time decisions.
///
/// The main tile is the cheapest by a small cost model: per contracting
/// step a tile issues one multiply-add per vector of sums and one load per
/// operand value it needs, two of each a cycle, and no fewer cycles than the
/// latency of a multiply-add, since every sum depends on its previous step;
/// between equals, the tile that reads fewer bytes.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_CONTRACTIONTILING_H
#define MOTE_CODEGEN_CONTRACTIONTILING_H

#include "codegen/ContractionKernel.h"

#include "llvm/ADT/SmallVector.h"

namespace mote::codegen {

/// The widths (elements) of the vectors along one tile row, left to right.
using TileWidths = llvm::SmallVector<unsigned, 8>;

/// How a contraction's result is covered by register tiles.
struct ContractionTiling {
  unsigned rows = 1;  ///< rows of the main tile (MR)
  TileWidths widths;  ///< the main tile's vectors (NR = their sum)
  unsigned lanes = 1; ///< the widest vector, in elements (1: scalars only)
  /// Tiles covering the `columns % NR` columns after the last main tile,
  /// left to right (empty when NR divides the columns).
  llvm::SmallVector<TileWidths, 2> tail;
  unsigned leftoverRows = 0; ///< rows % MR: one last partial row tile

  int64_t tileColumns() const;
  int64_t tailColumns() const;
};

/// The tiling of `plan` for the target (`spec` may be null: the triple's
/// baseline registers).
ContractionTiling chooseContractionTiling(const ContractionPlan &plan, const llvm::Triple &triple,
                                          const target::TargetSpec *spec);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_CONTRACTIONTILING_H
