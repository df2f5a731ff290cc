//===- PrepackedWeights.h - Constant rhs stored as the kernel reads it -*- C++ -*-===//
///
/// \file
/// Internal to code generation. A contraction's register tiles read the rhs
/// one panel at a time: the NR columns of a main tile, k step by k step.
/// Read in place from a row-major [K, N] matrix, each k step of a panel is
/// NR elements followed by a jump of N, and large products copy each panel
/// into a buffer at run time to make it one sequential run (PackedSchedule).
/// When the rhs is a constant (bound weights, folded transposes), that
/// rearrangement is done once, at compile time: the constant is stored
/// panel after panel, each panel K x NR elements with its k steps
/// contiguous, the last panel padded with zeros to NR columns, so element
/// (k, c) of the rhs sits at
///
///   (c / NR) * K * NR  +  k * NR  +  c % NR        (k row-major over the
///                                                   contracting dimensions)
///
/// and every tile streams its panel front to back with no packing at run
/// time. The kernel reads such an rhs through a plan whose rhs strides
/// describe that storage (ContractionPlan::rhsInPanels): one k step is NR
/// elements, a column is one element within its panel.
///
/// Only an rhs that is the same matrix for every row and outer index (a
/// dot's weights, a convolution's kernel without feature groups) can be
/// stored so. The sums are unchanged: only where the values are read from.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_PREPACKEDWEIGHTS_H
#define MOTE_CODEGEN_PREPACKEDWEIGHTS_H

#include "codegen/ContractionKernel.h"

#include <optional>
#include <vector>

namespace mote::codegen {

/// A constant rhs rearranged into panels, and the plan that reads it.
struct PanelledRhs {
  ContractionPlan plan; ///< `plan` with rhsInPanels and the panels' strides
  std::vector<uint8_t> bytes;
};

/// `rhs` (the constant's bytes, addressed by `plan.operand[1]`) in panels
/// for the tiles `plan` gets on this target, or nullopt when the rhs varies
/// along the rows or outer dimensions or its strides leave `rhs`.
std::optional<PanelledRhs> panelRhs(const ContractionPlan &plan, const llvm::Triple &triple,
                                    const target::TargetSpec *spec, llvm::ArrayRef<uint8_t> rhs);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_PREPACKEDWEIGHTS_H
