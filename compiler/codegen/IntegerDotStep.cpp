//===- IntegerDotStep.cpp - One step of an integer tile -------------------===//
//
// Each form calls the target's intrinsic where LLVM 16 has one (x86
// vpdpbusd and pmaddwd, AArch64 sdot/udot/usdot, Arm smlad and sxtb16, MVE
// vmladava) rather than trusting pattern matching, and builds what LLVM
// matches reliably otherwise (smull from a multiply of sign-extended bytes,
// sadalp from an add of saddlp).
//
//===----------------------------------------------------------------------===//

#include "codegen/IntegerDotStep.h"

#include "llvm/IR/IntrinsicsAArch64.h"
#include "llvm/IR/IntrinsicsARM.h"
#include "llvm/IR/IntrinsicsX86.h"

namespace mote::codegen {

using hlo::PrimitiveType;

namespace {

unsigned lanesOf(llvm::Value *value) {
  auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(value->getType());
  return vector ? vector->getNumElements() : 1;
}

/// Whether the form's instruction multiplies values of equal signedness
/// (and the lhs is flipped to the rhs's when they differ), or u8 by s8, or
/// either sign by itself and u8 by s8 but not s8 by u8 (usmmla: the lhs is
/// flipped to u8 for a u8 rhs).
enum class SignRule { AsGiven, Matching, Opposite, UnsignedLhs };

SignRule signRule(IntegerDotForm form, bool hasI8mm) {
  switch (form) {
  case IntegerDotForm::X86Vnni:
    return SignRule::Opposite;
  case IntegerDotForm::ArmDot:
    return hasI8mm ? SignRule::AsGiven : SignRule::Matching;
  case IntegerDotForm::ArmMatrix:
    return SignRule::UnsignedLhs;
  case IntegerDotForm::ArmMultiplyPairs:
  case IntegerDotForm::ArmPartialSums:
  case IntegerDotForm::MveReduce:
    return SignRule::Matching;
  default:
    return SignRule::AsGiven;
  }
}

unsigned groupOf(IntegerDotForm form) {
  switch (form) {
  case IntegerDotForm::X86Vnni:
  case IntegerDotForm::ArmDot:
  case IntegerDotForm::ArmDsp:
    return 4;
  case IntegerDotForm::ArmMatrix:
    return 8;
  case IntegerDotForm::X86MaddWords:
  case IntegerDotForm::ArmMultiplyPairs:
    return 2;
  case IntegerDotForm::MveReduce:
  case IntegerDotForm::ArmPartialSums:
    return 16;
  case IntegerDotForm::Widening:
    return 1;
  }
  return 1;
}

/// Whether two products of `plan`'s operands, both s8, add exactly in 16
/// bits: its weights are constants free of -128 (so |each product| <=
/// 128 * 127).
bool productsAddInWords(const ContractionPlan &plan) {
  if (hlo::bitWidth(plan.lhsType) != 8 || hlo::bitWidth(plan.rhsType) != 8 || !plan.rhsValues)
    return false;
  for (int64_t i = 0, n = plan.rhsValues->elementCount(); i < n; ++i)
    if (plan.rhsValues->getAsInt64(i) == -128)
      return false;
  return true;
}

} // namespace

bool integerProductPairs(IntegerDotForm form, const ContractionPlan &plan,
                         const llvm::Triple &triple) {
  return form == IntegerDotForm::Widening && triple.isAArch64() &&
         hlo::isSignedInteger(plan.lhsType) && hlo::isSignedInteger(plan.rhsType) &&
         productsAddInWords(plan) && rowsAlongColumns(plan);
}

int integerLhsOffset(IntegerDotForm form, const ContractionPlan &plan,
                     const target::TargetSpec *spec) {
  const bool lhsSigned = hlo::isSignedInteger(plan.lhsType);
  const bool rhsSigned = hlo::isSignedInteger(plan.rhsType);
  const SignRule rule = signRule(form, spec && target::hasFeature(*spec, "i8mm"));
  const bool flip = (rule == SignRule::Matching && lhsSigned != rhsSigned) ||
                    (rule == SignRule::Opposite && lhsSigned == rhsSigned) ||
                    (rule == SignRule::UnsignedLhs && lhsSigned && !rhsSigned);
  return !flip ? 0 : lhsSigned ? 128 : -128;
}

unsigned integerStepRegisters(IntegerDotForm form, const ContractionPlan &plan,
                              const target::TargetSpec *spec) {
  // The flip's constant, and a product or extended operand in flight.
  return (integerLhsOffset(form, plan, spec) ? 1 : 0) + (form == IntegerDotForm::Widening ? 0 : 1);
}

IntegerDotStep::IntegerDotStep(llvm::IRBuilderBase &builder, IntegerDotForm form,
                               const ContractionPlan &plan, const llvm::Triple &triple,
                               const target::TargetSpec *spec)
    : b_(builder), form_(form), spec_(spec), group_(groupOf(form)),
      lhsOffset_(integerLhsOffset(form, plan, spec)),
      lhsSigned_(hlo::isSignedInteger(plan.lhsType) != (lhsOffset_ != 0)),
      rhsSigned_(hlo::isSignedInteger(plan.rhsType)), lhsBits_(hlo::bitWidth(plan.lhsType)),
      rhsBits_(hlo::bitWidth(plan.rhsType)) {
  byteQuads_ = (triple.isARM() || triple.isThumb()) && lhsBits_ == 8 && rhsBits_ == 8 &&
               !lhsOffset_ && has("dsp") && !has("mve");
  pairsInWords_ = (form == IntegerDotForm::ArmPartialSums && lhsSigned_ && rhsSigned_ &&
                   productsAddInWords(plan)) ||
                  integerProductPairs(form, plan, triple);
}

void IntegerDotStep::addByteQuad(llvm::MutableArrayRef<llvm::Value *> sums, llvm::Value *lhs,
                                 llvm::Value *rhs) const {
  // sxtb16 takes bytes 0 and 2 as 16-bit halves (bytes 1 and 3 after a
  // rotation by 8); smlabb multiplies the bottom halves, smlatt the tops.
  auto halves = [&](llvm::Value *word, bool isSigned, bool rotated) {
    if (rotated)
      word = b_.CreateIntrinsic(llvm::Intrinsic::fshr, {word->getType()},
                                {word, word, b_.getInt32(8)});
    return b_.CreateIntrinsic(isSigned ? llvm::Intrinsic::arm_sxtb16 : llvm::Intrinsic::arm_uxtb16,
                              {}, {word});
  };
  for (bool rotated : {false, true}) {
    llvm::Value *a = halves(lhs, lhsSigned_, rotated), *b = halves(rhs, rhsSigned_, rotated);
    const size_t low = rotated ? 1 : 0;
    sums[low] = b_.CreateIntrinsic(llvm::Intrinsic::arm_smlabb, {}, {a, b, sums[low]});
    sums[low + 2] = b_.CreateIntrinsic(llvm::Intrinsic::arm_smlatt, {}, {a, b, sums[low + 2]});
  }
}

bool IntegerDotStep::has(llvm::StringRef feature) const {
  return spec_ && target::hasFeature(*spec_, feature);
}

llvm::Value *IntegerDotStep::adjustLhs(llvm::Value *values) const {
  if (!lhsOffset_)
    return values;
  return b_.CreateXor(values, llvm::ConstantInt::get(values->getType(), 0x80));
}

llvm::Value *IntegerDotStep::extend(llvm::Value *values, unsigned bits, bool isSigned) const {
  llvm::Type *element = b_.getIntNTy(bits);
  llvm::Type *type =
      values->getType()->isVectorTy()
          ? llvm::VectorType::get(
                element, llvm::cast<llvm::VectorType>(values->getType())->getElementCount())
          : element;
  return isSigned ? b_.CreateSExtOrTrunc(values, type) : b_.CreateZExtOrTrunc(values, type);
}

llvm::Value *IntegerDotStep::addProducts(llvm::Value *sums, llvm::Value *lhs,
                                         llvm::Value *rhs) const {
  switch (form_) {
  case IntegerDotForm::X86Vnni:
    return addX86Vnni(sums, lhs, rhs);
  case IntegerDotForm::X86MaddWords:
    return addX86MaddWords(sums, lhs, rhs);
  case IntegerDotForm::ArmDot:
    return addArmDot(sums, lhs, rhs);
  case IntegerDotForm::ArmMatrix:
    return addArmMatrix(sums, lhs, rhs);
  case IntegerDotForm::ArmMultiplyPairs:
    return addArmMultiplyPairs(sums, lhs, rhs);
  case IntegerDotForm::ArmPartialSums:
    return addArmPartialSums(sums, lhs, rhs);
  case IntegerDotForm::ArmDsp:
    return addArmDsp(sums, lhs, rhs);
  case IntegerDotForm::MveReduce:
    return addMveReduce(sums, lhs, rhs);
  case IntegerDotForm::Widening:
    break;
  }
  return addWidened(sums, lhs, rhs);
}

llvm::Value *IntegerDotStep::products(llvm::Value *lhs, llvm::Value *rhs) const {
  // A product of two bytes is exact in 16 bits: vectors multiply twice as
  // many lanes at that width. Not on Helium, whose 16-bit products LLVM 16
  // widens lane by lane; bytes load straight into 32-bit lanes there.
  const unsigned bits = lhsBits_ == 8 && rhsBits_ == 8 && lanesOf(lhs) > 1 && !has("mve") ? 16 : 32;
  return b_.CreateMul(extend(lhs, bits, lhsSigned_), extend(rhs, bits, rhsSigned_));
}

llvm::Value *IntegerDotStep::addProductValues(llvm::Value *sums, llvm::Value *products) const {
  return b_.CreateAdd(sums, extend(products, 32, lhsSigned_ || rhsSigned_));
}

llvm::Value *IntegerDotStep::addWidened(llvm::Value *sums, llvm::Value *lhs,
                                        llvm::Value *rhs) const {
  const unsigned lanes = lanesOf(sums);
  llvm::Value *wide = extend(products(lhs, rhs), 32, lhsSigned_ || rhsSigned_);
  if (group_ == 1 || lanesOf(wide) == lanes)
    return b_.CreateAdd(sums, wide);
  if (lanes == 1)
    return b_.CreateAdd(sums, b_.CreateAddReduce(wide));
  for (unsigned g = 0; g < group_; ++g) {
    llvm::SmallVector<int, 16> mask;
    for (unsigned lane = 0; lane < lanes; ++lane)
      mask.push_back(int(lane * group_ + g));
    sums = b_.CreateAdd(sums, b_.CreateShuffleVector(wide, mask));
  }
  return sums;
}

llvm::Value *IntegerDotStep::addX86Vnni(llvm::Value *sums, llvm::Value *lhs,
                                        llvm::Value *rhs) const {
  const unsigned lanes = lanesOf(sums);
  llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
  if (lanes == 16 && has("avx512vnni"))
    id = llvm::Intrinsic::x86_avx512_vpdpbusd_512;
  else if ((lanes == 8 || lanes == 4) && ((has("avx512vnni") && has("avx512vl")) || has("avxvnni")))
    id = lanes == 8 ? llvm::Intrinsic::x86_avx512_vpdpbusd_256
                    : llvm::Intrinsic::x86_avx512_vpdpbusd_128;
  if (id == llvm::Intrinsic::not_intrinsic)
    return addWidened(sums, lhs, rhs);
  // vpdpbusd multiplies its second operand's bytes as u8 by its third's as s8.
  llvm::Value *unsignedBytes = rhsSigned_ ? lhs : rhs;
  llvm::Value *signedBytes = rhsSigned_ ? rhs : lhs;
  llvm::Type *words = sums->getType();
  return b_.CreateIntrinsic(
      id, {}, {sums, b_.CreateBitCast(unsignedBytes, words), b_.CreateBitCast(signedBytes, words)});
}

llvm::Value *IntegerDotStep::addX86MaddWords(llvm::Value *sums, llvm::Value *lhs,
                                             llvm::Value *rhs) const {
  const unsigned lanes = lanesOf(sums);
  llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
  if (lanes == 4)
    id = llvm::Intrinsic::x86_sse2_pmadd_wd;
  else if (lanes == 8 && has("avx2"))
    id = llvm::Intrinsic::x86_avx2_pmadd_wd;
  else if (lanes == 16 && has("avx512bw"))
    id = llvm::Intrinsic::x86_avx512_pmaddw_d_512;
  if (id == llvm::Intrinsic::not_intrinsic)
    return addWidened(sums, lhs, rhs);
  // Bytes of either signedness are exact as s16; pmaddwd adds the two
  // products of each pair of words into one s32 (wrapping only for
  // -32768 * -32768 twice, where the wrapped value is the sum modulo 2^32).
  llvm::Value *products =
      b_.CreateIntrinsic(id, {}, {extend(lhs, 16, lhsSigned_), extend(rhs, 16, rhsSigned_)});
  return b_.CreateAdd(sums, products);
}

llvm::Value *IntegerDotStep::addArmDot(llvm::Value *sums, llvm::Value *lhs,
                                       llvm::Value *rhs) const {
  const unsigned lanes = lanesOf(sums);
  if (lanes != 4 && lanes != 2)
    return addWidened(sums, lhs, rhs);
  if (lhsSigned_ == rhsSigned_)
    return b_.CreateIntrinsic(lhsSigned_ ? llvm::Intrinsic::aarch64_neon_sdot
                                         : llvm::Intrinsic::aarch64_neon_udot,
                              {sums->getType(), lhs->getType()}, {sums, rhs, lhs});
  // usdot (+i8mm) multiplies its second operand's bytes as u8 by its third's as s8.
  return b_.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_usdot, {sums->getType(), lhs->getType()},
                            {sums, rhsSigned_ ? lhs : rhs, rhsSigned_ ? rhs : lhs});
}

