//===- BackendWorkarounds.cpp - IR rewrites around LLVM backend bugs ------===//
//
// MVE float compares. VCMP.F32 compares a Q register with a Q register, a
// core register or zr, and its conditions mean what the integer flags of a
// scalar VCMP would: GE, GT and EQ are false on unordered operands, while LT
// (NOT GE), LE (NOT GT) and NE are true on them. LLVM 16 lowers the
// vector-by-vector form right (olt x, y is GT y, x), but against a splat (a
// constant, zero or a broadcast scalar) it selects the scalar form and gets
// the condition wrong for NaN: olt x, 0.0 becomes `vcmp.f32 lt, q0, zr`, and
// ogt 0.0, x is swapped as for integers into the same LT. So max and min
// took a constant for a NaN, exp(NaN) clamped to exp(-104) = 0, and
// uno x, 0.0 (InstCombine's form of x != x) was false in every lane.
// Against a splat second operand LLVM 16 maps oeq, une, ogt, oge, ult and
// ule right (checked with llc-16 for zr, a core register and a Q register);
// every other predicate is rebuilt here from one of those and an integer
// NaN test, which no FP environment can change.
//
//===----------------------------------------------------------------------===//

#include "output/BackendWorkarounds.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/TargetParser/Triple.h"

namespace mote::output {

namespace {

using llvm::CmpInst;

bool isSplat(llvm::Value *value) {
  return llvm::isa<llvm::Constant>(value) || llvm::getSplatValue(value);
}

/// Lanes of `value` that are NaN: |bits| > bits(inf), compared as integers
/// (not `fcmp uno`, which is the very compare being replaced).
llvm::Value *isNanBits(llvm::IRBuilderBase &b, llvm::Value *value) {
  auto *type = llvm::cast<llvm::VectorType>(value->getType());
  const llvm::fltSemantics &semantics = type->getElementType()->getFltSemantics();
  const unsigned width = llvm::APFloat::getSizeInBits(semantics);
  llvm::Type *bits = llvm::VectorType::get(b.getIntNTy(width), type->getElementCount());
  llvm::Value *magnitude =
      b.CreateAnd(b.CreateBitCast(value, bits),
                  llvm::ConstantInt::get(bits, llvm::APInt::getSignedMaxValue(width)));
  return b.CreateICmpUGT(
      magnitude, llvm::ConstantInt::get(bits, llvm::APFloat::getInf(semantics).bitcastToAPInt()));
}

/// `predicate` on (x, s) with s a splat, from predicates the backend lowers
/// right; null when `predicate` is one of those already.
llvm::Value *rebuildCompare(llvm::IRBuilderBase &b, CmpInst::Predicate predicate, llvm::Value *x,
                            llvm::Value *s) {
  auto compare = [&](CmpInst::Predicate safe) { return b.CreateFCmp(safe, x, s); };
  auto unordered = [&] { return b.CreateOr(isNanBits(b, x), isNanBits(b, s)); };
  auto ordered = [&] { return b.CreateNot(unordered()); };
  switch (predicate) {
  case CmpInst::FCMP_OLT:
    return b.CreateAnd(compare(CmpInst::FCMP_ULT), ordered());
  case CmpInst::FCMP_OLE:
    return b.CreateAnd(compare(CmpInst::FCMP_ULE), ordered());
  case CmpInst::FCMP_ONE:
    return b.CreateAnd(compare(CmpInst::FCMP_UNE), ordered());
  case CmpInst::FCMP_ORD:
    return ordered();
  case CmpInst::FCMP_UGT:
    return b.CreateOr(compare(CmpInst::FCMP_OGT), unordered());
  case CmpInst::FCMP_UGE:
    return b.CreateOr(compare(CmpInst::FCMP_OGE), unordered());
  case CmpInst::FCMP_UEQ:
    return b.CreateOr(compare(CmpInst::FCMP_OEQ), unordered());
  case CmpInst::FCMP_UNO:
    return unordered();
  default:
    return nullptr;
  }
}

bool hasMveFloat(const llvm::TargetMachine &machine) {
  const llvm::Triple &triple = machine.getTargetTriple();
  return (triple.isARM() || triple.isThumb()) &&
         machine.getMCSubtargetInfo()->checkFeatures("+mve.fp");
}

} // namespace

unsigned legalizeMveFloatCompares(llvm::Module &module, const llvm::TargetMachine &machine) {
  if (!hasMveFloat(machine))
    return 0;
  llvm::SmallVector<llvm::FCmpInst *, 16> compares;
  for (llvm::Function &function : module)
    for (llvm::Instruction &instruction : llvm::instructions(function))
      if (auto *compare = llvm::dyn_cast<llvm::FCmpInst>(&instruction))
        if (compare->getType()->isVectorTy())
          compares.push_back(compare);

  unsigned rewritten = 0;
  for (llvm::FCmpInst *compare : compares) {
    llvm::Value *x = compare->getOperand(0), *s = compare->getOperand(1);
    CmpInst::Predicate predicate = compare->getPredicate();
    bool swapped = false;
    if (!isSplat(s)) {
      if (!isSplat(x))
        continue; // vector by vector: lowered right
      std::swap(x, s);
      predicate = CmpInst::getSwappedPredicate(predicate);
      swapped = true;
    }
    llvm::IRBuilder<> b(compare);
    b.setFastMathFlags(compare->getFastMathFlags());
    llvm::Value *replacement = rebuildCompare(b, predicate, x, s);
    // A safe predicate with the splat first: state it with the splat second,
    // the one form whose lowering was checked, rather than rely on the swap.
    if (!replacement && swapped)
      replacement = b.CreateFCmp(predicate, x, s);
    if (!replacement)
      continue;
    replacement->takeName(compare);
    compare->replaceAllUsesWith(replacement);
    compare->eraseFromParent();
    ++rewritten;
  }
  return rewritten;
}

} // namespace mote::output
