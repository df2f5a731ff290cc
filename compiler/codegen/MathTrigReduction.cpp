//===- MathTrigReduction.cpp - Payne-Hanek reduction by pi/2 as inline IR -===//
//
// For |x| = mant * 2^E with a large E, x * 2/pi mod 4 only depends on the
// bits of 2/pi from weight 2^(1-E) down: higher bits give multiples of 4.
// A window of those bits, picked from a constant table by E, is multiplied
// exactly by the integer mantissa in 32-bit limbs; the middle of the product
// is x * 2/pi mod 4 in fixed point (2 integer bits, 62 fraction bits for
// f32, 126 for f64). Rounding it gives the quadrant, and the signed rest
// times pi/2 is the reduced argument. Fixed point leaves enough bits for the
// worst cancellation: no float is closer to a multiple of pi/2 than about
// 2^-31 (f32) or 2^-61 (f64) of a quadrant.
//
// The table words are chosen with select chains on immediate constants, not
// loaded from memory: vector code would need gathers, which not every
// target has. Everything is integer arithmetic of i32/i64 plus ctlz; the f32
// path uses i64 multiply, add and shift only, which 32-bit cores do inline.
//
//===----------------------------------------------------------------------===//

#include "codegen/MathSupport.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace mote::codegen::math {
namespace {

// Bits of 2/pi after the binary point, preceded by 32 zero bits so a window
// may start before the point (small E). Computed from pi by Machin's formula
// in exact integer arithmetic; the leading bits are fdlibm's two_over_pi.
constexpr uint64_t kTwoOverPi64[] = {
    0x00000000a2f9836e, 0x4e441529fc2757d1, 0xf534ddc0db629599, 0x3c439041fe5163ab,
    0xdebbc561b7246e3a, 0x424dd2e006492eea, 0x09d1921cfe1deb1c, 0xb129a73ee88235f5,
    0x2ebb4484e99c7026, 0xb45f7e413991d639, 0x835339f49c845f8b, 0xbdf9283b1ff897ff,
    0xde05980fef2f118b, 0x5a0a6d1f6d367ecf, 0x27cb09b74f463f66, 0x9e5fea2d7527bac7,
    0xebe5f17b3d0739f7, 0x8a5292ea6bfb5fb1, 0x1f8d5d0856033046};
constexpr uint64_t kTwoOverPi32[] = {0x00000000, 0xa2f9836e, 0x4e441529, 0xfc2757d1,
                                     0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab};
constexpr int kPadBits = 32;

/// Integer helpers on i32/i64 of the same shape as the float type.
struct Ints {
  explicit Ints(MathIR &math) : m(math), b(math.b) {
    t32 = shaped(b.getInt32Ty());
    t64 = shaped(b.getInt64Ty());
  }

  Type *shaped(Type *scalar) {
    if (auto *vt = dyn_cast<VectorType>(m.ty))
      return VectorType::get(scalar, vt->getElementCount());
    return scalar;
  }
  Value *k(Type *t, uint64_t v) { return ConstantInt::get(t, v); }
  Value *k64(uint64_t v) { return k(t64, v); }
  Value *add(Value *a, Value *x) { return b.CreateAdd(a, x); }
  Value *sub(Value *a, Value *x) { return b.CreateSub(a, x); }
  Value *mul(Value *a, Value *x) { return b.CreateMul(a, x); }
  Value *band(Value *a, uint64_t mask) { return b.CreateAnd(a, k(a->getType(), mask)); }
  Value *shr(Value *a, uint64_t n) { return b.CreateLShr(a, k(a->getType(), n)); }
  Value *shl(Value *a, uint64_t n) { return b.CreateShl(a, k(a->getType(), n)); }
  Value *wide(Value *a) { return b.CreateZExt(a, t64); }
  Value *lo32(Value *a) { return band(a, 0xffffffffu); }
  Value *ctlz(Value *a) { return b.CreateBinaryIntrinsic(Intrinsic::ctlz, a, b.getFalse()); }

  /// table[offset + idx] for idx in [0, count), as constants of type t.
  Value *pick(Value *idx, ArrayRef<uint64_t> table, unsigned offset, unsigned count, Type *t) {
    Value *v = k(t, table[offset]);
    for (unsigned i = 1; i < count; ++i)
      v = b.CreateSelect(b.CreateICmpEQ(idx, k(idx->getType(), i)), k(t, table[offset + i]), v);
    return v;
  }
  /// The top word of (hi:lo) << s, for s in [0, width).
  Value *funnel(Value *hi, Value *lo, Value *s) {
    unsigned width = hi->getType()->getScalarSizeInBits();
    Value *back = b.CreateSub(k(s->getType(), width - 1), s);
    return b.CreateOr(b.CreateShl(hi, s), b.CreateLShr(shr(lo, 1), back));
  }