llvm::Value *IntegerDotStep::addArmMatrix(llvm::Value *sums, llvm::Value *lhs,
                                          llvm::Value *rhs) const {
  // smmla / ummla: both of one signedness; usmmla: u8 lhs by s8 rhs (an s8
  // lhs by a u8 rhs was flipped to u8, see signRule).
  llvm::Intrinsic::ID id = lhsSigned_ != rhsSigned_ ? llvm::Intrinsic::aarch64_neon_usmmla
                           : lhsSigned_             ? llvm::Intrinsic::aarch64_neon_smmla
                                                    : llvm::Intrinsic::aarch64_neon_ummla;
  return b_.CreateIntrinsic(id, {sums->getType(), lhs->getType()}, {sums, lhs, rhs});
}

llvm::Value *IntegerDotStep::addArmMultiplyPairs(llvm::Value *sums, llvm::Value *lhs,
                                                 llvm::Value *rhs) const {
  const unsigned lanes = lanesOf(sums);
  if (lanes != 4 && lanes != 2)
    return addWidened(sums, lhs, rhs);
  // smull / umull: each byte product exact in 16 bits (u16 when unsigned);
  // sadalp / uadalp: adjacent pairs added into the s32 sums.
  llvm::Value *products = b_.CreateMul(extend(lhs, 16, lhsSigned_), extend(rhs, 16, rhsSigned_));
  llvm::Value *pairs = b_.CreateIntrinsic(lhsSigned_ ? llvm::Intrinsic::aarch64_neon_saddlp
                                                     : llvm::Intrinsic::aarch64_neon_uaddlp,
                                          {sums->getType(), products->getType()}, {products});
  return b_.CreateAdd(sums, pairs);
}

