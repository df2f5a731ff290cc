//===- HalfVectorWidening.cpp - f16 vector arithmetic back in f32 ---------===//
//
// Elementwise f16 code widens each operand to f32, computes, and rounds the
// result back (codegen/ElementTypes.h). InstCombine narrows such a chain to
// arithmetic on half wherever that is exact -- fptrunc(fadd(fpext a, fpext
// b)) becomes fadd half a, b, and fcmp(fpext a, fpext b) becomes fcmp half --
// and the loop vectorizer then widens it to vectors of half. x86-64 without
// AVX512-FP16 has no half arithmetic: LLVM 16 promotes a vector add or
// multiply of half to f32 vectors, but splits a vector compare of half (every
// maximum, minimum, select on a comparison, clamp) into one vcvtph2ps,
// vucomiss and branch per lane: the f16 DS-CNN's bias-and-ReLU epilogues ran
// 5x the instructions of their f32 twins.
//
// So, just before code generation, every such operation on vectors of half
// is stated in f32 again: the operands widened (vcvtph2ps, exact), the
// operation on f32 vectors, and for a half result one rounding (vcvtps2ph).
// That is exactly the value the half operation has: f32 carries 24 bits,
// at least 2 * 11 + 2, so add, subtract, multiply, divide and square root
// rounded first to f32 and then to f16 round as if once (double rounding is
// innocuous at that width), remainder, compares, maximum, minimum, absolute
// value, sign copies and the integral roundings are exact in f32. Operations
// where that argument fails (a fused multiply-add) are left as they are.
//
//===----------------------------------------------------------------------===//

#include "output/BackendWorkarounds.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/TargetParser/Triple.h"

namespace mote::output {

namespace {

bool isHalfVector(llvm::Type *type) {
  auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(type);
  return vector && vector->getElementType()->isHalfTy();
}

/// Intrinsics whose f32 result rounded to f16 is their f16 result.
bool widensExactly(llvm::Intrinsic::ID id) {
  switch (id) {
  case llvm::Intrinsic::minnum:
  case llvm::Intrinsic::maxnum:
  case llvm::Intrinsic::minimum:
  case llvm::Intrinsic::maximum:
  case llvm::Intrinsic::fabs:
  case llvm::Intrinsic::copysign:
  case llvm::Intrinsic::sqrt:
  case llvm::Intrinsic::floor:
  case llvm::Intrinsic::ceil:
  case llvm::Intrinsic::trunc:
  case llvm::Intrinsic::rint:
  case llvm::Intrinsic::nearbyint:
  case llvm::Intrinsic::round:
  case llvm::Intrinsic::roundeven:
    return true;
  default:
    return false;
  }
}

/// Whether `instruction` computes on vectors of half in a way widenHalf
/// restates in f32.
bool isWidenable(const llvm::Instruction &instruction) {
  if (auto *compare = llvm::dyn_cast<llvm::FCmpInst>(&instruction))
    return isHalfVector(compare->getOperand(0)->getType());
  if (!isHalfVector(instruction.getType()))
    return false;
  if (auto *intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&instruction))
    return widensExactly(intrinsic->getIntrinsicID());
  switch (instruction.getOpcode()) {
  case llvm::Instruction::FAdd:
  case llvm::Instruction::FSub:
  case llvm::Instruction::FMul:
  case llvm::Instruction::FDiv:
  case llvm::Instruction::FRem:
    return true;
  default:
    return false;
  }
}

/// x86-64 with F16C's vector conversions and without AVX512-FP16's half
/// arithmetic, for `function`. (Its subtarget, not the machine's MC one:
/// LLVM 16's x86 MCSubtargetInfo answers no for f16c. And two questions:
/// checkFeatures("+f16c,-avx512fp16") also wants the features AVX512-FP16
/// implies, such as AVX2, to be off.)
bool convertsButLacksHalfArithmetic(const llvm::TargetMachine &machine,
                                    const llvm::Function &function) {
  if (!machine.getTargetTriple().isX86())
    return false;
  const llvm::TargetSubtargetInfo *subtarget = machine.getSubtargetImpl(function);
  return subtarget->checkFeatures("+f16c") && !subtarget->checkFeatures("+avx512fp16");
}

llvm::Value *widen(llvm::IRBuilderBase &b, llvm::Value *value) {
  auto *type = llvm::cast<llvm::FixedVectorType>(value->getType());
  return b.CreateFPExt(value, llvm::FixedVectorType::get(b.getFloatTy(), type->getNumElements()));
}

/// `instruction` computed in f32 and, for a half result, rounded to half.
llvm::Value *widenHalf(llvm::Instruction &instruction) {
  llvm::IRBuilder<> b(&instruction);
  b.setFastMathFlags(instruction.getFastMathFlags());
  llvm::Value *result;
  if (auto *compare = llvm::dyn_cast<llvm::FCmpInst>(&instruction))
    return b.CreateFCmp(compare->getPredicate(), widen(b, compare->getOperand(0)),
                        widen(b, compare->getOperand(1)));
  if (auto *intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&instruction)) {
    llvm::SmallVector<llvm::Value *, 2> operands;
    for (llvm::Value *operand : intrinsic->args())
      operands.push_back(widen(b, operand));
    result = b.CreateIntrinsic(intrinsic->getIntrinsicID(), {operands[0]->getType()}, operands);
  } else {
    result =
        b.CreateBinOp(llvm::cast<llvm::BinaryOperator>(instruction).getOpcode(),
                      widen(b, instruction.getOperand(0)), widen(b, instruction.getOperand(1)));
  }
  if (auto *widened = llvm::dyn_cast<llvm::Instruction>(result))
    widened->copyFastMathFlags(&instruction);
  return b.CreateFPTrunc(result, instruction.getType());
}

} // namespace

unsigned widenHalfVectorArithmetic(llvm::Module &module, const llvm::TargetMachine &machine) {
  llvm::SmallVector<llvm::Instruction *, 32> widenable;
  for (llvm::Function &function : module)
    if (!function.isDeclaration() && convertsButLacksHalfArithmetic(machine, function))
      for (llvm::Instruction &instruction : llvm::instructions(function))
        if (isWidenable(instruction))
          widenable.push_back(&instruction);
  for (llvm::Instruction *instruction : widenable) {
    llvm::Value *replacement = widenHalf(*instruction);
    replacement->takeName(instruction);
    instruction->replaceAllUsesWith(replacement);
    instruction->eraseFromParent();
  }
  return widenable.size();
}

} // namespace mote::output
