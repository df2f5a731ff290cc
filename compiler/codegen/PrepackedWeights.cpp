//===- PrepackedWeights.cpp - Constant rhs stored as the kernel reads it --===//

#include "codegen/PrepackedWeights.h"

#include "codegen/ContractionTiling.h"
#include "codegen/IntegerContraction.h"

#include <cstring>

namespace mote::codegen {

std::optional<PanelledRhs> panelRhs(const ContractionPlan &plan, const llvm::Triple &triple,
                                    const target::TargetSpec *spec, llvm::ArrayRef<uint8_t> rhs) {
  const OperandStrides &source = plan.operand[1];
  // Integer kernels lay out their constant rhs themselves (rhsValues).
  if (isIntegerContraction(plan) || plan.rhsInPanels || source.row != 0 || source.column == 0 ||
      plan.columns <= 0 || plan.rows <= 0 ||
      llvm::any_of(source.outer, [](int64_t s) { return s != 0; }))
    return std::nullopt;
  int64_t steps = 1;
  for (int64_t dim : plan.contractingDims)
    steps *= dim;
  if (steps <= 0)
    return std::nullopt;

  // The panels' view: contiguous along the columns, the same for every row.
  // The tile shape depends only on that (not on the k strides), so the
  // kernel, given this plan, picks the tiles the panels were cut for.
  PanelledRhs panelled;
  panelled.plan = plan;
  panelled.plan.rhsInPanels = true;
  OperandStrides &view = panelled.plan.operand[1];
  view.base = 0;
  view.column = 1;
  const int64_t width = chooseContractionTiling(panelled.plan, triple, spec).tileColumns();
  llvm::SmallVector<int64_t, 4> stepStrides = rowMajorStrides(plan.contractingDims);
  for (size_t d = 0; d < stepStrides.size(); ++d)
    view.contracting[d] = stepStrides[d] * width;

  // The rhs as stored: f16/bf16 panels stay half and widen as the kernel
  // loads them, like any half rhs it reads in place.
  const int64_t elementBytes = hlo::bitWidth(plan.rhsType) / 8;
  const int64_t panels = (plan.columns + width - 1) / width;
  panelled.bytes.assign(size_t(panels * steps * width * elementBytes), 0);
  // Walk every k step of every column once; each read is checked against
  // the constant's size (the strides come from the plan, not the bytes).
  llvm::SmallVector<int64_t, 4> k(plan.contractingDims.size(), 0);
  for (int64_t step = 0; step < steps; ++step) {
    int64_t kOffset = source.base;
    for (size_t d = 0; d < k.size(); ++d)
      kOffset += k[d] * source.contracting[d];
    for (int64_t column = 0; column < plan.columns; ++column) {
      const int64_t from = kOffset + column * source.column;
      if (from < 0 || (from + 1) * elementBytes > int64_t(rhs.size()))
        return std::nullopt;
      const int64_t to = (column / width) * steps * width + step * width + column % width;
      std::memcpy(panelled.bytes.data() + to * elementBytes, rhs.data() + from * elementBytes,
                  size_t(elementBytes));
    }
    for (size_t d = k.size(); d-- > 0;) { // row-major increment
      if (++k[d] < plan.contractingDims[d])
        break;
      k[d] = 0;
    }
  }
  return panelled;
}

} // namespace mote::codegen
