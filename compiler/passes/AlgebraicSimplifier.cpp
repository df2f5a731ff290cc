//===- AlgebraicSimplifier.cpp - Remove operations that do nothing --------===//
//
// Only rewrites that are exact for every input (NaN, -0 and out-of-range
// dynamic indices included: those clamp to 0 when the slice covers the whole
// operand). An instruction is replaced only by a value of identical shape,
// layout included, so a bitcast user never reads different bytes.
//
//===----------------------------------------------------------------------===//

#include "passes/ComputationEdit.h"
#include "passes/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mote::passes {

using hlo::Instruction;
using hlo::Opcode;

namespace {

bool isIdentityPermutation(llvm::ArrayRef<int64_t> dims) {
  for (auto [i, d] : llvm::enumerate(dims))
    if (d != static_cast<int64_t>(i))
      return false;
  return true;
}

/// What `instruction` is the same value as, or null.
Instruction *identityOf(Instruction &instruction) {
  const auto &attributes = instruction.attributes();
  auto operand = [&](size_t i) { return instruction.operand(i); };
  switch (instruction.opcode()) {
  case Opcode::Reshape:
  case Opcode::Bitcast:
  case Opcode::Convert:
  case Opcode::Copy:
    return operand(0);
  case Opcode::Transpose:
    return isIdentityPermutation(attributes.dimensions) ? operand(0) : nullptr;
  case Opcode::Broadcast:
    return operand(0)->shape().rank() == instruction.shape().rank() &&
                   isIdentityPermutation(attributes.dimensions)
               ? operand(0)
               : nullptr;
  case Opcode::Slice:
    for (auto [i, slice] : llvm::enumerate(attributes.slice))
      if (slice.start != 0 || slice.stride != 1 ||
          slice.limit != operand(0)->shape().dim(static_cast<int64_t>(i)))
        return nullptr;
    return operand(0);
  case Opcode::Pad:
    for (const hlo::PaddingDimension &padding : attributes.padding)
      if (padding.low != 0 || padding.high != 0 || padding.interior != 0)
        return nullptr;
    return operand(0);
  case Opcode::Concatenate:
    return instruction.operandCount() == 1 ? operand(0) : nullptr;
  case Opcode::Reverse:
    for (int64_t d : attributes.dimensions)
      if (d < 0 || d >= operand(0)->shape().rank() || operand(0)->shape().dim(d) > 1)
        return nullptr;
    return operand(0);
  case Opcode::DynamicSlice:
    return llvm::ArrayRef<int64_t>(attributes.dynamicSliceSizes) == operand(0)->shape().dims()
               ? operand(0)
               : nullptr;
  case Opcode::DynamicUpdateSlice:
    return instruction.operandCount() >= 2 &&
                   operand(1)->shape().dims() == operand(0)->shape().dims()
               ? operand(1)
               : nullptr;
  case Opcode::GetTupleElement: {
    Instruction *tuple = operand(0);
    size_t index = static_cast<size_t>(attributes.tupleIndex);
    return tuple->opcode() == Opcode::Tuple && index < tuple->operandCount() ? tuple->operand(index)
                                                                             : nullptr;
  }
  case Opcode::Select:
    return instruction.operandCount() == 3 && operand(1) == operand(2) ? operand(1) : nullptr;
  case Opcode::Tuple: {
    // tuple(gte(x, 0), ..., gte(x, n-1)) is x.
    if (instruction.operandCount() == 0)
      return nullptr;
    Instruction *source = nullptr;
    for (auto [i, element] : llvm::enumerate(instruction.operands())) {
      if (element->opcode() != Opcode::GetTupleElement ||
          element->attributes().tupleIndex != static_cast<int64_t>(i))
        return nullptr;
      if (source && element->operand(0) != source)
        return nullptr;
      source = element->operand(0);
    }
    return source->shape().isTuple() && source->shape().tupleSize() == instruction.operandCount()
               ? source
               : nullptr;
  }
  default:
    return nullptr;
  }
}

/// Merges `instruction` with a producer of the same kind; true if it did.
bool mergeWithOperand(Instruction &instruction) {
  if (instruction.operandCount() != 1)
    return false;
  Instruction &inner = *instruction.operand(0);
  if (inner.opcode() != instruction.opcode())
    return false;
  auto &attributes = instruction.mutableAttributes();
  switch (instruction.opcode()) {
  case Opcode::Reshape:
  case Opcode::Bitcast: // reinterpreting twice reinterprets once
    instruction.setOperand(0, inner.operand(0));
    return true;
  case Opcode::Transpose: {
    // outer[i] = inner dim outer_perm[i] = source dim inner_perm[outer_perm[i]].
    hlo::DimVector composed;
    for (int64_t d : attributes.dimensions)
      composed.push_back(inner.attributes().dimensions[d]);
    attributes.dimensions = composed;
    instruction.setOperand(0, inner.operand(0));
    return true;
  }
  case Opcode::Broadcast: {
    // Source dim i lands in inner dim inner_dims[i], then outer_dims[that].
    hlo::DimVector composed;
    for (int64_t d : inner.attributes().dimensions)
      composed.push_back(attributes.dimensions[d]);
    attributes.dimensions = composed;
    instruction.setOperand(0, inner.operand(0));
    return true;
  }
  default:
    return false;
  }
}

bool simplify(hlo::Computation &computation) {
  bool changed = false;
  // Instructions nothing uses are left for DCE; rewriting them changes nothing.
  llvm::DenseSet<const Instruction *> used{computation.root()};
  for (const auto &owned : computation.instructions())
    used.insert(owned->operands().begin(), owned->operands().end());
  llvm::DenseMap<const Instruction *, Instruction *> replacement;
  for (const auto &owned : computation.instructions()) {
    Instruction &instruction = *owned;
    if (!used.contains(&instruction))
      continue;
    for (size_t i = 0; i < instruction.operandCount(); ++i)
      if (Instruction *value = replacement.lookup(instruction.operand(i)))
        instruction.setOperand(i, value);
    changed |= mergeWithOperand(instruction);
    Instruction *same = identityOf(instruction);
    if (same && same != &instruction && identicalShapes(same->shape(), instruction.shape())) {
      replacement[&instruction] = same;
      changed = true;
    }
  }
  if (Instruction *value = replacement.lookup(computation.root()))
    computation.setRoot(value);
  return changed;
}

} // namespace

llvm::Expected<bool> AlgebraicSimplifier::run(hlo::Module &module) {
  bool changed = false;
  for (const auto &computation : module.computations()) {
    // Each sweep sees operands already simplified; a few sweeps reach the
    // fixed point on anything real, the bound guards against surprises.
    for (int sweep = 0; sweep < 8 && simplify(*computation); ++sweep)
      changed = true;
  }
  return changed;
}

} // namespace mote::passes
