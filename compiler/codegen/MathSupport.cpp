//===- MathSupport.cpp - Building blocks of the inline math library -------===//
//
// The exp and log kernels follow the classic Cody-Waite / fdlibm structure:
// reduce by ln2 with a constant split so that k*ln2_hi is exact, evaluate a
// short polynomial on the reduced argument, and rebuild the exponent with
// integer arithmetic.
//
//===----------------------------------------------------------------------===//

#include "codegen/MathSupport.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"

#include <cmath>
#include <cstring>

using namespace llvm;

namespace mote::codegen::math {

MathIR::MathIR(IRBuilderBase &builder, Type *type) : b(builder), ty(type), guard(builder) {
  b.clearFastMathFlags();
  f64 = type->getScalarType()->isDoubleTy();
  assert((f64 || type->getScalarType()->isFloatTy()) && "math on f32/f64 only");
  mantBits = f64 ? 52 : 23;
  bias = f64 ? 1023 : 127;
  Type *scalarInt = b.getIntNTy(f64 ? 64 : 32);
  if (auto *vt = dyn_cast<VectorType>(type))
    intTy = VectorType::get(scalarInt, vt->getElementCount());
  else
    intTy = scalarInt;
}

Value *MathIR::c(double v) const { return ConstantFP::get(ty, v); }

Value *MathIR::ci(int64_t v) const { return ConstantInt::get(intTy, uint64_t(v), true); }

Value *MathIR::cbits(uint64_t raw) const {
  if (f64) {
    double d;
    std::memcpy(&d, &raw, sizeof d);
    return c(d);
  }
  uint32_t r32 = uint32_t(raw);
  float f;
  std::memcpy(&f, &r32, sizeof f);
  return c(double(f));
}

Value *MathIR::fma(Value *a, Value *x, Value *y) {
  return b.CreateIntrinsic(Intrinsic::fmuladd, {ty}, {a, x, y});
}

Value *MathIR::poly(Value *x, std::initializer_list<double> coeffs) {
  SmallVector<Value *, 16> cs;
  for (double v : coeffs)
    cs.push_back(c(v));
  return poly(x, cs);
}

Value *MathIR::poly(Value *x, ArrayRef<Value *> coeffs) {
  Value *acc = coeffs.front();
  for (Value *k : coeffs.drop_front())
    acc = fma(acc, x, k);
  return acc;
}

Value *MathIR::signBit(Value *a) { return b.CreateICmpSLT(bits(a), ci(0)); }

Value *MathIR::abs(Value *a) { return b.CreateUnaryIntrinsic(Intrinsic::fabs, a); }

Value *MathIR::copysign(Value *mag, Value *sign) {
  return b.CreateBinaryIntrinsic(Intrinsic::copysign, mag, sign);
}

Value *MathIR::sqrt(Value *a) { return b.CreateUnaryIntrinsic(Intrinsic::sqrt, a); }

Value *MathIR::rint(Value *a) {
  Value *magic = c(1.5 * std::ldexp(1.0, mantBits));
  return sub(add(a, magic), magic);
}

Value *MathIR::toInt(Value *a) { return b.CreateFPToSI(sel(isNan(a), c(0), a), intTy); }

Value *MathIR::pow2(Value *k) {
  return fromBits(b.CreateShl(b.CreateAdd(k, ci(bias)), ci(mantBits)));
}

Value *MathIR::scale(Value *a, Value *k) {
  Value *k1 = b.CreateAShr(k, ci(1));
  Value *k2 = b.CreateSub(k, k1);
  return mul(mul(a, pow2(k1)), pow2(k2));
}

Pair MathIR::twoSum(Value *a, Value *x) {
  Value *s = add(a, x);
  Value *bb = sub(s, a);
  Value *err = add(sub(a, sub(s, bb)), sub(x, bb));
  return {s, err};
}

Pair MathIR::twoProd(Value *a, Value *x) {
  Value *splitter = c(f64 ? 134217729.0 : 4097.0); // 2^ceil(p/2) + 1
  auto split = [&](Value *v) -> Pair {
    Value *t = mul(splitter, v);
    Value *hi = sub(t, sub(t, v));
    return {hi, sub(v, hi)};
  };
  Value *p = mul(a, x);
  Pair as = split(a), xs = split(x);
  Value *err = add(sub(mul(as.hi, xs.hi), p), mul(as.hi, xs.lo));
  err = add(add(err, mul(as.lo, xs.hi)), mul(as.lo, xs.lo));
  return {p, err};
}

Value *expReduced(MathIR &m, Value *r) {
  if (!m.f64) {
    // Cephes expf: relative error ~1e-7 on |r| <= ln2/2.
    Value *p = m.poly(r, {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                          1.6666665459e-1, 5.0000001201e-1});
    return m.add(m.fma(p, m.mul(r, r), r), m.c(1));
  }
  // The Cephes rational form reaches ~1.6 ulp in f64; 1 + expm1(r) with the
  // Taylor polynomial stays below one.
  return m.add(m.c(1), expm1Reduced(m, r));
}

Value *expm1Reduced(MathIR &m, Value *r) {
  // expm1(r) = r + r^2 (1/2 + r/6 + ...); Taylor terms to below half an ulp
  // on |r| <= ln2/2.
  Value *p;
  if (m.f64)
    p = m.poly(r, {1 / 1307674368000.0, 1 / 87178291200.0, 1 / 6227020800.0, 1 / 479001600.0,
                   1 / 39916800.0, 1 / 3628800.0, 1 / 362880.0, 1 / 40320.0, 1 / 5040.0, 1 / 720.0,
                   1 / 120.0, 1 / 24.0, 1 / 6.0, 0.5});
  else
    p = m.poly(
        r, {1 / 362880.0, 1 / 40320.0, 1 / 5040.0, 1 / 720.0, 1 / 120.0, 1 / 24.0, 1 / 6.0, 0.5});
  return m.fma(m.mul(r, r), p, r);
}

Value *expPair(MathIR &m, Value *hi, Value *lo) {
  // Past these bounds exp over- or underflows whatever lo is; clamping keeps
  // the integer exponent in range (NaN falls through both compares).
  Value *maxArg = m.c2(89.0, 710.0), *minArg = m.c2(-104.0, -746.0);
  Value *sum = m.add(hi, lo);
  Value *over = m.gt(sum, maxArg), *under = m.lt(sum, minArg);
  hi = m.sel(over, maxArg, m.sel(under, minArg, hi));
  lo = m.sel(m.b.CreateOr(over, under), m.c(0), lo);
  // k from hi + lo: erf passes |lo| up to ~0.25, which must not push the
  // reduced argument out of the polynomial's interval.
  Value *kf = m.rint(m.mul(m.add(hi, lo), m.c(1.4426950408889634)));
  // ln2 = c1 + c2 with k * c1 exact for every k the clamp allows.
  Value *c1 = m.c2(0.693359375, 6.93147180369123816490e-01);
  Value *c2 = m.c2(-2.12194440e-4, 1.90821492927058770002e-10);
  Value *r = m.add(m.sub(hi, m.mul(kf, c1)), m.sub(lo, m.mul(kf, c2)));
  return m.scale(expReduced(m, r), m.toInt(kf));
}

namespace {

/// x = 2^k * f with f in [sqrt(2)/2, sqrt(2)), as (k as float, f).
std::pair<Value *, Value *> splitForLog(MathIR &m, Value *x) {
  int subScale = m.f64 ? 54 : 25;
  Value *isSub = m.lt(x, m.cbits(m.f64 ? 0x0010000000000000ull : 0x00800000u));
  Value *xs = m.sel(isSub, m.mul(x, m.c(std::ldexp(1.0, subScale))), x);
  Value *kAdj = m.b.CreateSelect(isSub, m.ci(-subScale), m.ci(0));
  // Offsetting by 1.0 - sqrt(2)/2 moves the exponent step to sqrt(2)/2.
  int64_t one = m.f64 ? 0x3ff0000000000000ll : 0x3f800000;
  int64_t split = m.f64 ? 0x3fe6a09e00000000ll : 0x3f3504f3;
  int64_t mantMask = (int64_t(1) << m.mantBits) - 1;
  Value *ix = m.b.CreateAdd(m.bits(xs), m.ci(one - split));
  Value *k = m.b.CreateSub(m.b.CreateLShr(ix, m.ci(m.mantBits)), m.ci(m.bias));
  k = m.b.CreateAdd(k, kAdj);
  Value *mant = m.fromBits(m.b.CreateAdd(m.b.CreateAnd(ix, m.ci(mantMask)), m.ci(split)));
  return {m.toFloat(k), mant};
}

} // namespace

Value *logPositive(MathIR &m, Value *x, Value *extra) {
  auto [dk, mant] = splitForLog(m, x);
  Value *f = m.sub(mant, m.c(1));
  // fdlibm: log(1+f) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f / (2 + f).
  Value *s = m.div(f, m.add(m.c(2), f));
  Value *z = m.mul(s, s);
  Value *w = m.mul(z, z);
  Value *t1, *t2;
  if (m.f64) {
    t1 = m.mul(w, m.poly(w, {1.531383769920937332e-01, 2.222219843214978396e-01,
                             3.999999999940941908e-01}));
    t2 = m.mul(z, m.poly(w, {1.479819860511658591e-01, 1.818357216161805012e-01,
                             2.857142874366239149e-01, 6.666666666666735130e-01}));
  } else {
    t1 = m.mul(w, m.poly(w, {2.4279078841e-01, 4.0000972152e-01}));
    t2 = m.mul(z, m.poly(w, {2.8498786688e-01, 6.6666662693e-01}));
  }
  Value *r = m.add(t2, t1);
  Value *hfsq = m.mul(m.mul(m.c(0.5), f), f);
  Value *ln2Hi = m.c2(6.9313812256e-01, 6.93147180369123816490e-01);
  Value *ln2Lo = m.c2(9.0580006145e-06, 1.90821492927058770002e-10);
  Value *lo = m.mul(dk, ln2Lo);
  if (extra)
    lo = m.add(lo, extra);
  Value *acc = m.add(m.mul(s, m.add(hfsq, r)), lo);
  acc = m.add(m.sub(acc, hfsq), f);
  return m.add(acc, m.mul(dk, ln2Hi));
}

Pair logPositivePair(MathIR &m, Value *x) {
  auto [dk, mant] = splitForLog(m, x);
  // pow needs log|x| to ~2^-62 relative (f64): |y log x| reaches 2^10 and
  // every bit of its error shows in the result. Around c (chosen per third of
  // [sqrt(2)/2, sqrt(2)), exact so mant - c is exact), log(mant) =
  // log(c) + 2 atanh(s) with s = (mant - c) / (mant + c), |s| < 0.059, so the
  // series tail is small enough to evaluate plainly; s is carried as
  // sHi + sLo with the residual computed exactly.
  Value *low = m.lt(mant, m.c(0.890487928)), *high = m.ge(mant, m.c(1.121522403));
  Value *c = m.sel(low, m.c(0.79296875), m.sel(high, m.c(1.2578125), m.c(1)));
  Value *logCHi = m.sel(low, m.c2(-0x1.db13dcp-3, -0.23197146543777514),
                        m.sel(high, m.c2(0x1.d5c216p-3, 0.22937410106484582), m.c(0)));
  Value *logCLo = m.sel(low, m.c2(7.063979623467276e-09, -5.774320510479237e-18),
                        m.sel(high, m.c2(5.2673070349840145e-09, 9.927671823978025e-18), m.c(0)));
  Value *num = m.sub(mant, c);
  Pair den = m.twoSum(mant, c);
  Value *sHi = m.div(num, den.hi);
  Pair p = m.twoProd(sHi, den.hi);
  Value *resid = m.sub(m.sub(m.sub(num, p.hi), p.lo), m.mul(sHi, den.lo));
  Value *sLo = m.div(resid, den.hi);
  // The series tail 2s^3/3 + s^5 Q(s^2): its first term is ~2^-10 of the
  // result, too large to round plainly, so it is formed as a pair too.
  Pair zz = m.twoProd(sHi, sHi);
  Pair s3 = m.twoProd(sHi, zz.hi);
  Value *s3Lo = m.add(s3.lo, m.mul(sHi, zz.lo));
  // 2/3 = c23Hi + c23Lo exactly enough: the remainders are -1/(3 2^24) and
  // 1/(3 2^53).
  Value *c23Hi = m.c(2.0 / 3);
  Value *c23Lo = m.c2(-1.0 / (3 * 16777216.0), 1.0 / (3 * 9007199254740992.0));
  Pair third = m.twoProd(s3.hi, c23Hi);
  Value *thirdLo = m.add(third.lo, m.add(m.mul(s3.hi, c23Lo), m.mul(s3Lo, c23Hi)));
  Value *q =
      m.f64 ? m.poly(zz.hi, {2.0 / 17, 2.0 / 15, 2.0 / 13, 2.0 / 11, 2.0 / 9, 2.0 / 7, 2.0 / 5})
            : m.poly(zz.hi, {2.0 / 9, 2.0 / 7, 2.0 / 5});
  Value *rest = m.mul(m.mul(s3.hi, zz.hi), q);
  // ln2 = hi + lo with dk * hi exact (|dk| < 2^11).
  Value *ln2Hi = m.c2(0.693359375, 6.93147180369123816490e-01);
  Value *ln2Lo = m.c2(-2.12194440e-4, 1.90821492927058770002e-10);
  Pair h1 = m.twoSum(m.mul(dk, ln2Hi), logCHi);
  Pair h2 = m.twoSum(h1.hi, m.mul(m.c(2), sHi));
  Pair h3 = m.twoSum(h2.hi, third.hi);
  // sLo enters 2s + 2s^3/3 as 2 sLo (1 + s^2).
  Value *sLoTerm = m.mul(m.mul(m.c(2), sLo), m.add(m.c(1), zz.hi));
  Value *small = m.add(m.add(sLoTerm, m.add(thirdLo, rest)), m.add(m.mul(dk, ln2Lo), logCLo));
  Value *lo = m.add(m.add(m.add(h1.lo, h2.lo), h3.lo), small);
  Value *hi = m.add(h3.hi, lo);
  return {hi, m.sub(lo, m.sub(hi, h3.hi))};
}

} // namespace mote::codegen::math
