//===- MathHalf.cpp - f16 and bf16 conversions as integer IR --------------===//
//
// Targets without half-precision hardware would turn fpext/fptrunc of half
// into __extendhfsf2 / __truncsfhf2 calls, so the conversions are done on the
// bit patterns. Narrowing rounds to nearest, ties to even, exactly once
// (f64 -> f16 directly, not through f32). NaNs stay NaN: quieted, sign and
// top payload bits kept.
//
//===----------------------------------------------------------------------===//

#include "codegen/MathEmitter.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace mote::codegen::math {
namespace {

/// Integer operations on one integer type (scalar or vector).
struct IntIR {
  IRBuilderBase &b;
  Type *ty;
  IRBuilderBase::FastMathFlagGuard guard;

  IntIR(IRBuilderBase &builder, Type *like, unsigned width)
      : b(builder), ty(withWidth(like, width)), guard(builder) {
    b.clearFastMathFlags();
  }
  static Type *withWidth(Type *like, unsigned width) {
    Type *s = IntegerType::get(like->getContext(), width);
    if (auto *vt = dyn_cast<VectorType>(like))
      return VectorType::get(s, vt->getElementCount());
    return s;
  }
  Value *k(uint64_t v) { return ConstantInt::get(ty, v); }
  Value *add(Value *a, Value *x) { return b.CreateAdd(a, x); }
  Value *sub(Value *a, Value *x) { return b.CreateSub(a, x); }
  Value *band(Value *a, uint64_t x) { return b.CreateAnd(a, k(x)); }
  Value *bor(Value *a, Value *x) { return b.CreateOr(a, x); }
  Value *shl(Value *a, Value *s) { return b.CreateShl(a, s); }
  Value *shl(Value *a, uint64_t s) { return b.CreateShl(a, k(s)); }
  Value *shr(Value *a, Value *s) { return b.CreateLShr(a, s); }
  Value *shr(Value *a, uint64_t s) { return b.CreateLShr(a, k(s)); }
  Value *ugt(Value *a, uint64_t x) { return b.CreateICmpUGT(a, k(x)); }
  Value *uge(Value *a, uint64_t x) { return b.CreateICmpUGE(a, k(x)); }
  Value *eq(Value *a, uint64_t x) { return b.CreateICmpEQ(a, k(x)); }
  Value *sel(Value *c, Value *t, Value *f) { return b.CreateSelect(c, t, f); }

  /// Rounds `mant` >> s to nearest, ties to even; 1 <= s <= width - 1.
  Value *shiftRightRounded(Value *mant, Value *s) {
    Value *q = shr(mant, s);
    Value *rem = b.CreateAnd(mant, sub(shl(k(1), s), k(1)));
    Value *half = shl(k(1), sub(s, k(1)));
    Value *tie = b.CreateAnd(b.CreateICmpEQ(rem, half), b.CreateICmpNE(band(q, 1), k(0)));
    Value *up = b.CreateOr(b.CreateICmpUGT(rem, half), tie);
    return add(q, b.CreateZExt(up, ty));
  }
  /// min(a, limit) on unsigned values.
  Value *umin(Value *a, uint64_t limit) { return sel(ugt(a, limit), k(limit), a); }
};

/// The sign, exponent field and mantissa field of binary16 bits widened to
/// `width`, and the position of the leading mantissa bit for subnormals
/// (ctlz of the 32-bit mantissa).
struct HalfFields {
  Value *sign, *exp, *mant, *lz;
};

HalfFields splitHalf(IntIR &i, Value *h16, unsigned width) {
  IntIR i32(i.b, h16->getType(), 32);
  Value *h = i32.b.CreateZExt(h16, i32.ty);
  Value *mant32 = i32.band(h, 0x3ff);
  Value *lz = i.b.CreateBinaryIntrinsic(Intrinsic::ctlz, mant32, i.b.getFalse());
  auto widen = [&](Value *v) { return width == 32 ? v : i.b.CreateZExt(v, i.ty); };
  return {widen(i32.band(h, 0x8000)), widen(i32.band(i32.shr(h, 10), 0x1f)), widen(mant32),
          widen(lz)};
}

/// Binary16 bits to a float of `mantBits`/`bias` held in `i.ty`.
Value *widenHalf(IntIR &i, Value *h16, unsigned mantBits, unsigned bias) {
  unsigned width = mantBits == 23 ? 32 : 64;
  HalfFields f = splitHalf(i, h16, width);
  Value *sign = i.shl(f.sign, width - 16);
  Value *mantField = i.shl(f.mant, mantBits - 10);
  Value *normal = i.bor(i.shl(i.add(f.exp, i.k(bias - 15)), mantBits), mantField);
  uint64_t expAllOnes = ((uint64_t(1) << (width - 1 - mantBits)) - 1) << mantBits;
  Value *special = i.bor(i.k(expAllOnes), mantField);
  // Subnormal half: mant * 2^-24 with the leading bit at 31 - lz.
  Value *subExp = i.sub(i.k(bias + 31 - 24), f.lz);
  Value *toTop = mantBits >= 31 ? i.add(f.lz, i.k(mantBits - 31)) : i.sub(f.lz, i.k(31 - mantBits));
  Value *subMant = i.band(i.shl(f.mant, toTop), (uint64_t(1) << mantBits) - 1);
  Value *sub = i.bor(i.shl(subExp, mantBits), subMant);
  Value *zeroOrSub = i.sel(i.eq(f.mant, 0), i.k(0), sub);
  Value *mag = i.sel(i.eq(f.exp, 31), special, i.sel(i.eq(f.exp, 0), zeroOrSub, normal));
  return i.bor(sign, mag);
}

/// Float bits (f32 or f64 layout in `i.ty`) to binary16 bits, RNE.
Value *narrowToHalf(IntIR &i, Value *bits, unsigned mantBits, unsigned bias) {
  unsigned width = mantBits == 23 ? 32 : 64;
  uint64_t absMask = (uint64_t(1) << (width - 1)) - 1;
  uint64_t infBits = ((uint64_t(1) << (width - 1 - mantBits)) - 1) << mantBits;
  unsigned drop = mantBits - 10;
  Value *sign = i.band(i.shr(bits, width - 16), 0x8000);
  Value *abs = i.band(bits, absMask);
  Value *nan = i.bor(i.k(0x7e00), i.band(i.shr(abs, drop), 0x3ff));
  // 65520 = (2 - 2^-11) * 2^15 is the midpoint above the largest half.
  uint64_t overflowAt = (uint64_t(bias + 15) << mantBits) | (uint64_t(0x7ff) << (mantBits - 11));
  uint64_t minNormal = uint64_t(bias - 14) << mantBits;
  Value *lsb = i.band(i.shr(abs, drop), 1);
  Value *rounded = i.add(i.add(abs, i.k((uint64_t(1) << (drop - 1)) - 1)), lsb);
  Value *normal = i.shr(i.sub(rounded, i.k(uint64_t(bias - 15) << mantBits)), drop);
  // Below 2^-14: round mant * 2^(e - bias - mantBits + 24) to an integer.
  Value *e = i.shr(abs, mantBits);
  Value *mant = i.bor(i.band(abs, (uint64_t(1) << mantBits) - 1), i.k(uint64_t(1) << mantBits));
  // Clamped into [1, width - 1] so no lane (even unselected) shifts out of range.
  Value *s = i.umin(i.sub(i.k(bias + mantBits - 24), e), width - 1);
  s = i.sel(i.eq(s, 0), i.k(1), s);
  Value *sub = i.shiftRightRounded(mant, s);
  Value *mag =
      i.sel(i.ugt(abs, infBits), nan,
            i.sel(i.uge(abs, overflowAt), i.k(0x7c00), i.sel(i.uge(abs, minNormal), normal, sub)));
  Value *r = i.bor(sign, mag);
  return i.b.CreateTrunc(r, IntIR::withWidth(bits->getType(), 16));
}

} // namespace

