//===- MathRoots.cpp - cbrt and rsqrt as inline IR ------------------------===//

#include "codegen/MathEmitter.h"
#include "codegen/MathSupport.h"

#include <cmath>

using namespace llvm;

namespace mote::codegen::math {

Value *emitCbrt(IRBuilderBase &b, Value *x) {
  MathIR m(b, x->getType());
  Value *a = m.abs(x);
  // Subnormals are scaled up by 2^(3n) so the bit trick sees a normal, and
  // huge values down by 2^(3n) so t^3 cannot overflow.
  int n = m.f64 ? 18 : 8;
  Value *isSub = m.lt(a, m.cbits(m.f64 ? 0x0010000000000000ull : 0x00800000u));
  Value *isHuge = m.gt(a, m.c(std::ldexp(1.0, m.f64 ? 960 : 96)));
  Value *scaleIn = m.sel(isSub, m.c(std::ldexp(1.0, 3 * n)),
                         m.sel(isHuge, m.c(std::ldexp(1.0, -3 * n)), m.c(1)));
  Value *scaleOut =
      m.sel(isSub, m.c(std::ldexp(1.0, -n)), m.sel(isHuge, m.c(std::ldexp(1.0, n)), m.c(1)));
  Value *as = m.mul(a, scaleIn);
  // Dividing the bit pattern by 3 divides the exponent by 3; the bias term
  // (Kahan's, as in fdlibm) makes a guess good to about 5 bits.
  int64_t bias = m.f64 ? int64_t(715094163) << 32 : 709958130;
  Value *t = m.fromBits(b.CreateAdd(b.CreateUDiv(m.bits(as), m.ci(3)), m.ci(bias)));
  // Halley's iteration triples the correct bits each time: 5 -> 15 -> 45
  // (f32), -> 135 (f64). Written as a correction so the last step rounds once.
  for (int i = 0, e = m.f64 ? 3 : 2; i < e; ++i) {
    Value *t3 = m.mul(m.mul(t, t), t);
    Value *corr = m.div(m.sub(as, t3), m.add(m.add(t3, t3), as));
    t = m.fma(t, corr, t);
  }
  t = m.mul(t, scaleOut);
  Value *res = m.copysign(t, x);
  Value *passThrough = b.CreateOr(b.CreateOr(m.eq(a, m.c(0)), m.isInf(a)), m.isNan(a));
  return m.sel(passThrough, x, res);
}

Value *emitRsqrt(IRBuilderBase &b, Value *x) {
  MathIR m(b, x->getType());
  return m.div(m.c(1), m.sqrt(x));
}

} // namespace mote::codegen::math
