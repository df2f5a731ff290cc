//===- InlineCalls.cpp - Inline call and fusion instructions --------------===//
//
// Code generation sees one flat graph per buffer-owning computation; fusion
// decisions are its own, so the input's fusions are undone like calls.
//
//===----------------------------------------------------------------------===//

#include "passes/ComputationEdit.h"
#include "passes/Passes.h"

#include "hlo/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mote::passes {

using hlo::Computation;
using hlo::Instruction;
using hlo::Opcode;

namespace {

bool isInlinable(const Instruction &instruction) {
  return (instruction.opcode() == Opcode::Call || instruction.opcode() == Opcode::Fusion) &&
         instruction.calledComputations().size() == 1 && instruction.calledComputation(0);
}

/// Copies `callee`'s instructions into `caller` and returns what stands for
/// the call's result.
llvm::Expected<Instruction *> inlineCall(Computation &caller, Instruction &call, NameTable &names) {
  const Computation &callee = *call.calledComputation(0);
  if (!callee.root())
    return hlo::errorAt(call, "the called computation %" + callee.name() + " has no root");
  llvm::DenseMap<const Instruction *, Instruction *> clones;
  for (const auto &instruction : callee.instructions()) {
    if (instruction->opcode() == Opcode::Parameter) {
      int64_t number = instruction->attributes().parameterNumber;
      if (number < 0 || static_cast<size_t>(number) >= call.operandCount())
        return hlo::errorAt(call, "the called computation %" + callee.name() + " reads parameter " +
                                      llvm::Twine(number) + " but the call has " +
                                      llvm::Twine(call.operandCount()) + " operands");
      clones[instruction.get()] = call.operand(static_cast<size_t>(number));
      continue;
    }
    auto clone = std::make_unique<Instruction>(*instruction);
    clone->setName(names.unique(instruction->name()));
    for (size_t i = 0; i < clone->operandCount(); ++i) {
      auto it = clones.find(clone->operand(i));
      if (it == clones.end())
        return hlo::errorAt(*instruction, "operand %" + clone->operand(i)->name() +
                                              " is not defined before its use");
      clone->setOperand(i, it->second);
    }
    clones[instruction.get()] = caller.addInstruction(std::move(clone));
  }
  return clones.lookup(callee.root());
}

std::string uniqueComputationName(const hlo::Module &module, llvm::StringRef base) {
  for (size_t n = 1;; ++n) {
    std::string candidate = (base + ".clone" + (n > 1 ? "." + llvm::Twine(n) : "")).str();
    if (!module.findComputation(candidate))
      return candidate;
  }
}

Computation *cloneComputation(hlo::Module &module, const Computation &original, NameTable &names) {
  auto clone = std::make_unique<Computation>(uniqueComputationName(module, original.name()));
  clone->setLocation(original.location());
  clone->setHasSignature(original.hasSignature());
  llvm::DenseMap<const Instruction *, Instruction *> clones;
  for (const auto &instruction : original.instructions()) {
    auto copy = std::make_unique<Instruction>(*instruction);
    copy->setName(names.unique(instruction->name()));
    for (size_t i = 0; i < copy->operandCount(); ++i)
      if (Instruction *operand = clones.lookup(copy->operand(i)))
        copy->setOperand(i, operand);
    clones[instruction.get()] = clone->addInstruction(std::move(copy));
  }
  clone->setRoot(clones.lookup(original.root()));
  return module.addComputation(std::move(clone));
}

/// Buffer assignment gives each value one place, so a while body, condition
/// or branch must run from one site only: a computation two sites share
/// (as after inlining one callee twice) is cloned for the second site.
bool giveEachSiteItsComputations(hlo::Module &module, NameTable &names) {
  if (!module.entry())
    return false;
  bool changed = false;
  llvm::SmallPtrSet<const Computation *, 16> claimed{module.entry()};
  std::vector<Computation *> worklist{module.entry()};
  for (size_t next = 0; next < worklist.size(); ++next) {
    for (const auto &instruction : worklist[next]->instructions()) {
      if (instruction->opcode() != Opcode::While && instruction->opcode() != Opcode::Conditional)
        continue;
      for (size_t i = 0; i < instruction->calledComputations().size(); ++i) {
        Computation *callee = instruction->calledComputation(i);
        if (!callee)
          continue;
        if (!claimed.insert(callee).second) {
          callee = cloneComputation(module, *callee, names);
          instruction->setCalledComputation(i, callee);
          claimed.insert(callee);
          changed = true;
        }
        worklist.push_back(callee);
      }
    }
  }
  return changed;
}

} // namespace

llvm::Expected<bool> InlineCalls::run(hlo::Module &module) {
  NameTable names(module);
  bool changed = false;
  std::vector<Computation *> computations;
  for (const auto &computation : module.computations())
    computations.push_back(computation.get());

  for (Computation *computation : computations) {
    // Inlined bodies may hold calls themselves: repeat until none are left.
    // The verifier rejects recursive calls, so this ends.
    for (;;) {
      std::vector<Instruction *> calls;
      for (const auto &instruction : computation->instructions())
        if (isInlinable(*instruction))
          calls.push_back(instruction.get());
      if (calls.empty())
        break;
      llvm::SmallPtrSet<const Instruction *, 8> inlined;
      for (Instruction *call : calls) {
        llvm::Expected<Instruction *> result = inlineCall(*computation, *call, names);
        if (!result)
          return result.takeError();
        replaceAllUses(*computation, call, *result);
        inlined.insert(call);
      }
      computation->removeInstructionsIf(
          [&](const Instruction &instruction) { return inlined.contains(&instruction); });
      changed = true;
    }
    if (changed)
      restoreDefinitionOrder(*computation);
  }
  if (changed)
    module.removeUnreachableComputations();
  changed |= giveEachSiteItsComputations(module, names);
  return changed;
}

} // namespace mote::passes
