//===- Schedule.cpp - The order instructions run in -----------------------===//
//
// A post-order from the root. Among an instruction's operands, the one whose
// subtree computes the most bytes runs first: its many temporaries die
// before the smaller subtrees start, while the values they produce wait.
// Instructions that draw from the hidden random state (rng, and whatever
// calls one) also wait for the one before them in definition order, so they
// draw in the evaluator's order.
//
//===----------------------------------------------------------------------===//

#include "passes/Schedule.h"

#include "passes/ComputationEdit.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>

namespace mote::passes {

using hlo::Computation;
using hlo::Instruction;

llvm::ArrayRef<const Instruction *> Schedule::order(const Computation *computation) const {
  auto it = orders_.find(computation);
  if (it == orders_.end())
    return {};
  return it->second;
}

void Schedule::setOrder(const Computation *computation, std::vector<const Instruction *> order) {
  orders_[computation] = std::move(order);
}

namespace {

uint64_t valueBytes(const hlo::Shape &shape) {
  llvm::SmallVector<const hlo::Shape *, 4> leaves;
  shape.collectLeaves(leaves);
  uint64_t bytes = 0;
  for (const hlo::Shape *leaf : leaves)
    bytes += arrayBytes(*leaf);
  return bytes;
}

std::vector<const Instruction *> scheduleComputation(const Computation &computation) {
  std::vector<const Instruction *> order;
  llvm::DenseSet<const Instruction *> done;
  // Parameters first, always: they exist before anything runs, used or not.
  for (const Instruction *parameter : computation.parameters())
    if (parameter && done.insert(parameter).second)
      order.push_back(parameter);
  if (!computation.root())
    return order;

  // Bytes computed by each instruction's subtree (shared operands counted
  // once per path: an estimate, only used to rank siblings). Definition
  // order is topological, so one forward sweep fills it.
  llvm::DenseMap<const Instruction *, uint64_t> weight;
  for (const auto &instruction : computation.instructions()) {
    uint64_t total = valueBytes(instruction->shape());
    for (const Instruction *operand : instruction->operands())
      total = std::min<uint64_t>(total + weight.lookup(operand), uint64_t(1) << 62);
    weight[instruction.get()] = total;
  }

  // Each live user of the random state after the previous one.
  llvm::DenseSet<const Instruction *> live;
  llvm::SmallVector<const Instruction *, 16> pending{computation.root()};
  while (!pending.empty()) {
    const Instruction *instruction = pending.pop_back_val();
    if (live.insert(instruction).second)
      for (const Instruction *operand : instruction->operands())
        pending.push_back(operand);
  }
  llvm::DenseMap<const Instruction *, const Instruction *> previousDraw;
  const Instruction *lastDraw = nullptr;
  for (const auto &instruction : computation.instructions())
    if (live.contains(instruction.get()) && usesRandomState(*instruction)) {
      if (lastDraw)
        previousDraw[instruction.get()] = lastDraw;
      lastDraw = instruction.get();
    }

  struct Frame {
    const Instruction *instruction;
    llvm::SmallVector<const Instruction *, 4> operands; ///< still to visit, last first
  };
  auto open = [&](const Instruction *instruction) {
    Frame frame{instruction, {}};
    for (const Instruction *operand : instruction->operands())
      if (!done.contains(operand) && !llvm::is_contained(frame.operands, operand))
        frame.operands.push_back(operand);
    if (const Instruction *draw = previousDraw.lookup(instruction))
      if (!done.contains(draw) && !llvm::is_contained(frame.operands, draw))
        frame.operands.push_back(draw);
    // Heaviest last in the vector: popped, so visited, first.
    std::stable_sort(frame.operands.begin(), frame.operands.end(),
                     [&](const Instruction *a, const Instruction *b) {
                       return weight.lookup(a) < weight.lookup(b);
                     });
    return frame;
  };
  llvm::DenseSet<const Instruction *> onStack;
  std::vector<Frame> stack;
  stack.push_back(open(computation.root()));
  onStack.insert(computation.root());
  while (!stack.empty()) {
    Frame &frame = stack.back();
    if (!frame.operands.empty()) {
      const Instruction *next = frame.operands.pop_back_val();
      if (done.contains(next) || onStack.contains(next))
        continue;
      onStack.insert(next);
      stack.push_back(open(next));
      continue;
    }
    done.insert(frame.instruction);
    order.push_back(frame.instruction);
    onStack.erase(frame.instruction);
    stack.pop_back();
  }
  return order;
}

} // namespace

Schedule scheduleModule(const hlo::Module &module) {
  Schedule schedule;
  for (const Computation *computation : bufferComputations(module))
    schedule.setOrder(computation, scheduleComputation(*computation));
  return schedule;
}

} // namespace mote::passes
