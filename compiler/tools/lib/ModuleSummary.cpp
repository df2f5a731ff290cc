//===- ModuleSummary.cpp - One-screen description of a module -------------===//

#include "ModuleSummary.h"

#include "EntrySignature.h"

#include "eval/Evaluator.h"
#include "hlo/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace mote::tools {

using hlo::Opcode;

/// Opcodes shown by count; the rest are summed up as "N more".
static constexpr size_t kTopOpcodes = 8;
/// Leaves listed per signature side before "... and N more".
static constexpr size_t kMaxLeavesListed = 12;

static void printOpcodes(const hlo::Module &module, llvm::raw_ostream &os) {
  llvm::DenseMap<unsigned, size_t> counts;
  for (const auto &computation : module.computations())
    for (const auto &instruction : computation->instructions())
      ++counts[static_cast<unsigned>(instruction->opcode())];
  std::vector<std::pair<Opcode, size_t>> sorted;
  for (const auto &[opcode, count] : counts)
    sorted.push_back({static_cast<Opcode>(opcode), count});
  std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) {
    return a.second != b.second ? a.second > b.second
                                : hlo::opcodeName(a.first) < hlo::opcodeName(b.first);
  });
  os << "  opcodes:      ";
  for (size_t i = 0; i < sorted.size() && i < kTopOpcodes; ++i)
    os << (i ? ", " : "") << hlo::opcodeName(sorted[i].first) << ' ' << sorted[i].second;
  if (sorted.size() > kTopOpcodes)
    os << " (+" << sorted.size() - kTopOpcodes << " more kinds)";
  os << '\n';
}

static void printLeaves(llvm::StringRef title, const std::vector<NamedLeaf> &leaves,
                        llvm::raw_ostream &os) {
  os << llvm::formatv("  {0,-13} {1}\n", title + ":", leaves.size());
  for (size_t i = 0; i < leaves.size() && i < kMaxLeavesListed; ++i)
    os << llvm::formatv("    {0,3}  {1}: {2}\n", i, leaves[i].name,
                        leaves[i].shape.toString(false));
  if (leaves.size() > kMaxLeavesListed)
    os << "    ... and " << leaves.size() - kMaxLeavesListed << " more\n";
}

void printModuleSummary(const hlo::Module &module, llvm::raw_ostream &os) {
  const hlo::Computation *entry = module.entry();
  size_t constants = 0, elided = 0;
  for (const auto &computation : module.computations())
    for (const auto &instruction : computation->instructions())
      if (instruction->opcode() == Opcode::Constant) {
        ++constants;
        elided += instruction->attributes().literalElided;
      }

  os << "module " << module.name() << '\n';
  os << "  computations: " << module.computations().size();
  if (entry)
    os << " (entry %" << entry->name() << ')';
  os << '\n';
  os << "  instructions: " << module.instructionCount();
  if (entry)
    os << " (" << entry->instructionCount() << " in the entry)";
  os << '\n';
  printOpcodes(module, os);
  if (entry) {
    printLeaves("parameters", parameterLeaves(*entry), os);
    printLeaves("results", resultLeaves(*entry), os);
  }
  os << "  constants:    " << constants;
  if (elided)
    os << " (" << elided << " elided: their values are not in the file)";
  os << '\n';
  llvm::Error evaluable = eval::checkEvaluable(module);
  os << "  evaluable:    ";
  if (evaluable)
    os << "no: " << hlo::errorToString(std::move(evaluable), module.sourceManager().get()) << '\n';
  else
    os << "yes\n";
}

} // namespace mote::tools
