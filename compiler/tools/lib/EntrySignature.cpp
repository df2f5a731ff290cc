//===- EntrySignature.cpp - Named leaves of parameters and results --------===//

#include "EntrySignature.h"

namespace mote::tools {

using hlo::Instruction;
using hlo::Shape;

static std::string indexSuffix(llvm::ArrayRef<int64_t> index) {
  if (index.empty())
    return "";
  std::string text = "{";
  for (size_t i = 0; i < index.size(); ++i)
    text += (i ? "," : "") + std::to_string(index[i]);
  return text + "}";
}

/// Leaves of `shape` named after `base` plus their tuple index.
static void collectIndexed(const Shape &shape, const std::string &base,
                           llvm::SmallVectorImpl<int64_t> &index, std::vector<NamedLeaf> &out) {
  if (!shape.isTuple()) {
    out.push_back({base + indexSuffix(index), shape});
    return;
  }
  for (size_t i = 0; i < shape.tupleSize(); ++i) {
    index.push_back(static_cast<int64_t>(i));
    collectIndexed(shape.tupleElement(i), base, index, out);
    index.pop_back();
  }
}

/// Looks through `tuple` instructions so a leaf is named by what computes it.
static void collectThroughTuples(const Instruction &instruction, std::vector<NamedLeaf> &out) {
  if (instruction.opcode() == hlo::Opcode::Tuple &&
      instruction.operandCount() == instruction.shape().tupleSize()) {
    for (const Instruction *operand : instruction.operands())
      if (operand)
        collectThroughTuples(*operand, out);
    return;
  }
  llvm::SmallVector<int64_t, 4> index;
  collectIndexed(instruction.shape(), "%" + instruction.name().str(), index, out);
}

std::vector<NamedLeaf> parameterLeaves(const hlo::Computation &computation) {
  std::vector<NamedLeaf> out;
  for (const Instruction *parameter : computation.parameters()) {
    if (!parameter)
      continue;
    llvm::SmallVector<int64_t, 4> index;
    collectIndexed(parameter->shape(), "%" + parameter->name().str(), index, out);
  }
  return out;
}

std::vector<NamedLeaf> resultLeaves(const hlo::Computation &computation) {
  std::vector<NamedLeaf> out;
  if (computation.root())
    collectThroughTuples(*computation.root(), out);
  return out;
}

} // namespace mote::tools
