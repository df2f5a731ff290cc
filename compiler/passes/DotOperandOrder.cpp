//===- DotOperandOrder.cpp - Put a dot's rhs in the order kernels read -----===//
//
// The tiled dot kernel loads a vector of rhs elements along the result's
// columns (the rhs free dimensions) for every contracting index; an rhs whose
// free dimension is not its innermost is gathered element by element instead,
// an order of magnitude slower (attention's Q.K^T reads K this way). Such an
// rhs is transposed once into [batch..., contracting..., free...] order, a
// copy the size of the rhs (folded at compile time when the rhs is a
// constant, as weights are). The dot's dimension numbers follow; its result
// and the products it sums are unchanged.
//
//===----------------------------------------------------------------------===//

#include "passes/ComputationEdit.h"
#include "passes/ContractionTypes.h"
#include "passes/Passes.h"

#include <algorithm>

namespace mote::passes {

using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;

namespace {

/// The rhs dimension order the kernel wants: batch, contracting, then free
/// dimensions in their order. Empty when the rhs is fine as it is.
hlo::DimVector wantedRhsOrder(const Instruction &dot) {
  const hlo::Shape &rhs = dot.operand(1)->shape();
  if (!rhs.isArray() || !dot.shape().isArray() || !dot.operand(0)->shape().isArray() ||
      !isTiledContractionType(dot.shape().elementType(), dot.operand(0)->shape().elementType(),
                              rhs.elementType()))
    return {};
  const hlo::DotDimensionNumbers &numbers = dot.attributes().dotDimensions;
  hlo::DimVector order(numbers.rhsBatchDimensions.begin(), numbers.rhsBatchDimensions.end());
  order.append(numbers.rhsContractingDimensions.begin(), numbers.rhsContractingDimensions.end());
  bool hasFree = false;
  for (int64_t d = 0; d < rhs.rank(); ++d)
    if (!llvm::is_contained(order, d)) {
      order.push_back(d);
      hasFree = true;
    }
  // Without a free dimension the rhs does not move along the columns; with
  // the last free dimension innermost it is read as vectors already.
  if (!hasFree || static_cast<int64_t>(order.size()) != rhs.rank())
    return {};
  int64_t lastFree = order.back();
  if (lastFree == rhs.rank() - 1 || rhs.dim(lastFree) == 1)
    return {};
  return order;
}

} // namespace

llvm::Expected<bool> DotOperandOrder::run(hlo::Module &module) {
  NameTable names(module);
  bool changed = false;
  for (const auto &computation : module.computations()) {
    std::vector<Instruction *> dots;
    for (const auto &instruction : computation->instructions())
      if (instruction->opcode() == Opcode::Dot && instruction->operandCount() == 2 &&
          !wantedRhsOrder(*instruction).empty())
        dots.push_back(instruction.get());
    for (Instruction *dot : dots) {
      hlo::DimVector order = wantedRhsOrder(*dot);
      Instruction *rhs = dot->operand(1);
      llvm::SmallVector<int64_t, 4> dims;
      for (int64_t d : order)
        dims.push_back(rhs->shape().dim(d));
      auto transpose =
          makeInstruction(Opcode::Transpose, names.unique(rhs->name().str() + ".ordered"),
                          hlo::Shape::array(rhs->shape().elementType(), dims), {rhs});
      transpose->mutableAttributes().dimensions = order;
      transpose->mutableAttributes().hasDimensions = true;
      transpose->setLocation(dot->location());
      dot->setOperand(1, computation->addInstruction(std::move(transpose)));
      // Dimension d of the old rhs is dimension position(d) of the new one.
      hlo::DotDimensionNumbers &numbers = dot->mutableAttributes().dotDimensions;
      auto renumber = [&](hlo::DimVector &list) {
        for (int64_t &d : list)
          d = std::find(order.begin(), order.end(), d) - order.begin();
      };
      renumber(numbers.rhsBatchDimensions);
      renumber(numbers.rhsContractingDimensions);
    }
    if (!dots.empty()) {
      restoreDefinitionOrder(*computation);
      changed = true;
    }
  }
  return changed;
}

} // namespace mote::passes
