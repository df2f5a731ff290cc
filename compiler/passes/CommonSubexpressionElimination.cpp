//===- CommonSubexpressionElimination.cpp - Merge equal instructions ------===//
//
// Two instructions are equal when their text without name and raw attributes
// is equal: the printer writes every typed attribute, operands by name (after
// earlier merges, so equal operands print equally) and called computations by
// name. Raw attributes (metadata, sharding, ...) do not change single-device
// semantics. Constants compare by value instead of by their (long) text.
//
//===----------------------------------------------------------------------===//

#include "passes/ComputationEdit.h"
#include "passes/Passes.h"

#include "hlo/Printer.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringMap.h"

namespace mote::passes {

using hlo::Instruction;
using hlo::Opcode;

namespace {

bool mayMerge(const Instruction &instruction) {
  if (usesRandomState(instruction)) // two draws are two different values
    return false;
  switch (instruction.opcode()) {
  case Opcode::Parameter:
  case Opcode::Rng:                  // nondeterministic
  case Opcode::RngGetAndUpdateState: // advances hidden state
  case Opcode::CustomCall:           // may have effects we cannot see
  case Opcode::AfterAll:
  case Opcode::AddDependency:
    return false;
  case Opcode::Constant:
    return instruction.constantValue() != nullptr;
  default:
    return !hlo::isMultiDevice(instruction.opcode());
  }
}

std::string keyOf(const Instruction &instruction) {
  Instruction copy(instruction);
  copy.setName("");
  copy.mutableAttributes().raw.clear();
  return hlo::printInstruction(copy);
}

struct ConstantTable {
  llvm::DenseMap<llvm::hash_code, llvm::SmallVector<Instruction *, 1>> byHash;

  /// An earlier constant with the same shape and value, or null after recording `constant`.
  Instruction *findOrAdd(Instruction *constant) {
    const hlo::Literal &literal = *constant->attributes().literal;
    llvm::hash_code hash = llvm::hash_combine(
        constant->shape().toString(false),
        llvm::hash_combine_range(literal.bytes().begin(), literal.bytes().end()));
    auto &candidates = byHash[hash];
    for (Instruction *candidate : candidates)
      if (identicalShapes(candidate->shape(), constant->shape()) &&
          candidate->attributes().literal->bitwiseEqual(literal))
        return candidate;
    candidates.push_back(constant);
    return nullptr;
  }
};

} // namespace

llvm::Expected<bool> CommonSubexpressionElimination::run(hlo::Module &module) {
  bool changed = false;
  for (const auto &computation : module.computations()) {
    llvm::DenseMap<const Instruction *, Instruction *> replacement;
    llvm::StringMap<Instruction *> seen;
    ConstantTable constants;
    for (const auto &owned : computation->instructions()) {
      Instruction *instruction = owned.get();
      for (size_t i = 0; i < instruction->operandCount(); ++i)
        if (Instruction *merged = replacement.lookup(instruction->operand(i)))
          instruction->setOperand(i, merged);
      if (!mayMerge(*instruction))
        continue;
      Instruction *earlier = nullptr;
      if (instruction->opcode() == Opcode::Constant) {
        earlier = constants.findOrAdd(instruction);
      } else {
        auto [it, inserted] = seen.try_emplace(keyOf(*instruction), instruction);
        if (!inserted)
          earlier = it->second;
      }
      if (earlier && identicalShapes(earlier->shape(), instruction->shape()))
        replacement[instruction] = earlier;
    }
    if (replacement.empty())
      continue;
    if (Instruction *merged = replacement.lookup(computation->root()))
      computation->setRoot(merged);
    computation->removeInstructionsIf(
        [&](const Instruction &instruction) { return replacement.count(&instruction); });
    changed = true;
  }
  return changed;
}

} // namespace mote::passes
