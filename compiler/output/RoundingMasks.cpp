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
  struct Rounding {
    llvm::Instruction *sum; ///< x + 0x7fff + ((x >> 16) & 1)
    llvm::Value *bits;      ///< x
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
  for (const Rounding &rounding : roundings) {
    llvm::IRBuilder<> b(rounding.sum);
    llvm::Type *type = rounding.bits->getType();
    llvm::Value *odd =
        b.CreateICmpNE(b.CreateAnd(rounding.bits, llvm::ConstantInt::get(type, 0x10000)),
                       llvm::Constant::getNullValue(type));
    llvm::Value *replacement =
        b.CreateSelect(odd, b.CreateAdd(rounding.bits, llvm::ConstantInt::get(type, 0x8000)),
                       b.CreateAdd(rounding.bits, llvm::ConstantInt::get(type, 0x7fff)));
    replacement->takeName(rounding.sum);
    llvm::SmallVector<llvm::WeakTrackingVH, 2> operands(rounding.sum->operands());
    rounding.sum->replaceAllUsesWith(replacement);
    rounding.sum->eraseFromParent();
    // The old add and the shift's and, then the shift, once unused.
    llvm::RecursivelyDeleteTriviallyDeadInstructionsPermissive(operands);
  }
  return unsigned(roundings.size());
}

} // namespace mote::output
