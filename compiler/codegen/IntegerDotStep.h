//===- IntegerDotStep.h - One step of an integer tile -------------*- C++ -*-===//
///
/// \file
/// Internal to the integer contraction kernel (IntegerContraction.h): the
/// instructions of one step of a tile for each IntegerDotForm, which add, to
/// each of L lanes of s32 sums, the products of the G lhs and G rhs values of
/// that lane. Lane counts a form's instruction does not come in (a tail
/// tile's single column, a vector narrower than the instruction's) take the
/// same arithmetic in plain widened IR.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_INTEGERDOTSTEP_H
#define MOTE_CODEGEN_INTEGERDOTSTEP_H

#include "codegen/IntegerContraction.h"

namespace mote::codegen {

/// IntegerDotStep::addsProductPairs() of `form` for `plan` on `triple`:
/// AArch64's widening form over rows of s8 by constant s8 weights free of
/// -128 (a depthwise convolution's), whose tiles then leave registers for
/// two indices' products.
bool integerProductPairs(IntegerDotForm form, const ContractionPlan &plan,
                         const llvm::Triple &triple);

/// IntegerDotStep::lhsOffset() of `form` for `plan` on `spec`.
int integerLhsOffset(IntegerDotForm form, const ContractionPlan &plan,
                     const target::TargetSpec *spec);

/// Vector registers a step of `form` holds besides the tile's sums and
/// operands (ContractionPlan::extraRegisters).
unsigned integerStepRegisters(IntegerDotForm form, const ContractionPlan &plan,
                              const target::TargetSpec *spec);

class IntegerDotStep {
public:
  IntegerDotStep(llvm::IRBuilderBase &builder, IntegerDotForm form, const ContractionPlan &plan,
                 const llvm::Triple &triple, const target::TargetSpec *spec);

  IntegerDotForm form() const { return form_; }
  /// G: consecutive values of the innermost contracting dimension a step takes.
  unsigned group() const { return group_; }
  /// What flipping the top bit of each lhs value adds to it (128 for s8,
  /// -128 for u8) when the form's instruction wants the lhs in the other
  /// signedness; 0 when the lhs is used as it is.
  int lhsOffset() const { return lhsOffset_; }

  /// `values` (lhs elements) with their top bits flipped, if lhsOffset().
  llvm::Value *adjustLhs(llvm::Value *values) const;

  /// The exact products of lhs and rhs elements lane by lane (16 bits for
  /// bytes, read as u16 when both are unsigned, else s16; 32 bits
  /// otherwise), and `sums` plus such products widened to s32.
  llvm::Value *products(llvm::Value *lhs, llvm::Value *rhs) const;
  llvm::Value *addProductValues(llvm::Value *sums, llvm::Value *products) const;

  /// Whether the widening form adds two contracting indices' 16-bit
  /// products() before it widens them (exact: s8 by constant s8 weights
  /// free of -128, integerProductPairs).
  bool addsProductPairs() const { return pairsInWords_ && form_ == IntegerDotForm::Widening; }

  /// s32 lanes each sum holds: partial sums added up when the tile is
  /// stored (4 for ArmPartialSums), else 1.
  unsigned sumLanes() const { return form_ == IntegerDotForm::ArmPartialSums ? 4 : 1; }

  /// The totals of four columns' partial sums (sumLanes() lanes each), as
  /// one vector of four s32: two rounds of pairwise adds (addp).
  llvm::Value *reduceFourColumns(llvm::ArrayRef<llvm::Value *> columns) const;

  /// Whether addByteQuad applies: a Cortex-M with the DSP extension and no
  /// Helium, byte operands.
  bool addsByteQuads() const { return byteQuads_; }
  /// The four scalar `sums` plus the products of the four bytes of `lhs` and
  /// `rhs` (i32 words), byte by byte: sxtb16 / uxtb16 and smlabb / smlatt,
  /// ten instructions for four products.
  void addByteQuad(llvm::MutableArrayRef<llvm::Value *> sums, llvm::Value *lhs,
                   llvm::Value *rhs) const;

  /// `sums` (L lanes of s32) plus, in each lane l, the products of lhs and
  /// rhs elements l * G ... l * G + G - 1. Both are vectors of L * G
  /// elements (or scalars when L * G is 1); the lhs already adjusted.
  llvm::Value *addProducts(llvm::Value *sums, llvm::Value *lhs, llvm::Value *rhs) const;

private:
  llvm::Value *addWidened(llvm::Value *sums, llvm::Value *lhs, llvm::Value *rhs) const;
  llvm::Value *addX86Vnni(llvm::Value *sums, llvm::Value *lhs, llvm::Value *rhs) const;
  llvm::Value *addX86MaddWords(llvm::Value *sums, llvm::Value *lhs, llvm::Value *rhs) const;
  llvm::Value *addArmDot(llvm::Value *sums, llvm::Value *lhs, llvm::Value *rhs) const;
  /// `sums` a 2x2 block [r0c0 r0c1 r1c0 r1c1], `lhs` two rows' 8 bytes,
  /// `rhs` two columns' 8 bytes.
  llvm::Value *addArmMatrix(llvm::Value *sums, llvm::Value *lhs, llvm::Value *rhs) const;
  llvm::Value *addArmMultiplyPairs(llvm::Value *sums, llvm::Value *lhs, llvm::Value *rhs) const;
  llvm::Value *addArmPartialSums(llvm::Value *sums, llvm::Value *lhs, llvm::Value *rhs) const;
  llvm::Value *addArmDsp(llvm::Value *sums, llvm::Value *lhs, llvm::Value *rhs) const;
  llvm::Value *addMveReduce(llvm::Value *sums, llvm::Value *lhs, llvm::Value *rhs) const;
  /// `values` sign- or zero-extended (by `isSigned`) to elements of `bits`.
  llvm::Value *extend(llvm::Value *values, unsigned bits, bool isSigned) const;
  bool has(llvm::StringRef feature) const;

  llvm::IRBuilderBase &b_;
  IntegerDotForm form_;
  const target::TargetSpec *spec_;
  unsigned group_ = 1;
  int lhsOffset_ = 0;
  bool lhsSigned_, rhsSigned_; ///< as the instructions see them (the lhs after adjustLhs)
  bool byteQuads_ = false;
  /// Two byte products add exactly in s16: both operands signed and the
  /// constant rhs free of -128 (so |each product| <= 128 * 127).
  bool pairsInWords_ = false;
  unsigned lhsBits_, rhsBits_;
};

} // namespace mote::codegen

#endif // MOTE_CODEGEN_INTEGERDOTSTEP_H