  MathIR &m;
  IRBuilderBase &b;
  Type *t32, *t64;
};

/// A fixed-point number of quadrants in [-1/2, 1/2), given as magnitude
/// hi + mid (each exact in the float type) and the quadrant count.
struct Fixed {
  Value *hi, *mid;
  Value *negative; ///< i1: the fraction is negative
  Value *quarter;  ///< round(x 2/pi) mod 4 (any bits above), in m.intTy
};

Fixed reduceF32(MathIR &m, Ints &z, Value *ax) {
  Value *ix = m.bits(ax);
  Value *expo = z.shr(ix, 23);
  Value *mant = z.b.CreateOr(z.band(ix, 0x7fffff), z.k(ix->getType(), 0x800000));
  // |x| = mant 2^E with E = expo - 150; the window starts at the bit of
  // weight 2^(1-E), table bit (E - 2) + pad.
  Value *t = z.sub(expo, z.k(ix->getType(), 150 + 2 - kPadBits));
  Value *w = z.shr(t, 5), *s = z.band(t, 31);
  Value *tw[4];
  for (unsigned j = 0; j < 4; ++j)
    tw[j] = z.pick(w, kTwoOverPi32, j, 5, z.t32);
  Value *w0 = z.funnel(tw[0], tw[1], s), *w1 = z.funnel(tw[1], tw[2], s);
  Value *w2 = z.funnel(tw[2], tw[3], s);
  // mant * (w0:w1:w2) = x 2/pi 2^94 (mod 2^96); keep bits 32..95, so only
  // the low half of mant * w0 matters and the lowest 32 bits are dropped.
  Value *m64 = z.wide(mant);
  Value *r = z.shl(z.wide(z.mul(mant, w0)), 32);
  r = z.add(r, z.mul(m64, z.wide(w1)));
  r = z.add(r, z.shr(z.mul(m64, z.wide(w2)), 32));

  Value *n = z.shr(z.add(r, z.k64(uint64_t(1) << 61)), 62);
  Value *frac = z.sub(r, z.shl(n, 62));
  Value *neg = z.b.CreateICmpSLT(frac, z.k64(0));
  Value *mag = z.b.CreateSelect(neg, z.b.CreateNeg(frac), frac);
  Value *lz = z.b.CreateTrunc(z.ctlz(mag), m.intTy);
  lz = z.b.CreateSelect(z.b.CreateICmpUGT(lz, m.ci(63)), m.ci(63), lz);
  Value *g = z.b.CreateShl(mag, z.b.CreateZExt(lz, z.t64));
  // g 2^(-62-lz) quadrants; 24-bit pieces convert exactly.
  Value *hiBits = z.b.CreateTrunc(z.shr(g, 40), m.intTy);
  Value *midBits = z.band(z.b.CreateTrunc(z.shr(g, 16), m.intTy), 0xffffff);
  Value *hi = m.mul(m.toFloat(hiBits), m.pow2(z.sub(m.ci(-22), lz)));
  Value *mid = m.mul(m.toFloat(midBits), m.pow2(z.sub(m.ci(-46), lz)));
  return {hi, mid, neg, z.b.CreateTrunc(n, m.intTy)};
}

Fixed reduceF64(MathIR &m, Ints &z, Value *ax) {
  Value *ix = m.bits(ax);
  Value *expo = z.shr(ix, 52);
  Value *mant = z.b.CreateOr(z.band(ix, (uint64_t(1) << 52) - 1), z.k64(uint64_t(1) << 52));
  Value *t = z.sub(expo, z.k64(1075 + 2 - kPadBits));
  Value *w = z.shr(t, 6), *s = z.band(t, 63);
  Value *tw[4];
  for (unsigned j = 0; j < 4; ++j)
    tw[j] = z.pick(w, kTwoOverPi64, j, 16, z.t64);
  // The 192-bit window as six 32-bit limbs, most significant first.
  Value *win[6];
  for (unsigned j = 0; j < 3; ++j) {
    Value *word = z.funnel(tw[j], tw[j + 1], s);
    win[2 * j] = z.shr(word, 32);
    win[2 * j + 1] = z.lo32(word);
  }
  Value *mh = z.shr(mant, 32), *ml = z.lo32(mant);
  // mant * window = x 2/pi 2^190 (mod 2^192); keep bits 64..191 exactly.
  // Column c holds weight 2^(32c); the product of limb a of mant and limb b
  // of the window lands in column a + 5 - b.
  Value *col[6];
  for (Value *&c : col)
    c = z.k64(0);
  for (unsigned a = 0; a < 2; ++a)
    for (unsigned bi = 0; bi < 6; ++bi) {
      unsigned c = a + 5 - bi;
      if (c > 5)
        continue;
      Value *p = z.mul(a ? mh : ml, win[bi]);
      col[c] = z.add(col[c], z.lo32(p));
      if (c < 5)
        col[c + 1] = z.add(col[c + 1], z.shr(p, 32));
    }
  for (unsigned c = 0; c < 5; ++c)
    col[c + 1] = z.add(col[c + 1], z.shr(col[c], 32));
  Value *rhi = z.b.CreateOr(z.shl(col[5], 32), z.lo32(col[4]));
  Value *rlo = z.b.CreateOr(z.shl(col[3], 32), z.lo32(col[2]));

  Value *n = z.shr(z.add(rhi, z.k64(uint64_t(1) << 61)), 62);
  Value *fhi = z.sub(rhi, z.shl(n, 62));
  Value *neg = z.b.CreateICmpSLT(fhi, z.k64(0));
  // 128-bit magnitude (fhi:rlo) and its normalisation.
  Value *nlo = z.b.CreateNeg(rlo);
  Value *nhi = z.add(z.b.CreateNot(fhi), z.b.CreateZExt(z.b.CreateICmpEQ(rlo, z.k64(0)), z.t64));
  Value *ahi = z.b.CreateSelect(neg, nhi, fhi), *alo = z.b.CreateSelect(neg, nlo, rlo);
  Value *hiZero = z.b.CreateICmpEQ(ahi, z.k64(0));
  Value *lzh = z.band(z.ctlz(ahi), 63), *lzl = z.band(z.ctlz(alo), 63);
  Value *gh = z.b.CreateSelect(hiZero, z.b.CreateShl(alo, lzl), z.funnel(ahi, alo, lzh));
  Value *gl = z.b.CreateSelect(hiZero, z.k64(0), z.b.CreateShl(alo, lzh));
  Value *lz = z.b.CreateSelect(hiZero, z.add(lzl, z.k64(64)), lzh);
  // (gh:gl) 2^(-126-lz) quadrants; two 53-bit pieces convert exactly.
  Value *hiBits = z.shr(gh, 11);
  Value *midBits = z.b.CreateOr(z.shl(z.band(gh, 0x7ff), 42), z.shr(gl, 22));
  Value *hi = m.mul(m.toFloat(hiBits), m.pow2(z.sub(m.ci(-51), lz)));
  Value *mid = m.mul(m.toFloat(midBits), m.pow2(z.sub(m.ci(-104), lz)));
  return {hi, mid, neg, n};
}

} // namespace

