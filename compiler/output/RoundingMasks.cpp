//===- RoundingMasks.cpp - bf16's tie-to-even bit as an AVX-512 mask ------===//
//
// f32 -> bf16 rounds the f32 bits x to nearest even as x + 0x7fff +
// ((x >> 16) & 1) (math::emitF32ToBF16): a shift, an and and two adds a
// vector. With AVX-512 the kept half's lowest bit can be a mask instead
// (vptestmd), and the two cases two adds, the second merged under the mask:
// select((x & 0x10000) != 0, x + 0x8000, x + 0x7fff), three instructions.
// InstCombine would fold the select back into the shift and the and, so
// the rewrite is on the optimised IR. A bf16 epilogue after a dot rounds
// twice (the sum, then the bias add), so DS-CNN's rounds 128 lanes per 32
// outputs: 4 of the 39 instructions of its x86-64-v4 epilogue loops.
//
//===----------------------------------------------------------------------===//

#include "output/BackendWorkarounds.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Local.h"

namespace mote::output {

unsigned selectBf16RoundingWithMasks(llvm::Module &module, const llvm::TargetMachine &machine) {
  const llvm::MCSubtargetInfo *subtarget = machine.getMCSubtargetInfo();
  if (machine.getTargetTriple().getArch() != llvm::Triple::x86_64 || !subtarget ||
      !subtarget->checkFeatures("+avx512f,+avx512vl"))
    return 0;
  using namespace llvm::PatternMatch;
  // Handles that follow a rounding rewritten before (a rounding of a
  // rounded sum reads the replacement) and drop one deleted as dead.
  struct Rounding {
    llvm::WeakTrackingVH sum;  ///< x + 0x7fff + ((x >> 16) & 1)
    llvm::WeakTrackingVH bits; ///< x
  };
  llvm::SmallVector<Rounding, 64> roundings;
  for (llvm::Function &function : module)
    for (llvm::Instruction &instruction : llvm::instructions(function)) {
      auto *type = llvm::dyn_cast<llvm::FixedVectorType>(instruction.getType());
      if (!type || !type->getElementType()->isIntegerTy(32))
        continue;
      llvm::Value *bits = nullptr;
      if (match(&instruction,
                m_c_Add(m_Add(m_Value(bits), m_SpecificInt(0x7fff)),
                        m_And(m_LShr(m_Deferred(bits), m_SpecificInt(16)), m_SpecificInt(1)))))
        roundings.push_back({&instruction, bits});
    }
  unsigned rewritten = 0;
  for (const Rounding &rounding : roundings) {
    auto *sum = llvm::dyn_cast_or_null<llvm::Instruction>(rounding.sum);
    llvm::Value *bits = rounding.bits;
    if (!sum || !bits)
      continue;
    llvm::IRBuilder<> b(sum);
    llvm::Type *type = bits->getType();
    llvm::Value *odd = b.CreateICmpNE(b.CreateAnd(bits, llvm::ConstantInt::get(type, 0x10000)),
                                      llvm::Constant::getNullValue(type));
    llvm::Value *replacement =
        b.CreateSelect(odd, b.CreateAdd(bits, llvm::ConstantInt::get(type, 0x8000)),
                       b.CreateAdd(bits, llvm::ConstantInt::get(type, 0x7fff)));
    replacement->takeName(sum);
    llvm::SmallVector<llvm::WeakTrackingVH, 2> operands(sum->operands());
    sum->replaceAllUsesWith(replacement);
    sum->eraseFromParent();
    // The old add and the shift's and, then the shift, once unused.
    llvm::RecursivelyDeleteTriviallyDeadInstructionsPermissive(operands);
    ++rewritten;
  }
  return rewritten;
}

} // namespace mote::output