llvm::Value *IntegerDotStep::addArmPartialSums(llvm::Value *sums, llvm::Value *lhs,
                                               llvm::Value *rhs) const {
  if (lanesOf(sums) != 4 || lanesOf(lhs) != 16)
    return addWidened(sums, lhs, rhs);
  // smull (umull) of each half of the 16 bytes: eight 16-bit products each;
  // with pairsInWords_ the two halves add in 16 bits (smlal2) before
  // sadalp widens adjacent pairs into the four partial sums.
  llvm::Value *halves[2];
  for (int half = 0; half < 2; ++half) {
    llvm::SmallVector<int, 8> lanes;
    for (int lane = 0; lane < 8; ++lane)
      lanes.push_back(half * 8 + lane);
    halves[half] = b_.CreateMul(extend(b_.CreateShuffleVector(lhs, lanes), 16, lhsSigned_),
                                extend(b_.CreateShuffleVector(rhs, lanes), 16, rhsSigned_));
  }
  auto pairs = [&](llvm::Value *products) {
    return b_.CreateIntrinsic(lhsSigned_ ? llvm::Intrinsic::aarch64_neon_saddlp
                                         : llvm::Intrinsic::aarch64_neon_uaddlp,
                              {sums->getType(), products->getType()}, {products});
  };
  if (pairsInWords_)
    return b_.CreateAdd(sums, pairs(b_.CreateAdd(halves[0], halves[1])));
  return b_.CreateAdd(b_.CreateAdd(sums, pairs(halves[0])), pairs(halves[1]));
}

