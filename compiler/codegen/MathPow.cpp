//===- MathPow.cpp - pow(x, y) as inline IR -------------------------------===//
//
// pow = exp(y * log|x|) with log|x| and the product carried as hi + lo pairs,
// so the exponent is accurate to far below an ulp of the result even when it
// is near the overflow bound. The special cases of C99 Annex F are selects
// applied on top.
//
//===----------------------------------------------------------------------===//

#include "codegen/MathEmitter.h"
#include "codegen/MathSupport.h"

#include <cmath>

using namespace llvm;

namespace mote::codegen::math {

Value *emitPow(IRBuilderBase &b, Value *x, Value *y) {
  MathIR m(b, x->getType());
  Value *zero = m.c(0), *one = m.c(1), *inf = m.c(INFINITY);
  Value *ax = m.abs(x), *ay = m.abs(y);
  Value *axZero = m.eq(ax, zero), *axInf = m.eq(ax, inf);

  // Finite, non-zero |x|: exp(y log|x|). Zero, inf and NaN |x| are replaced
  // by 1 here and selected below.
  Value *axSafe = m.sel(b.CreateOr(b.CreateOr(axZero, axInf), m.isNan(ax)), one, ax);
  Pair l = logPositivePair(m, axSafe);
  // Past this |y| the product is far outside exp's range for every |x| != 1
  // (|log|x|| >= 2^-p); it also keeps Dekker's split from overflowing.
  Value *bigY = m.c2(std::ldexp(1.0, 100), std::ldexp(1.0, 900));
  Value *yBig = m.ge(ay, bigY);
  Value *ySafe = m.sel(yBig, zero, y);
  Pair p = m.twoProd(ySafe, l.hi);
  Value *core = expPair(m, p.hi, m.add(p.lo, m.mul(ySafe, l.lo)));
  Value *huge = m.sel(m.gt(m.mul(y, l.hi), zero), inf, zero);
  Value *res = m.sel(yBig, huge, core);

  // |x| == 0 or inf: the magnitude is 0 or inf by the sign of y.
  Value *wantInf =
      b.CreateOr(b.CreateAnd(axZero, m.lt(y, zero)), b.CreateAnd(axInf, m.gt(y, zero)));
  res = m.sel(b.CreateOr(axZero, axInf), m.sel(wantInf, inf, zero), res);

  // Integer and odd-integer y. Every |y| >= 2^p is an even integer.
  Value *intLimit = m.c(std::ldexp(1.0, m.mantBits)),
        *oddLimit = m.c(std::ldexp(1.0, m.mantBits + 1));
  Value *yi = m.toInt(m.sel(m.lt(ay, oddLimit), y, zero));
  Value *isInt = b.CreateOr(m.ge(ay, intLimit), m.eq(m.toFloat(yi), y));
  Value *isOdd = b.CreateAnd(b.CreateAnd(m.lt(ay, oddLimit), isInt),
                             b.CreateICmpNE(b.CreateAnd(yi, m.ci(1)), m.ci(0)));
  res = m.sel(b.CreateAnd(m.signBit(x), isOdd), m.neg(res), res);
  // A negative finite base to a non-integer power has no real value.
  Value *negFinite = b.CreateAnd(m.lt(x, zero), m.gt(x, m.c(-INFINITY)));
  res = m.sel(b.CreateAnd(negFinite, b.CreateNot(isInt)), m.c(NAN), res);
  res = m.sel(b.CreateOr(m.isNan(x), m.isNan(y)), m.add(x, y), res);
  res = m.sel(b.CreateAnd(m.eq(ax, one), m.eq(ay, inf)), one, res);
  res = m.sel(m.eq(x, one), one, res);
  return m.sel(m.eq(y, zero), one, res);
}

} // namespace mote::codegen::math
