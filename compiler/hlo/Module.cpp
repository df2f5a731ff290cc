//===- Module.cpp - HLO modules and computations --------------------------===//

#include "hlo/Module.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

namespace mote::hlo {

Instruction *Computation::addInstruction(std::unique_ptr<Instruction> instruction) {
  Instruction *added = instruction.get();
  added->setParent(this);
  instructions_.push_back(std::move(instruction));
  if (added->opcode() == Opcode::Parameter) {
    size_t number = static_cast<size_t>(added->attributes().parameterNumber);
    if (parameters_.size() <= number)
      parameters_.resize(number + 1, nullptr);
    parameters_[number] = added;
  }
  return added;
}

void Computation::rebuildParameterList() {
  parameters_.clear();
  for (const auto &instruction : instructions_) {
    if (instruction->opcode() != Opcode::Parameter)
      continue;
    size_t number = static_cast<size_t>(instruction->attributes().parameterNumber);
    if (parameters_.size() <= number)
      parameters_.resize(number + 1, nullptr);
    parameters_[number] = instruction.get();
  }
}

Instruction *Computation::findInstruction(llvm::StringRef name) const {
  for (const auto &instruction : instructions_)
    if (instruction->name() == name)
      return instruction.get();
  return nullptr;
}

Computation *Module::addComputation(std::unique_ptr<Computation> computation) {
  Computation *added = computation.get();
  added->setParent(this);
  computations_.push_back(std::move(computation));
  return added;
}

Computation *Module::addComputationBefore(std::unique_ptr<Computation> computation,
                                          const Computation *caller) {
  Computation *added = computation.get();
  added->setParent(this);
  auto position = std::find_if(computations_.begin(), computations_.end(),
                               [&](const auto &existing) { return existing.get() == caller; });
  computations_.insert(position, std::move(computation));
  return added;
}

Computation *Module::findComputation(llvm::StringRef name) const {
  for (const auto &computation : computations_)
    if (computation->name() == name)
      return computation.get();
  return nullptr;
}

void Module::removeUnreachableComputations() {
  llvm::SmallPtrSet<const Computation *, 16> reachable;
  llvm::SmallVector<const Computation *, 16> worklist;
  if (entry_) {
    reachable.insert(entry_);
    worklist.push_back(entry_);
  }
  while (!worklist.empty()) {
    const Computation *computation = worklist.pop_back_val();
    for (const auto &instruction : computation->instructions())
      for (Computation *callee : instruction->calledComputations())
        if (callee && reachable.insert(callee).second)
          worklist.push_back(callee);
  }
  std::erase_if(computations_, [&](const std::unique_ptr<Computation> &c) {
    return !reachable.contains(c.get());
  });
}

size_t Module::instructionCount() const {
  size_t count = 0;
  for (const auto &computation : computations_)
    count += computation->instructionCount();
  return count;
}

} // namespace mote::hlo
