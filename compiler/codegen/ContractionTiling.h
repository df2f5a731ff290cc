//===- ContractionTiling.h - Register tiles for a contraction ---*- C++ -*-===//
///
/// \file
/// Internal to code generation: which register tiles ContractionKernel
/// covers a contraction's result with, and how that work is cut into the
/// ranges tasks share out (row tiles, outer rows, or packed units). A tile is a few rows, each a
/// run of vectors (of the target's widest width and the halves of it where columns run out; 1 is a
/// scalar), whose sums stay in registers for the whole contracting loop. The main tile repeats over
/// the rows and columns; the columns a whole number of main tiles leaves over get tail tiles, and
/// the rows left over one partial tile of fewer rows. Every size is known at compile time, so the
/// edges cost no run-time decisions.
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

/// The vector registers generated code may use: width in bytes (0 for
/// none) and how many. Without a target spec, the triple's baseline.
struct VectorRegisters {
  unsigned bytes = 0, count = 0;
};
VectorRegisters vectorRegisters(const llvm::Triple &triple, const target::TargetSpec *spec);

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

/// How many contracting steps a tile takes at once on `triple`, reading
/// each row's lhs values for them as one vector of consecutive k: 4 f32
/// (2 f64) on AArch64, whose multiply-add by element takes the lhs value
/// from a lane, so one load serves four steps of a row where one load a
/// step did before (XNNPACK's arm64 kernels do the same); 1 elsewhere, and
/// where the lhs is not shared by the columns or not contiguous along its
/// innermost contracting dimension. x86-64 folds a broadcast load into the
/// multiply-add, and RISC-V V and Helium multiply by a scalar register, so
/// for them a lane would cost an extra instruction.
unsigned lhsRunSteps(const ContractionPlan &plan, const llvm::Triple &triple);

/// Whether tasks share out the row tiles: there is no outer dimension of
/// size > 1 to share instead.
bool splitsRowTiles(const ContractionPlan &plan);
int64_t rowTileCount(const ContractionPlan &plan, const ContractionTiling &tiling);

/// Emits the row tiles [begin, end) of `tiling` at the builder's position:
/// `tile(firstRow, rows)` in a loop over the full tiles, then for the
/// partial tile of the rows left over, which only the range ending with the
/// last tile has.
void emitRowTiles(llvm::IRBuilderBase &builder, const ContractionPlan &plan,
                  const ContractionTiling &tiling, llvm::Value *begin, llvm::Value *end,
                  llvm::function_ref<void(llvm::Value *row, unsigned rows)> tile);

/// How a matrix product whose rhs does not vary along the rows (a dot, a
/// 1x1 convolution) is cut when its rhs is packed: the columns into panels
/// one register tile wide, the row tiles into chunks. A unit of work is one
/// panel of one chunk: for each k block it copies the panel's block of the
/// rhs into a contiguous buffer sized for the first-level cache, then runs
/// the chunk's row tiles over it. Tasks share out units rather than row
/// tiles, so each rhs block is read from memory once per chunk instead of
/// once per row tile, and a row-major rhs whose rows are a power of two
/// apart (which maps a tile's k run onto a handful of cache sets) becomes
/// one sequential run. 512^3 f32 GEMM on AVX-512: 1.33 -> 1.14 ms on one
/// thread, 0.67 -> 0.63 ms on two.
struct PackedSchedule {
  bool enabled = false;
  int64_t panelColumns = 0; ///< NR
  int64_t kBlock = 0;       ///< k steps per packed block
  int64_t chunkTiles = 0;   ///< row tiles per chunk
  int64_t panels = 0, chunks = 0;
  int64_t units() const { return panels * chunks; }
};
PackedSchedule packedSchedule(const ContractionPlan &plan, const ContractionTiling &tiling,
                              const llvm::Triple &triple);

/// The extent of the loop tasks split: packed units, else the row tiles
/// when there is no outer dimension to share, else the first outer one.
int64_t splitExtentOf(const ContractionPlan &plan, const ContractionTiling &tiling,
                      const PackedSchedule &packed);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_CONTRACTIONTILING_H