Value *emitF16ToF32(IRBuilderBase &b, Value *bits) {
  IntIR i(b, bits->getType(), 32);
  Value *r = widenHalf(i, bits, 23, 127);
  Type *f = b.getFloatTy();
  if (auto *vt = dyn_cast<VectorType>(bits->getType()))
    return b.CreateBitCast(r, VectorType::get(f, vt->getElementCount()));
  return b.CreateBitCast(r, f);
}

Value *emitF16ToF64(IRBuilderBase &b, Value *bits) {
  IntIR i(b, bits->getType(), 64);
  Value *r = widenHalf(i, bits, 52, 1023);
  Type *f = b.getDoubleTy();
  if (auto *vt = dyn_cast<VectorType>(bits->getType()))
    return b.CreateBitCast(r, VectorType::get(f, vt->getElementCount()));
  return b.CreateBitCast(r, f);
}

Value *emitF32ToF16(IRBuilderBase &b, Value *x) {
  IntIR i(b, x->getType(), 32);
  return narrowToHalf(i, b.CreateBitCast(x, i.ty), 23, 127);
}

Value *emitF64ToF16(IRBuilderBase &b, Value *x) {
  IntIR i(b, x->getType(), 64);
  return narrowToHalf(i, b.CreateBitCast(x, i.ty), 52, 1023);
}

Value *emitBF16ToF32(IRBuilderBase &b, Value *bits) {
  IntIR i(b, bits->getType(), 32);
  Value *r = i.shl(b.CreateZExt(bits, i.ty), 16);
  Type *f = b.getFloatTy();
  if (auto *vt = dyn_cast<VectorType>(bits->getType()))
    return b.CreateBitCast(r, VectorType::get(f, vt->getElementCount()));
  return b.CreateBitCast(r, f);
}

Value *emitF32ToBF16(IRBuilderBase &b, Value *x) {
  IntIR i(b, x->getType(), 32);
  Value *bits = b.CreateBitCast(x, i.ty);
  // x86-64 and AArch64 always have float compares: one compare finds the
  // NaNs where the integer test takes two instructions (elsewhere, without
  // a float unit, the compare would be a library call).
  BasicBlock *block = b.GetInsertBlock();
  Triple triple(block && block->getModule() ? block->getModule()->getTargetTriple() : "");
  Value *nan = triple.isX86() || triple.isAArch64() ? b.CreateFCmpUNO(x, x)
                                                    : i.ugt(i.band(bits, 0x7fffffff), 0x7f800000);
  // The rounded value as f32 bits first (low half cleared), then its top
  // half: a consumer that widens it again (a bias add's relu) folds to the
  // f32 bits, where narrowing and widening again would cost two shifts.
  Value *quietNan = i.bor(bits, i.k(0x00400000));
  Value *rounded = i.add(i.add(bits, i.k(0x7fff)), i.band(i.shr(bits, 16), 1));
  Value *wide = i.band(i.sel(nan, quietNan, rounded), 0xffff0000);
  return b.CreateTrunc(i.shr(wide, 16), IntIR::withWidth(x->getType(), 16));
}

} // namespace mote::codegen::math
