//===- NanFixups.cpp - bf16's NaN quieting as one AVX-512 fixup -----------===//
//
// f32 -> bf16 keeps a NaN as a NaN by setting its quiet bit before the top
// half is taken (math::emitF32ToBF16): select(x unordered, bits | 0x400000,
// rounded), which x86-64 with AVX-512 selects as a compare into a mask
// register (port 5) and an or merged under it. vfixupimmps classifies each
// lane of x and picks from a table of tokens: a quiet NaN gives x, a
// signalling NaN x with its quiet bit set (x | 0x400000 for both), every
// other class keeps the rounded lane as it is. One instruction where there
// were two.
//
// A relu after the rounding, select(r < 0, +0, r) on the rounded value r
// (its low half cleared), whose readers take only the top half (a bf16
// store: a shift right by 16, or an and with 0xffff0000 where an odd
// channel's result is the top half of a 32-bit pair), folds into the same
// fixup: r < 0 exactly where x < -2^-134 (half
// the least bf16 subnormal, a tie, rounds to -0, which the relu keeps), so
// the fixup zeroes those lanes under a mask from one compare of x, true for
// NaN, and the low half is left as it is: one compare where the and and
// the maximum were. A bf16 epilogue after a dot rounds twice (the sum, then
// the bias add): DS-CNN's x86-64-v4 epilogue loops take 32 instructions per
// 32 outputs, where they took 36. The rewrite is on the optimised IR, after
// RoundingMasks.cpp.
//
//===----------------------------------------------------------------------===//

#include "output/BackendWorkarounds.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Local.h"