Pair reduceHalfPiLarge(MathIR &m, Value *x, Value *&quarter) {
  Ints z(m);
  Value *ax = m.abs(x);
  Fixed f = m.f64 ? reduceF64(m, z, ax) : reduceF32(m, z, ax);
  // Quadrants to radians: (hi + mid) (p1 + p2) with pi/2 = p1 + p2.
  Value *p1 = m.c2(0x1.921fb6p+0, 0x1.921fb54442d18p+0);
  Value *p2 = m.c2(-0x1.777a5cp-25, 0x1.1a62633145c07p-54);
  Pair prod = m.twoProd(f.hi, p1);
  Value *lo = m.add(prod.lo, m.add(m.mul(f.hi, p2), m.mul(f.mid, p1)));
  Value *rhi = m.add(prod.hi, lo);
  Value *rlo = m.sub(lo, m.sub(rhi, prod.hi));
  // Negative fraction or negative x flips the sign; both flip the quadrant.
  Value *flip = m.b.CreateXor(f.negative, m.signBit(x));
  rhi = m.sel(flip, m.neg(rhi), rhi);
  rlo = m.sel(flip, m.neg(rlo), rlo);
  Value *q = m.b.CreateSelect(m.signBit(x), m.b.CreateNeg(f.quarter), f.quarter);
  quarter = m.b.CreateAnd(q, m.ci(3));
  return {rhi, rlo};
}

} // namespace mote::codegen::math
