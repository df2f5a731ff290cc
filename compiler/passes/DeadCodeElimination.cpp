//===- DeadCodeElimination.cpp - Drop what the root does not need ---------===//

#include "passes/Passes.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace mote::passes {

using hlo::Instruction;

llvm::Expected<bool> DeadCodeElimination::run(hlo::Module &module) {
  bool changed = false;
  for (const auto &computation : module.computations()) {
    if (!computation->root())
      continue;
    llvm::SmallPtrSet<const Instruction *, 32> live;
    llvm::SmallVector<const Instruction *, 64> worklist{computation->root()};
    live.insert(computation->root());
    while (!worklist.empty()) {
      const Instruction *instruction = worklist.pop_back_val();
      for (const Instruction *operand : instruction->operands())
        if (live.insert(operand).second)
          worklist.push_back(operand);
    }
    // Parameters stay: they are the computation's signature.
    auto dead = [&](const Instruction &instruction) {
      return instruction.opcode() != hlo::Opcode::Parameter && !live.contains(&instruction);
    };
    size_t before = computation->instructionCount();
    computation->removeInstructionsIf(dead);
    changed |= computation->instructionCount() != before;
  }
  size_t computationsBefore = module.computations().size();
  module.removeUnreachableComputations();
  changed |= module.computations().size() != computationsBefore;
  return changed;
}

} // namespace mote::passes
