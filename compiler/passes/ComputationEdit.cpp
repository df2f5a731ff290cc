//===- ComputationEdit.cpp - Small edits passes make to computations ------===//

#include "passes/ComputationEdit.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

namespace mote::passes {

using hlo::Computation;
using hlo::Instruction;
using hlo::Opcode;

void replaceAllUses(Computation &computation, const Instruction *from, Instruction *to) {
  for (const auto &instruction : computation.instructions())
    for (size_t i = 0; i < instruction->operandCount(); ++i)
      if (instruction->operand(i) == from)
        instruction->setOperand(i, to);
  if (computation.root() == from)
    computation.setRoot(to);
}

void restoreDefinitionOrder(Computation &computation) {
  const auto &instructions = computation.instructions();
  llvm::DenseMap<const Instruction *, size_t> position;
  bool ordered = true;
  for (size_t i = 0; i < instructions.size(); ++i)
    position[instructions[i].get()] = i;
  for (size_t i = 0; i < instructions.size() && ordered; ++i)
    for (const Instruction *operand : instructions[i]->operands()) {
      auto it = position.find(operand);
      if (it != position.end() && it->second >= i) {
        ordered = false;
        break;
      }
    }
  if (ordered)
    return;

  // Post-order over operands, visiting instructions in their current order:
  // an instruction moves only as far forward as its operands force it.
  std::vector<size_t> order;
  order.reserve(instructions.size());
  std::vector<uint8_t> state(instructions.size(), 0); // 0 new, 1 open, 2 done
  std::vector<std::pair<size_t, size_t>> stack;
  for (size_t start = 0; start < instructions.size(); ++start) {
    if (state[start])
      continue;
    stack.push_back({start, 0});
    state[start] = 1;
    while (!stack.empty()) {
      auto &[index, next] = stack.back();
      const Instruction &instruction = *instructions[index];
      if (next < instruction.operandCount()) {
        auto it = position.find(instruction.operand(next++));
        if (it != position.end() && state[it->second] == 0) {
          state[it->second] = 1;
          stack.push_back({it->second, 0});
        }
        continue;
      }
      state[index] = 2;
      order.push_back(index);
      stack.pop_back();
    }
  }

  // Computation offers no way to reorder; permuting the owning vector keeps
  // every Instruction where it is, so pointers held by passes stay valid.
  auto &owned = const_cast<std::vector<std::unique_ptr<Instruction>> &>(instructions);
  std::vector<std::unique_ptr<Instruction>> reordered;
  reordered.reserve(owned.size());
  for (size_t index : order)
    reordered.push_back(std::move(owned[index]));
  owned = std::move(reordered);
}

NameTable::NameTable(const hlo::Module &module) {
  for (const auto &computation : module.computations())
    for (const auto &instruction : computation->instructions())
      used_.insert(instruction->name());
}

std::string NameTable::unique(llvm::StringRef base) {
  if (used_.insert(base).second)
    return base.str();
  for (size_t n = 1;; ++n) {
    std::string candidate = (base + "." + llvm::Twine(n)).str();
    if (used_.insert(candidate).second)
      return candidate;
  }
}

std::unique_ptr<Instruction> makeInstruction(Opcode opcode, std::string name, hlo::Shape shape,
                                             llvm::ArrayRef<Instruction *> operands) {
  auto instruction = std::make_unique<Instruction>(opcode, std::move(name), std::move(shape));
  for (Instruction *operand : operands)
    instruction->addOperand(operand);
  return instruction;
}

bool callsAsScalarCode(const Instruction &user, size_t index) {
  switch (user.opcode()) {
  case Opcode::While:
  case Opcode::Conditional:
  case Opcode::Call:
    return false;
  default:
    return true;
  }
}

std::vector<const Computation *> bufferComputations(const hlo::Module &module) {
  std::vector<const Computation *> result;
  if (!module.entry())
    return result;
  llvm::SmallPtrSet<const Computation *, 16> seen;
  result.push_back(module.entry());
  seen.insert(module.entry());
  for (size_t next = 0; next < result.size(); ++next)
    for (const auto &instruction : result[next]->instructions())
      for (auto [index, callee] : llvm::enumerate(instruction->calledComputations()))
        if (callee && !callsAsScalarCode(*instruction, index) && seen.insert(callee).second)
          result.push_back(callee);
  return result;
}

namespace {

bool reachesRandomState(const Computation &computation,
                        llvm::SmallPtrSetImpl<const Computation *> &visited) {
  if (!visited.insert(&computation).second)
    return false; // already looked at (or a malformed cycle)
  for (const auto &instruction : computation.instructions()) {
    if (instruction->opcode() == Opcode::Rng ||
        instruction->opcode() == Opcode::RngGetAndUpdateState)
      return true;
    for (const Computation *callee : instruction->calledComputations())
      if (callee && reachesRandomState(*callee, visited))
        return true;
  }
  return false;
}

} // namespace

bool usesRandomState(const Instruction &instruction) {
  if (instruction.opcode() == Opcode::Rng || instruction.opcode() == Opcode::RngGetAndUpdateState)
    return true;
  llvm::SmallPtrSet<const Computation *, 8> visited;
  for (const Computation *callee : instruction.calledComputations())
    if (callee && reachesRandomState(*callee, visited))
      return true;
  return false;
}

bool identicalShapes(const hlo::Shape &a, const hlo::Shape &b) {
  if (!a.compatible(b))
    return false;
  if (a.isTuple()) {
    for (size_t i = 0; i < a.tupleSize(); ++i)
      if (!identicalShapes(a.tupleElement(i), b.tupleElement(i)))
        return false;
    return true;
  }
  if (!a.isArray())
    return true;
  return a.layoutOrDefault().minorToMajor == b.layoutOrDefault().minorToMajor;
}

uint64_t arrayBytes(const hlo::Shape &shape) {
  if (!shape.isArray())
    return 0;
  return static_cast<uint64_t>(shape.elementCount()) *
         static_cast<uint64_t>(hlo::storageBytes(shape.elementType()));
}

llvm::SmallVector<int64_t, 4> majorToMinor(const hlo::Shape &shape) {
  hlo::Layout layout = shape.layoutOrDefault();
  llvm::SmallVector<int64_t, 4> order(layout.minorToMajor.rbegin(), layout.minorToMajor.rend());
  return order;
}

} // namespace mote::passes
