//===- NanFixups.cpp - bf16's NaN quieting as one AVX-512 fixup -----------===//
//
// f32 -> bf16 keeps a NaN as a NaN by setting its quiet bit before the top
// half is taken (math::emitF32ToBF16): select(x unordered, bits | 0x400000,
// rounded), which x86-64 with AVX-512 selects as a compare into a mask
// register (port 5) and an or merged under it. vfixupimmps classifies each
// lane of x and picks from a table of tokens: a quiet NaN gives x, a
// signalling NaN x with its quiet bit set (x | 0x400000 for both), every
// other class keeps the rounded lane as it is. One instruction where there
// were two; a bf16 epilogue after a dot rounds twice (the sum, then the bias
// add), so DS-CNN's takes 4 of the 36 instructions per 32 outputs of its
// x86-64-v4 epilogue loops. The rewrite is on the optimised IR, after
// RoundingMasks.cpp.
//
//===----------------------------------------------------------------------===//

#include "output/BackendWorkarounds.h"

#include "llvm/ADT/SmallVector.h"
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
/// bits `x` are not NaN, `x` quieted where they are.
llvm::Value *fixupLanes(llvm::IRBuilderBase &b, llvm::Value *rounded, llvm::Value *x,
                        unsigned lanes) {
  llvm::Type *floats = llvm::FixedVectorType::get(b.getFloatTy(), lanes);
  llvm::Type *ints = llvm::FixedVectorType::get(b.getInt32Ty(), lanes);
  llvm::Value *table = llvm::ConstantInt::get(ints, quietNanTable);
  llvm::SmallVector<llvm::Value *, 6> arguments = {
      b.CreateBitCast(rounded, floats), b.CreateBitCast(x, floats), table, b.getInt32(0)};
  llvm::Intrinsic::ID id = llvm::Intrinsic::x86_avx512_mask_fixupimm_ps_512;
  if (lanes == 16) {
    arguments.push_back(b.getInt16(0xffff));
    arguments.push_back(b.getInt32(4)); // the current rounding mode
  } else {
    id = lanes == 8 ? llvm::Intrinsic::x86_avx512_mask_fixupimm_ps_256
                    : llvm::Intrinsic::x86_avx512_mask_fixupimm_ps_128;
    arguments.push_back(b.getInt8(0xff));
  }
  return b.CreateBitCast(b.CreateIntrinsic(id, {}, arguments), ints);
}

/// `rounded` where `x` is not NaN, `x` quieted where it is (both as i32
/// lanes, as the rounding reads them), in pieces of at most 16 lanes. A
/// piece of x is frozen: the backend otherwise narrows the piece cut from a
/// loaded x into a load of its own, a second load of lanes the rounding's
/// integer code already holds in a register.
llvm::Value *fixupQuietNans(llvm::IRBuilderBase &b, llvm::Value *rounded, llvm::Value *x,
                            unsigned lanes) {
  const unsigned piece = std::min(lanes, 16u);
  if (piece == lanes)
    return fixupLanes(b, rounded, x, lanes);
  llvm::SmallVector<llvm::Value *, 4> pieces;
  for (unsigned begin = 0; begin < lanes; begin += piece) {
    llvm::SmallVector<int, 16> part;
    for (unsigned lane = 0; lane < piece; ++lane)
      part.push_back(int(begin + lane));
    pieces.push_back(fixupLanes(b, b.CreateShuffleVector(rounded, part),
                                b.CreateFreeze(b.CreateShuffleVector(x, part)), piece));
  }
  // Concatenated back in order, pairs of pieces at a time.
  while (pieces.size() > 1) {
    llvm::SmallVector<llvm::Value *, 4> joined;
    for (size_t i = 0; i < pieces.size(); i += 2) {
      const unsigned width =
          llvm::cast<llvm::FixedVectorType>(pieces[i]->getType())->getNumElements();
      llvm::SmallVector<int, 32> both;
      for (unsigned lane = 0; lane < 2 * width; ++lane)
        both.push_back(int(lane));
      joined.push_back(b.CreateShuffleVector(pieces[i], pieces[i + 1], both));
    }
    pieces = std::move(joined);
  }
  return pieces.front();
}

/// Whether `lanes` f32 lanes are whole registers the fixup takes on
/// `machine` (16 with AVX-512F; 4 and 8 with AVX-512VL too).
bool fixesLanes(const llvm::MCSubtargetInfo &subtarget, unsigned lanes) {
  if (lanes >= 16)
    return lanes % 16 == 0 && (lanes / 16 & (lanes / 16 - 1)) == 0;
  return (lanes == 4 || lanes == 8) && subtarget.checkFeatures("+avx512vl");
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
    llvm::Value *replacement = fixupQuietNans(b, select->getFalseValue(), bits, lanes);
    replacement->takeName(select);
    llvm::SmallVector<llvm::WeakTrackingVH, 2> operands = {select->getCondition(),
                                                           select->getTrueValue()};
    select->replaceAllUsesWith(replacement);
    select->eraseFromParent();
    // The compare and the or, once unused.
    llvm::RecursivelyDeleteTriviallyDeadInstructionsPermissive(operands);
  }
  return unsigned(quietings.size());
}

} // namespace mote::output
