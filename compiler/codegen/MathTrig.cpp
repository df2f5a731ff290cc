//===- MathTrig.cpp - sin, cos, tan and atan2 as inline IR ----------------===//
//
// sin/cos/tan reduce x by multiples j of pi/2. Below 2^14 (f32) or 2^24
// (f64) a Cody-Waite reduction does it: pi/2 is split into pieces short
// enough that j * piece is exact. Above, Payne-Hanek (MathTrigReduction.cpp)
// takes over; both are computed and selected per lane, so there is no branch.
//
// The kernels are the fdlibm (f64) and Cephes (f32) minimax polynomials on
// [-pi/4, pi/4]; atan2 uses fdlibm's atan with its breakpoints 7/16, 11/16.
//
//===----------------------------------------------------------------------===//

#include "codegen/MathEmitter.h"
#include "codegen/MathSupport.h"

#include <cmath>

using namespace llvm;

namespace mote::codegen::math {
namespace {

struct Reduced {
  Value *r, *lo;  ///< x - j pi/2 = r + lo, |r| about pi/4 at most
  Value *quarter; ///< j mod 4, as an integer of MathIR::intTy
};

Reduced reduceHalfPi(MathIR &m, Value *x) {
  Value *jf = m.rint(m.mul(x, m.c(0.63661977236758134308)));
  static const double f32Parts[] = {0x1.92p+0, 0x1.fap-12, 0x1.54p-20,
                                    0x1.1p-30, 0x1.68p-39, 0x1.84698ap-48};
  static const double f64Parts[] = {0x1.921fb54p+0, 0x1.10b461p-30, 0x1.a62633p-58,
                                    0x1.45c06e0e68948p-86};
  ArrayRef<double> parts = m.f64 ? ArrayRef<double>(f64Parts) : ArrayRef<double>(f32Parts);
  // x - j * parts[0] is exact; every later subtraction keeps its rounding
  // error, so r + lo is accurate even when the leading terms cancel.
  Value *r = m.sub(x, m.mul(jf, m.c(parts[0])));
  Value *lo = m.c(0);
  for (double p : parts.drop_front()) {
    Pair d = m.twoSum(r, m.mul(jf, m.c(-p)));
    r = d.hi;
    lo = m.add(lo, d.lo);
  }
  Pair n = m.twoSum(r, lo);
  r = n.hi;
  lo = n.lo;
  Value *jSafe = m.sel(m.lt(m.abs(jf), m.c(1073741824.0)), jf, m.c(0));
  Value *quarter = m.b.CreateAnd(m.toInt(jSafe), m.ci(3));

  // Past the threshold j * piece rounds; the large path is exact everywhere.
  // Its input is kept in its range on the other lanes so no shift overflows.
  Value *threshold = m.c2(16384.0, 16777216.0);
  Value *large = m.ge(m.abs(x), threshold);
  Value *quarterLarge;
  Pair big = reduceHalfPiLarge(m, m.sel(large, x, threshold), quarterLarge);
  return {m.sel(large, big.hi, r), m.sel(large, big.lo, lo),
          m.b.CreateSelect(large, quarterLarge, quarter)};
}

/// sin(r + lo), fdlibm's __kernel_sin form.
Value *sinKernel(MathIR &m, Value *r, Value *lo) {
  Value *z = m.mul(r, r);
  Value *v = m.mul(z, r);
  Value *s1 = m.c2(-1.6666654611e-1, -1.66666666666666324348e-01);
  Value *rest = m.f64 ? m.poly(z, {1.58969099521155010221e-10, -2.50507602534068634195e-08,
                                   2.75573137070700676789e-06, -1.98412698298579493134e-04,
                                   8.33333333332248946124e-03})
                      : m.poly(z, {-1.9515295891e-4, 8.3321608736e-3});
  // r - ((z (lo/2 - v rest) - lo) - v s1)
  Value *inner = m.sub(m.mul(z, m.sub(m.mul(m.c(0.5), lo), m.mul(v, rest))), lo);
  return m.sub(r, m.sub(inner, m.mul(v, s1)));
}

/// cos(r + lo), fdlibm's __kernel_cos form.
Value *cosKernel(MathIR &m, Value *r, Value *lo) {
  Value *z = m.mul(r, r);
  Value *p = m.f64 ? m.poly(z, {-1.13596475577881948265e-11, 2.08757232129817482790e-09,
                                -2.75573143513906633035e-07, 2.48015872894767294178e-05,
                                -1.38888888888741095749e-03, 4.16666666666666019037e-02})
                   : m.poly(z, {2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2});
  // 1 - z/2 rounded, plus what that rounding lost.
  Value *hz = m.mul(m.c(0.5), z);
  Value *w = m.sub(m.c(1), hz);
  Value *small = m.sub(m.mul(m.mul(z, z), p), m.mul(r, lo));
  return m.add(w, m.add(m.sub(m.sub(m.c(1), w), hz), small));
}

Value *bitSet(MathIR &m, Value *i, int64_t mask) {
  return m.b.CreateICmpNE(m.b.CreateAnd(i, m.ci(mask)), m.ci(0));
}

/// sin or cos of a reduced argument, by quadrant; `shift` is 0 for sin, 1 for cos.
Value *sinCos(IRBuilderBase &b, Value *x, int shift) {
  MathIR m(b, x->getType());
  Reduced red = reduceHalfPi(m, x);
  Value *q = b.CreateAdd(red.quarter, m.ci(shift));
  Value *s = sinKernel(m, red.r, red.lo), *c = cosKernel(m, red.r, red.lo);
  Value *v = m.sel(bitSet(m, q, 1), c, s);
  v = m.sel(bitSet(m, q, 2), m.neg(v), v);
  return m.sel(m.isInf(x), m.c(NAN), v);
}

} // namespace

Value *emitSin(IRBuilderBase &b, Value *x) {
  MathIR m(b, x->getType());
  return m.sel(m.eq(x, m.c(0)), x, sinCos(b, x, 0)); // keeps -0
}

Value *emitCos(IRBuilderBase &b, Value *x) { return sinCos(b, x, 1); }

Value *emitTan(IRBuilderBase &b, Value *x) {
  MathIR m(b, x->getType());
  Reduced red = reduceHalfPi(m, x);
  Value *s = sinKernel(m, red.r, red.lo), *c = cosKernel(m, red.r, red.lo);
  Value *odd = bitSet(m, red.quarter, 1);
  Value *v = m.div(m.sel(odd, m.neg(c), s), m.sel(odd, s, c));
  v = m.sel(m.isInf(x), m.c(NAN), v);
  return m.sel(m.eq(x, m.c(0)), x, v);
}

Value *emitAtan2(IRBuilderBase &b, Value *y, Value *x) {
  MathIR m(b, x->getType());
  Value *ax = m.abs(x), *ay = m.abs(y);
  Value *swap = m.gt(ay, ax);
  Value *mx = m.sel(swap, ay, ax), *mn = m.sel(swap, ax, ay);
  // (0, 0) and (inf, inf) would make 0/0 and inf/inf; as (0, 1) and (1, 1)
  // they give atan 0 and pi/4, which the quadrant logic turns into C's values.
  // Near the top of the range 2 mx + mn would overflow; a power-of-2 scale
  // changes no ratio (mn only loses bits when mn / mx underflows anyway).
  Value *scaleDown = m.gt(mx, m.c(std::ldexp(1.0, m.f64 ? 1020 : 124)));
  mx = m.sel(scaleDown, m.mul(mx, m.c(0.25)), mx);
  mn = m.sel(scaleDown, m.mul(mn, m.c(0.25)), mn);
  Value *bothInf = b.CreateAnd(m.isInf(ax), m.isInf(ay));
  Value *one = m.c(1);
  mn = m.sel(bothInf, one, mn);
  mx = m.sel(b.CreateOr(bothInf, m.eq(mx, m.c(0))), one, mx);
  Value *t = m.div(mn, mx); // in [0, 1]

  // fdlibm's breakpoints: atan(t) = atan(c) + atan((t - c) / (1 + c t)) for
  // c = 0.5 on [7/16, 11/16) and c = 1 above; numerators formed from mn, mx
  // directly so the subtraction is exact.
  Value *mid = m.ge(t, m.c(0.4375)), *high = m.ge(t, m.c(0.6875));
  Value *num = m.sel(high, m.sub(mn, mx), m.sel(mid, m.sub(m.add(mn, mn), mx), mn));
  Value *den = m.sel(high, m.add(mn, mx), m.sel(mid, m.add(m.add(mx, mx), mn), mx));
  Value *a = m.div(num, den);
  Value *baseHi = m.sel(high, m.c2(7.8539812565e-01, 7.85398163397448278999e-01),
                        m.sel(mid, m.c2(4.6364760399e-01, 4.63647609000806093515e-01), m.c(0)));
  Value *baseLo = m.sel(high, m.c2(3.7748947079e-08, 3.06161699786838301793e-17),
                        m.sel(mid, m.c2(5.0121582440e-09, 2.26987774529616870924e-17), m.c(0)));
  Value *z = m.mul(a, a);
  Value *w = m.mul(z, z);
  Value *s1, *s2;
  if (m.f64) {
    s1 = m.mul(z, m.poly(w, {1.62858201153657823623e-02, 4.97687799461593236017e-02,
                             6.66107313738753120669e-02, 9.09088713343650656196e-02,
                             1.42857142725034663711e-01, 3.33333333333329318027e-01}));
    s2 = m.mul(w, m.poly(w, {-3.65315727442169155270e-02, -5.83357013379057348645e-02,
                             -7.69187620504482999495e-02, -1.11111104054623557880e-01,
                             -1.99999999998764832476e-01}));
  } else {
    s1 = m.mul(z, m.poly(w, {6.1687607318e-02, 1.4253635705e-01, 3.3333328366e-01}));
    s2 = m.mul(w, m.poly(w, {-1.0648017377e-01, -1.9999158382e-01}));
  }
  Value *r = m.sub(baseHi, m.sub(m.sub(m.mul(a, m.add(s1, s2)), baseLo), a));

  // Quadrant: r, pi/2 - r (|y| > |x|), pi/2 + r (and x < 0), pi - r (x < 0),
  // each as (hi +- r) + lo so no step loses more than the last rounding.
  Value *neg = m.signBit(x);
  Value *pio2Hi = m.c2(1.5707962513e+00, 1.57079632679489655800e+00);
  Value *pio2Lo = m.c2(7.5497894159e-08, 6.12323399573676603587e-17);
  Value *piHi = m.c2(3.1415925026e+00, 3.1415926535897931160e+00);
  Value *piLo = m.c2(1.5099578832e-07, 1.2246467991473531772e-16);
  Value *baseHi2 = m.sel(swap, pio2Hi, m.sel(neg, piHi, m.c(0)));
  Value *baseLo2 = m.sel(swap, pio2Lo, m.sel(neg, piLo, m.c(0)));
  Value *subtract = b.CreateXor(swap, neg);
  r = m.add(m.add(baseHi2, m.sel(subtract, m.neg(r), r)), baseLo2);
  r = m.copysign(r, y);
  return m.sel(b.CreateOr(m.isNan(x), m.isNan(y)), m.add(x, y), r);
}

} // namespace mote::codegen::math