llvm::Value *IntegerDotStep::reduceFourColumns(llvm::ArrayRef<llvm::Value *> columns) const {
  auto pairs = [&](llvm::Value *x, llvm::Value *y) {
    return b_.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_addp, {x->getType()}, {x, y});
  };
  // [a0+a1, a2+a3, b0+b1, b2+b3] and the same of c and d, then their pairs.
  return pairs(pairs(columns[0], columns[1]), pairs(columns[2], columns[3]));
}

llvm::Value *IntegerDotStep::addArmDsp(llvm::Value *sums, llvm::Value *lhs,
                                       llvm::Value *rhs) const {
  if (lanesOf(sums) != 1 || lanesOf(lhs) != 4)
    return addWidened(sums, lhs, rhs);
  // sxtb16 / uxtb16 take bytes 0 and 2 of a word as two 16-bit halves (bytes
  // 1 and 3 after rotating by 8); smlad adds both halves' products. Which
  // bytes pair up does not matter: all four products are added.
  llvm::Value *words[2] = {b_.CreateBitCast(lhs, b_.getInt32Ty()),
                           b_.CreateBitCast(rhs, b_.getInt32Ty())};
  const bool isSigned[2] = {lhsSigned_, rhsSigned_};
  auto halves = [&](int side, bool rotated) {
    llvm::Value *word = words[side];
    if (rotated)
      word = b_.CreateIntrinsic(llvm::Intrinsic::fshr, {word->getType()},
                                {word, word, b_.getInt32(8)});
    return b_.CreateIntrinsic(
        isSigned[side] ? llvm::Intrinsic::arm_sxtb16 : llvm::Intrinsic::arm_uxtb16, {}, {word});
  };
  for (bool rotated : {false, true})
    sums = b_.CreateIntrinsic(llvm::Intrinsic::arm_smlad, {},
                              {halves(0, rotated), halves(1, rotated), sums});
  return sums;
}

llvm::Value *IntegerDotStep::addMveReduce(llvm::Value *sums, llvm::Value *lhs,
                                          llvm::Value *rhs) const {
  if (lanesOf(sums) != 1 || lanesOf(lhs) != 16)
    return addWidened(sums, lhs, rhs);
  // vmladava: sums + the 16 products, both operands of one signedness.
  return b_.CreateIntrinsic(
      llvm::Intrinsic::arm_mve_vmldava, {lhs->getType()},
      {b_.getInt32(lhsSigned_ ? 0 : 1), b_.getInt32(0), b_.getInt32(0), sums, lhs, rhs});
}

} // namespace mote::codegen
