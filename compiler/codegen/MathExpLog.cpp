//===- MathExpLog.cpp - exp, expm1, log and log1p as inline IR ------------===//

#include "codegen/MathEmitter.h"
#include "codegen/MathSupport.h"

#include <cmath>

using namespace llvm;

namespace mote::codegen::math {

Value *emitExp(IRBuilderBase &b, Value *x) {
  MathIR m(b, x->getType());
  return expPair(m, x, m.c(0));
}

Value *emitExpm1(IRBuilderBase &b, Value *x) {
  MathIR m(b, x->getType());
  // Beyond the upper bound the result is inf; below the lower one it rounds
  // to -1. Clamping keeps k in the range pow2/scale accept.
  Value *maxArg = m.c2(89.0, 710.0), *minArg = m.c2(-30.0, -40.0);
  Value *xc = m.sel(m.gt(x, maxArg), maxArg, m.sel(m.lt(x, minArg), minArg, x));
  Value *kf = m.rint(m.mul(xc, m.c(1.4426950408889634)));
  Value *c1 = m.c2(0.693359375, 6.93147180369123816490e-01);
  Value *c2 = m.c2(-2.12194440e-4, 1.90821492927058770002e-10);
  // For k == 0 the reduction is exact (r == x), which keeps tiny x accurate.
  Value *r = m.sub(m.sub(xc, m.mul(kf, c1)), m.mul(kf, c2));
  Value *em = expm1Reduced(m, r);
  Value *k = m.toInt(kf);
  // 2^k expm1(r) + (2^k - 1): exact combination while 2^k - 1 is; for large
  // k the -1 no longer matters and 2^k itself may overflow, so scale.
  Value *two = m.pow2(k);
  Value *small = m.fma(two, em, m.sub(two, m.c(1)));
  Value *big = m.sub(m.scale(m.add(em, m.c(1)), k), m.c(1));
  Value *isBig = b.CreateICmpSGT(k, m.ci(m.mantBits + 2));
  Value *res = m.sel(isBig, big, small);
  return m.sel(m.eq(x, m.c(0)), x, res); // keeps -0
}

Value *emitLog(IRBuilderBase &b, Value *x) {
  MathIR m(b, x->getType());
  Value *res = logPositive(m, x, nullptr);
  res = m.sel(m.eq(x, m.c(INFINITY)), x, res);
  res = m.sel(m.eq(x, m.c(0)), m.c(-INFINITY), res);
  res = m.sel(m.lt(x, m.c(0)), m.c(NAN), res);
  return m.sel(m.isNan(x), x, res);
}

Value *emitLog1p(IRBuilderBase &b, Value *x) {
  MathIR m(b, x->getType());
  Value *one = m.c(1);
  Value *u = m.add(one, x);
  // 1 + x == u + corr exactly (both forms are exact in their ranges);
  // log(u + corr) ~ log(u) + corr / u.
  Value *corr = m.sel(m.lt(x, one), m.sub(x, m.sub(u, one)), m.sub(one, m.sub(u, x)));
  // Keep the kernel's input positive and finite; the specials are selected below.
  Value *uSafe = m.sel(m.gt(u, m.c(0)), u, one);
  uSafe = m.sel(m.eq(u, m.c(INFINITY)), one, uSafe);
  Value *res = logPositive(m, uSafe, m.div(corr, uSafe));
  res = m.sel(m.eq(x, m.c(INFINITY)), x, res);
  res = m.sel(m.eq(x, m.c(-1)), m.c(-INFINITY), res);
  res = m.sel(m.lt(x, m.c(-1)), m.c(NAN), res);
  res = m.sel(m.eq(x, m.c(0)), x, res); // keeps -0
  return m.sel(m.isNan(x), x, res);
}

} // namespace mote::codegen::math