namespace mote::output {

namespace {

/// vfixupimmps's table, four bits a class of the classified lane: quiet
/// NaN (class 0) -> token 1, the lane itself; signalling NaN (class 1) ->
/// token 2, the lane quieted; zero, one, infinities and other values
/// (classes 2-7) -> token 0, the destination lane unchanged.
constexpr uint32_t quietNanTable = 0x21;

/// The fixup of `lanes` (4, 8 or 16) i32 lanes: `rounded` where the f32
/// bits `x` are not NaN, `x` quieted where they are; with `kept` (i1
/// lanes), zero in the lanes it does not keep.
llvm::Value *fixupLanes(llvm::IRBuilderBase &b, llvm::Value *rounded, llvm::Value *x,
                        llvm::Value *kept, unsigned lanes) {
  llvm::Type *floats = llvm::FixedVectorType::get(b.getFloatTy(), lanes);
  llvm::Type *ints = llvm::FixedVectorType::get(b.getInt32Ty(), lanes);
  llvm::Value *table = llvm::ConstantInt::get(ints, quietNanTable);
  llvm::SmallVector<llvm::Value *, 6> arguments = {
      b.CreateBitCast(rounded, floats), b.CreateBitCast(x, floats), table, b.getInt32(0)};
  // The mask register: one bit a lane, at least 8.
  llvm::Type *maskType = b.getIntNTy(std::max(lanes, 8u));
  llvm::Value *mask = llvm::Constant::getAllOnesValue(maskType);
  if (kept) {
    llvm::SmallVector<int, 16> padded;
    for (unsigned lane = 0; lane < maskType->getIntegerBitWidth(); ++lane)
      padded.push_back(int(std::min(lane, lanes)));
    llvm::Value *bits =
        lanes < 8
            ? b.CreateShuffleVector(kept, llvm::Constant::getNullValue(kept->getType()), padded)
            : kept;
    mask = b.CreateBitCast(bits, maskType);
  }
  arguments.push_back(mask);
  if (lanes == 16)
    arguments.push_back(b.getInt32(4)); // the current rounding mode
  const llvm::Intrinsic::ID masked[] = {llvm::Intrinsic::x86_avx512_mask_fixupimm_ps_128,
                                        llvm::Intrinsic::x86_avx512_mask_fixupimm_ps_256,
                                        llvm::Intrinsic::x86_avx512_mask_fixupimm_ps_512};
  const llvm::Intrinsic::ID zeroing[] = {llvm::Intrinsic::x86_avx512_maskz_fixupimm_ps_128,
                                         llvm::Intrinsic::x86_avx512_maskz_fixupimm_ps_256,
                                         llvm::Intrinsic::x86_avx512_maskz_fixupimm_ps_512};
  const unsigned width = lanes == 4 ? 0 : lanes == 8 ? 1 : 2;
  return b.CreateBitCast(b.CreateIntrinsic(kept ? zeroing[width] : masked[width], {}, arguments),
                         ints);
}

/// The lanes [begin, begin + count) of `vector`.
llvm::Value *piece(llvm::IRBuilderBase &b, llvm::Value *vector, unsigned begin, unsigned count) {
  return b.CreateShuffleVector(vector, llvm::createSequentialMask(begin, count, 0));
}

/// `rounded` where `x` is not NaN, `x` quieted where it is (both as i32
/// lanes, as the rounding reads them), zero where `kept` (null: every
/// lane) is false, in pieces of at most 16 lanes. A piece of x is frozen:
/// the backend otherwise narrows the piece cut from a loaded x into a load
/// of its own, a second load of lanes the rounding's integer code already
/// holds in a register.
llvm::Value *fixupQuietNans(llvm::IRBuilderBase &b, llvm::Value *rounded, llvm::Value *x,
                            llvm::Value *kept, unsigned lanes) {
  const unsigned width = std::min(lanes, 16u);
  if (width == lanes)
    return fixupLanes(b, rounded, x, kept, lanes);
  llvm::SmallVector<llvm::Value *, 4> pieces;
  for (unsigned begin = 0; begin < lanes; begin += width)
    pieces.push_back(fixupLanes(b, piece(b, rounded, begin, width),
                                b.CreateFreeze(piece(b, x, begin, width)),
                                kept ? piece(b, kept, begin, width) : nullptr, width));
  return llvm::concatenateVectors(b, pieces);
}

/// Whether `lanes` f32 lanes are whole registers the fixup takes on
/// `machine` (16 with AVX-512F; 4 and 8 with AVX-512VL too).
bool fixesLanes(const llvm::MCSubtargetInfo &subtarget, unsigned lanes) {
  if (lanes >= 16)
    return lanes % 16 == 0 && (lanes / 16 & (lanes / 16 - 1)) == 0;
  return (lanes == 4 || lanes == 8) && subtarget.checkFeatures("+avx512vl");
}

/// The f32 edge below which a value rounds to a bf16 below zero: -2^-134,
/// half the least bf16 subnormal, rounds to -0 (a tie, to the even zero).
constexpr float negativeRoundingEdge = -0x1p-134f;

/// The relu after a bf16 rounding `quieting` ends, when every reader of it
/// takes only its top half, or null. The rounding ends in
/// and(quieting, 0xffff0000) read as f32 f, the relu is select(f < 0, +0,
/// f) (codegen's maximum with zero: -0 and NaN kept), and its readers shift
/// its bits right by 16 (the narrowing to bf16) or clear their low half
/// (the top half of a pair of bf16 results stored as 32 bits).
llvm::SelectInst *reluOfTopHalf(llvm::SelectInst *quieting) {
  using namespace llvm::PatternMatch;
  if (!quieting->hasOneUse())
    return nullptr;
  auto *cleared = llvm::dyn_cast<llvm::Instruction>(quieting->user_back());
  if (!cleared || !cleared->hasOneUse() ||
      !match(cleared, m_And(m_Specific(quieting), m_SpecificInt(0xffff0000))))
    return nullptr;
  auto *rounded = llvm::dyn_cast<llvm::BitCastInst>(cleared->user_back());
  if (!rounded || !rounded->getType()->getScalarType()->isFloatTy() || !rounded->hasNUses(2))
    return nullptr;
  llvm::SelectInst *relu = nullptr;
  for (llvm::User *user : rounded->users()) {
    llvm::FCmpInst::Predicate predicate;
    auto *select = llvm::dyn_cast<llvm::SelectInst>(user);
    if (select && select->getTrueValue() != rounded &&
        match(select, m_Select(m_OneUse(m_FCmp(predicate, m_Specific(rounded), m_AnyZeroFP())),
                               m_PosZeroFP(), m_Specific(rounded))) &&
        predicate == llvm::FCmpInst::FCMP_OLT)
      relu = select;
  }
  if (!relu)
    return nullptr;
  for (llvm::User *user : relu->users()) {
    auto *bits = llvm::dyn_cast<llvm::BitCastInst>(user);
    if (!bits || !bits->getType()->getScalarType()->isIntegerTy(32))
      return nullptr;
    for (llvm::User *reader : bits->users())
      if (!match(reader, m_LShr(m_Specific(bits), m_SpecificInt(16))) &&
          !match(reader, m_And(m_Specific(bits), m_SpecificInt(0xffff0000))))
        return nullptr;
  }
  return relu;
}

} // namespace

unsigned quietBf16NansWithFixups(llvm::Module &module, const llvm::TargetMachine &machine) {
  const llvm::MCSubtargetInfo *subtarget = machine.getMCSubtargetInfo();
  if (machine.getTargetTriple().getArch() != llvm::Triple::x86_64 || !subtarget ||
      !subtarget->checkFeatures("+avx512f"))
    return 0;
  using namespace llvm::PatternMatch;
  struct Quieting {
    llvm::SelectInst *select;
    llvm::Value *x; ///< the f32 lanes rounded
  };
  llvm::SmallVector<Quieting, 64> quietings;
  for (llvm::Function &function : module)
    for (llvm::Instruction &instruction : llvm::instructions(function)) {
      auto *select = llvm::dyn_cast<llvm::SelectInst>(&instruction);
      auto *type = select ? llvm::dyn_cast<llvm::FixedVectorType>(select->getType()) : nullptr;
      if (!type || !type->getElementType()->isIntegerTy(32) ||
          !fixesLanes(*subtarget, type->getNumElements()))
        continue;
      llvm::Value *x = nullptr;
      llvm::FCmpInst::Predicate predicate;
      if (!match(select->getCondition(), m_FCmp(predicate, m_Value(x), m_AnyZeroFP())) &&
          !match(select->getCondition(), m_FCmp(predicate, m_Value(x), m_Deferred(x))))
        continue;
      if (predicate != llvm::FCmpInst::FCMP_UNO || !x->getType()->getScalarType()->isFloatTy())
        continue;
      if (match(select->getTrueValue(), m_Or(m_BitCast(m_Specific(x)), m_SpecificInt(0x00400000))))
        quietings.push_back({select, x});
    }
  for (const Quieting &quieting : quietings) {
    llvm::SelectInst *select = quieting.select;
    llvm::IRBuilder<> b(select);
    const unsigned lanes = llvm::cast<llvm::FixedVectorType>(select->getType())->getNumElements();
    llvm::Value *bits = llvm::cast<llvm::Instruction>(select->getTrueValue())->getOperand(0);
    // A relu whose readers take the top half: its zero lanes are those of
    // x below the rounding edge, and the low half need not be cleared.
    llvm::SelectInst *relu = reluOfTopHalf(select);
    llvm::Value *kept =
        relu ? b.CreateFCmpUGE(quieting.x,
                               llvm::ConstantFP::get(quieting.x->getType(), negativeRoundingEdge))
             : nullptr;
    llvm::Value *replacement = fixupQuietNans(b, select->getFalseValue(), bits, kept, lanes);
    llvm::Instruction *replaced = relu ? relu : select;
    if (relu)
      replacement = b.CreateBitCast(replacement, relu->getType());
    replacement->takeName(replaced);
    llvm::SmallVector<llvm::WeakTrackingVH, 3> operands(replaced->operands());
    replaced->replaceAllUsesWith(replacement);
    replaced->eraseFromParent();
    // The compares, the or (and the relu's and), once unused.
    llvm::RecursivelyDeleteTriviallyDeadInstructionsPermissive(operands);
  }
  return unsigned(quietings.size());
}

} // namespace mote::output
