//===- HighHalfNarrowing.cpp - top halves of two zmm in one permute -------===//
//
// A bf16 result is the top half of its rounded f32 bits: the vectorized
// epilogues narrow it as trunc(lshr(x, 16)), and on x86-64 with AVX-512 a
// vector of 32 such lanes (two zmm registers) became two vpsrld, two
// vpmovdw (two shuffle-port uops each) and a vinserti64x4. The same 16-bit
// values are the odd words of the two registers, which one vpermi2w picks
// (a word permute of two sources; its index vector is loaded once per
// function). DS-CNN bf16's epilogues spent 5,538 of 96,100 perf samples on
// that narrowing (x86-64-v4, mote-run --bench). The rewrite is on the
// optimised IR, where no later InstCombine folds the shuffle back.
//
//===----------------------------------------------------------------------===//

#include "output/BackendWorkarounds.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/TargetParser/Triple.h"

namespace mote::output {

namespace {

/// Lanes of 32 bits in the two zmm registers one vpermi2w reads.
constexpr unsigned permuteLanes = 32;

/// Whether `machine` permutes words across two zmm registers (AVX512-BW).
bool permutesWords(const llvm::TargetMachine &machine) {
  if (machine.getTargetTriple().getArch() != llvm::Triple::x86_64)
    return false;
  const llvm::MCSubtargetInfo *subtarget = machine.getMCSubtargetInfo();
  return subtarget && subtarget->checkFeatures("+avx512bw");
}

} // namespace

unsigned narrowHighHalvesWithPermutes(llvm::Module &module, const llvm::TargetMachine &machine) {
  if (!permutesWords(machine))
    return 0;
  using namespace llvm::PatternMatch;
  llvm::SmallVector<llvm::TruncInst *, 64> narrowings;
  for (llvm::Function &function : module)
    for (llvm::Instruction &instruction : llvm::instructions(function)) {
      auto *narrowing = llvm::dyn_cast<llvm::TruncInst>(&instruction);
      auto *type =
          narrowing ? llvm::dyn_cast<llvm::FixedVectorType>(narrowing->getType()) : nullptr;
      if (type && type->getNumElements() == permuteLanes &&
          type->getElementType()->isIntegerTy(16) &&
          narrowing->getSrcTy()->getScalarType()->isIntegerTy(32) &&
          match(narrowing->getOperand(0), m_LShr(m_Value(), m_SpecificInt(16))))
        narrowings.push_back(narrowing);
    }
  for (llvm::TruncInst *narrowing : narrowings) {
    auto *shift = llvm::cast<llvm::Instruction>(narrowing->getOperand(0));
    llvm::IRBuilder<> b(narrowing);
    // x86 is little-endian: lane i's top half is word 2i + 1.
    llvm::Value *words = b.CreateBitCast(
        shift->getOperand(0), llvm::FixedVectorType::get(b.getInt16Ty(), 2 * permuteLanes));
    llvm::SmallVector<int, permuteLanes> odd;
    for (unsigned lane = 0; lane < permuteLanes; ++lane)
      odd.push_back(int(2 * lane + 1));
    llvm::Value *replacement = b.CreateShuffleVector(words, odd);
    replacement->takeName(narrowing);
    narrowing->replaceAllUsesWith(replacement);
    narrowing->eraseFromParent();
    if (shift->use_empty())
      shift->eraseFromParent();
  }
  return unsigned(narrowings.size());
}

} // namespace mote::output
