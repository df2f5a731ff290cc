//===- IntegerRhsPacking.h - Constant rhs laid out for grouped forms -*- C++ -*-===//
///
/// \file
/// Internal to the integer contraction kernel (IntegerContraction.h).
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_INTEGERRHSPACKING_H
#define MOTE_CODEGEN_INTEGERRHSPACKING_H

#include "codegen/ContractionTiling.h"

#include "llvm/IR/Module.h"

namespace mote::codegen {

/// A constant rhs laid out for a grouped form (IntegerRhsPacking.cpp says
/// how): the values, in the rhs's element type, and where the lhs is
/// adjusted, the s32 sums each column starts from.
struct PackedIntegerRhs {
  llvm::GlobalVariable *values = nullptr;
  /// One per column (a constant, or the plan's columnStarts), or null: zeros.
  llvm::Value *initialSums = nullptr;
  int64_t steps = 0;  ///< outer contracting indices x groups
  int64_t groups = 0; ///< groups per innermost contracting run
};

/// Packs `plan.rhsValues` for steps of `group` values, the panels following
/// `tiling`; `lhsOffset` is IntegerDotStep::lhsOffset().
PackedIntegerRhs packIntegerRhs(llvm::Module &module, const ContractionPlan &plan,
                                const ContractionTiling &tiling, unsigned group, int lhsOffset);

/// The s32 sums each column starts from: `plan.columnBias`, less
/// `lhsOffset` times the column's sum of rhs values (`columnSums`, empty
/// when there is no offset); null when all are zero.
llvm::GlobalVariable *initialSums(llvm::Module &module, const ContractionPlan &plan, int lhsOffset,
                                  llvm::ArrayRef<int64_t> columnSums);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_INTEGERRHSPACKING_H
