//===- RoundingConversions.cpp - fcvtns for a rounded, saturated convert --===//
//
// A quantized model rounds each rescaled value to nearest even and converts
// it to an integer: fptosi.sat(roundeven(x)) in IR. LLVM 16 selects that as
// two AArch64 instructions, frintn then fcvtzs, scalar or vector, where the
// one instruction fcvtns does both: it rounds to nearest with ties to even,
// saturates at the integer type's bounds and turns NaN into 0, as
// fptosi.sat of the rounded value does. The pair is replaced by the
// intrinsic here, after the vectorizer (which cannot widen a target
// intrinsic), a vector of more lanes than a register split into registers.
//
//===----------------------------------------------------------------------===//

#include "output/BackendWorkarounds.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsAArch64.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/TargetParser/Triple.h"

namespace mote::output {

namespace {

/// Lanes of one NEON register of `element` (f32 or f64 with the integer of
/// the same width), or 0 when fcvtns does not convert it so.
unsigned registerLanes(llvm::Type *from, llvm::Type *to) {
  llvm::Type *element = from->getScalarType();
  if (to->getScalarSizeInBits() != element->getPrimitiveSizeInBits())
    return 0;
  if (element->isFloatTy())
    return 4;
  if (element->isDoubleTy())
    return 2;
  return 0;
}

/// fcvtns of `value` (scalar or vector) to `type`, a register at a time.
llvm::Value *convertRounding(llvm::IRBuilderBase &b, llvm::Value *value, llvm::Type *type,
                             unsigned lanesPerRegister) {
  auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(value->getType());
  auto fcvtns = [&](llvm::Value *part, llvm::Type *partType) -> llvm::Value * {
    return b.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_fcvtns, {partType, part->getType()},
                             {part});
  };
  if (!vector || vector->getNumElements() <= lanesPerRegister)
    return fcvtns(value, type);
  const unsigned lanes = vector->getNumElements();
  if (lanes % lanesPerRegister)
    return nullptr;
  auto *partType = llvm::FixedVectorType::get(type->getScalarType(), lanesPerRegister);
  llvm::SmallVector<llvm::Value *, 8> parts;
  for (unsigned first = 0; first < lanes; first += lanesPerRegister) {
    parts.push_back(
        fcvtns(b.CreateShuffleVector(value, llvm::createSequentialMask(first, lanesPerRegister, 0)),
               partType));
  }
  return llvm::concatenateVectors(b, parts);
}

} // namespace

unsigned selectRoundingConversions(llvm::Module &module, const llvm::TargetMachine &machine) {
  if (!machine.getTargetTriple().isAArch64())
    return 0;
  using namespace llvm::PatternMatch;
  llvm::SmallVector<llvm::IntrinsicInst *, 16> conversions;
  for (llvm::Function &function : module)
    for (llvm::Instruction &instruction : llvm::instructions(function))
      if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&instruction))
        if (call->getIntrinsicID() == llvm::Intrinsic::fptosi_sat &&
            match(call->getArgOperand(0), m_Intrinsic<llvm::Intrinsic::roundeven>(m_Value())))
          conversions.push_back(call);
  unsigned rewritten = 0;
  for (llvm::IntrinsicInst *conversion : conversions) {
    auto *rounded = llvm::cast<llvm::IntrinsicInst>(conversion->getArgOperand(0));
    llvm::Value *value = rounded->getArgOperand(0);
    if (llvm::isa<llvm::ScalableVectorType>(value->getType()))
      continue; // SVE: fcvtns here is a NEON intrinsic
    const unsigned lanes = registerLanes(value->getType(), conversion->getType());
    if (!lanes)
      continue;
    llvm::IRBuilder<> b(conversion);
    llvm::Value *replacement = convertRounding(b, value, conversion->getType(), lanes);
    if (!replacement)
      continue;
    replacement->takeName(conversion);
    conversion->replaceAllUsesWith(replacement);
    conversion->eraseFromParent();
    if (rounded->use_empty())
      rounded->eraseFromParent();
    ++rewritten;
  }
  return rewritten;
}

} // namespace mote::output
