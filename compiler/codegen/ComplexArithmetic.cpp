//===- ComplexArithmetic.cpp - Complex multiply, divide and abs -----------===//
//
// The evaluator multiplies and divides std::complex values the way clang
// compiles them: the plain formulas, with libgcc's __mulsc3/__divsc3 (and the
// double versions) taking over to recover infinities when both parts come
// out NaN. The code below is that algorithm step for step, every branch
// turned into a select, so results are bit-identical. abs is glibc's hypot.
//
//===----------------------------------------------------------------------===//

#include "codegen/ComplexOps.h"

#include "codegen/ComplexSupport.h"

#include "llvm/IR/Intrinsics.h"

#include <cfloat>

namespace mote::codegen {

using namespace complex;

namespace {

/// copysign(isinf(x) ? 1 : 0, x): an infinite part "boxed" to a unit.
llvm::Value *box(llvm::IRBuilderBase &b, llvm::Value *x) {
  return emitCopysign(b, b.CreateSelect(isInf(b, x), constant(x, 1.0), constant(x, 0.0)), x);
}

/// A NaN part replaced by a zero of its sign.
llvm::Value *nanToZero(llvm::IRBuilderBase &b, llvm::Value *x) {
  return b.CreateSelect(emitIsNan(b, x), emitCopysign(b, constant(x, 0.0), x), x);
}

/// The recovery at the end of __divsc3/__divdc3 for results that computed as
/// NaN + iNaN: nonzero / zero, infinite / finite, finite / infinite.
Complex recoverDivision(llvm::IRBuilderBase &b, Complex x, Complex y, Complex result) {
  llvm::Value *a = x.re, *bb = x.im, *c = y.re, *d = y.im;
  llvm::Value *zero = constant(a, 0.0), *inf = llvm::ConstantFP::getInfinity(a->getType());
  llvm::Value *bothNan = b.CreateAnd(emitIsNan(b, result.re), emitIsNan(b, result.im));

  llvm::Value *byZero = b.CreateAnd(b.CreateAnd(b.CreateFCmpOEQ(c, zero), b.CreateFCmpOEQ(d, zero)),
                                    b.CreateNot(b.CreateAnd(emitIsNan(b, a), emitIsNan(b, bb))));
  llvm::Value *signedInf = emitCopysign(b, inf, c);
  Complex zeroCase{b.CreateFMul(signedInf, a), b.CreateFMul(signedInf, bb)};

  llvm::Value *infiniteByFinite = b.CreateAnd(b.CreateOr(isInf(b, a), isInf(b, bb)),
                                              b.CreateAnd(isFinite(b, c), isFinite(b, d)));
  // factor * (p q*) with p = pr + i pi, q = qr + i qi: the quotient's
  // numerator, recomputed from boxed parts.
  auto recombine = [&](llvm::Value *factor, llvm::Value *pr, llvm::Value *pi, llvm::Value *qr,
                       llvm::Value *qi) -> Complex {
    return {b.CreateFMul(factor, b.CreateFAdd(b.CreateFMul(pr, qr), b.CreateFMul(pi, qi))),
            b.CreateFMul(factor, b.CreateFSub(b.CreateFMul(pi, qr), b.CreateFMul(pr, qi)))};
  };
  Complex infiniteCase = recombine(inf, box(b, a), box(b, bb), c, d);

  llvm::Value *finiteByInfinite = b.CreateAnd(b.CreateOr(isInf(b, c), isInf(b, d)),
                                              b.CreateAnd(isFinite(b, a), isFinite(b, bb)));
  Complex finiteCase = recombine(zero, a, bb, box(b, c), box(b, d));

  auto pick = [&](llvm::Value *zeroPart, llvm::Value *infinitePart, llvm::Value *finitePart,
                  llvm::Value *plain) {
    llvm::Value *recovered =
        b.CreateSelect(byZero, zeroPart,
                       b.CreateSelect(infiniteByFinite, infinitePart,
                                      b.CreateSelect(finiteByInfinite, finitePart, plain)));
    return b.CreateSelect(bothNan, recovered, plain);
  };
  return {pick(zeroCase.re, infiniteCase.re, finiteCase.re, result.re),
          pick(zeroCase.im, infiniteCase.im, finiteCase.im, result.im)};
}

/// __divsc3 on a target with hardware double: the plain formula in double,
/// rounded once to float.
Complex divideFloat(llvm::IRBuilderBase &b, Complex x, Complex y) {
  llvm::Type *wide = b.getDoubleTy();
  if (auto *vector = llvm::dyn_cast<llvm::VectorType>(x.re->getType()))
    wide = llvm::VectorType::get(wide, vector->getElementCount());
  llvm::Value *a = b.CreateFPExt(x.re, wide), *bb = b.CreateFPExt(x.im, wide);
  llvm::Value *c = b.CreateFPExt(y.re, wide), *d = b.CreateFPExt(y.im, wide);
  llvm::Value *denominator = b.CreateFAdd(b.CreateFMul(c, c), b.CreateFMul(d, d));
  llvm::Value *re =
      b.CreateFDiv(b.CreateFAdd(b.CreateFMul(a, c), b.CreateFMul(bb, d)), denominator);
  llvm::Value *im =
      b.CreateFDiv(b.CreateFSub(b.CreateFMul(bb, c), b.CreateFMul(a, d)), denominator);
  llvm::Type *narrow = x.re->getType();
  return {b.CreateFPTrunc(re, narrow), b.CreateFPTrunc(im, narrow)};
}

/// __divdc3: Smith's method with Baudin's scaling, divided by the larger of
/// |c| and |d|; both orientations are computed and the right one selected.
/// `x` and `y` come back scaled as libgcc leaves them for its recovery step.
Complex divideDouble(llvm::IRBuilderBase &b, Complex &x, Complex &y) {
  llvm::Value *a0 = x.re, *b0 = x.im, *c0 = y.re, *d0 = y.im;
  auto k = [&](double value) { return constant(a0, value); };
  const double big = DBL_MAX / 2, small = DBL_MIN, epsilon = DBL_EPSILON;
  const double upScale = 1 / DBL_EPSILON, limit = big * epsilon;
  auto lt = [&](llvm::Value *v, double bound) { return b.CreateFCmpOLT(emitFabs(b, v), k(bound)); };

  struct Oriented {
    Complex quotient, x, y;
  };
  // `larger` is d in the first orientation, c in the second.
  auto orientation = [&](bool dLarger) -> Oriented {
    llvm::Value *a = a0, *bb = b0, *c = c0, *d = d0;
    auto scale = [&](llvm::Value *condition, bool up) {
      for (llvm::Value **part : {&a, &bb, &c, &d})
        *part = b.CreateSelect(
            condition, up ? b.CreateFMul(*part, k(upScale)) : b.CreateFDiv(*part, k(2.0)), *part);
    };
    scale(b.CreateFCmpOGE(emitFabs(b, dLarger ? d : c), k(big)), false);
    llvm::Value *larger = dLarger ? d : c;
    llvm::Value *tiny = lt(larger, epsilon);
    llvm::Value *smallNumerator = b.CreateAnd(b.CreateOr(b.CreateAnd(lt(a, small), lt(bb, limit)),
                                                         b.CreateAnd(lt(bb, small), lt(a, limit))),
                                              lt(larger, limit));
    scale(b.CreateOr(tiny, smallNumerator), true);
    llvm::Value *re, *im, *denominator;
    if (dLarger) {
      llvm::Value *ratio = b.CreateFDiv(c, d);
      denominator = b.CreateFAdd(b.CreateFMul(c, ratio), d);
      llvm::Value *normal = b.CreateFCmpOGT(emitFabs(b, ratio), k(small));
      re = b.CreateSelect(normal, b.CreateFAdd(b.CreateFMul(a, ratio), bb),
                          b.CreateFAdd(b.CreateFMul(c, b.CreateFDiv(a, d)), bb));
      im = b.CreateSelect(normal, b.CreateFSub(b.CreateFMul(bb, ratio), a),
                          b.CreateFSub(b.CreateFMul(c, b.CreateFDiv(bb, d)), a));
    } else {
      llvm::Value *ratio = b.CreateFDiv(d, c);
      denominator = b.CreateFAdd(b.CreateFMul(d, ratio), c);
      llvm::Value *normal = b.CreateFCmpOGT(emitFabs(b, ratio), k(small));
      re = b.CreateSelect(normal, b.CreateFAdd(b.CreateFMul(bb, ratio), a),
                          b.CreateFAdd(a, b.CreateFMul(d, b.CreateFDiv(bb, c))));
      im = b.CreateSelect(normal, b.CreateFSub(bb, b.CreateFMul(a, ratio)),
                          b.CreateFSub(bb, b.CreateFMul(d, b.CreateFDiv(a, c))));
    }
    return {{b.CreateFDiv(re, denominator), b.CreateFDiv(im, denominator)}, {a, bb}, {c, d}};
  };
  llvm::Value *dLarger = b.CreateFCmpOLT(emitFabs(b, c0), emitFabs(b, d0));
  Oriented first = orientation(true), second = orientation(false);
  auto choose = [&](Complex p, Complex q) -> Complex {
    return {b.CreateSelect(dLarger, p.re, q.re), b.CreateSelect(dLarger, p.im, q.im)};
  };
  x = choose(first.x, second.x);
  y = choose(first.y, second.y);
  return choose(first.quotient, second.quotient);
}

} // namespace

Complex splitComplex(llvm::IRBuilderBase &b, llvm::Value *value) {
  return {b.CreateExtractValue(value, 0, "re"), b.CreateExtractValue(value, 1, "im")};
}

llvm::Value *joinComplex(llvm::IRBuilderBase &b, Complex value) {
  llvm::Type *part = value.re->getType();
  llvm::Value *result = llvm::PoisonValue::get(llvm::StructType::get(b.getContext(), {part, part}));
  result = b.CreateInsertValue(result, value.re, 0);
  return b.CreateInsertValue(result, value.im, 1);
}

llvm::Value *emitIsSignalingNan(llvm::IRBuilderBase &b, llvm::Value *x) {
  const unsigned width = x->getType()->getScalarSizeInBits();
  llvm::Type *integer = x->getType()->getWithNewType(b.getIntNTy(width));
  llvm::Value *bits = b.CreateBitCast(x, integer);
  const unsigned mantissa = width == 64 ? 52 : 23;
  llvm::APInt quiet = llvm::APInt::getOneBitSet(width, mantissa - 1);
  llvm::Value *quietBit = b.CreateAnd(bits, llvm::ConstantInt::get(integer, quiet));
  return b.CreateAnd(emitIsNan(b, x), b.CreateICmpEQ(quietBit, llvm::ConstantInt::get(integer, 0)));
}

Complex emitComplexMultiply(llvm::IRBuilderBase &b, Complex x, Complex y) {
  llvm::Value *a = x.re, *bb = x.im, *c = y.re, *d = y.im;
  llvm::Value *ac = b.CreateFMul(a, c), *bd = b.CreateFMul(bb, d);
  llvm::Value *ad = b.CreateFMul(a, d), *bc = b.CreateFMul(bb, c);
  Complex plain{b.CreateFSub(ac, bd), b.CreateFAdd(ad, bc)};

  // Recovery when both parts are NaN: box the infinite factor, zero the
  // other's NaNs, and scale the recomputed product by infinity.
  llvm::Value *xInfinite = b.CreateOr(isInf(b, a), isInf(b, bb));
  a = b.CreateSelect(xInfinite, box(b, a), a);
  bb = b.CreateSelect(xInfinite, box(b, bb), bb);
  c = b.CreateSelect(xInfinite, nanToZero(b, c), c);
  d = b.CreateSelect(xInfinite, nanToZero(b, d), d);
  llvm::Value *yInfinite = b.CreateOr(isInf(b, c), isInf(b, d));
  c = b.CreateSelect(yInfinite, box(b, c), c);
  d = b.CreateSelect(yInfinite, box(b, d), d);
  a = b.CreateSelect(yInfinite, nanToZero(b, a), a);
  bb = b.CreateSelect(yInfinite, nanToZero(b, bb), bb);
  llvm::Value *boxed = b.CreateOr(xInfinite, yInfinite);
  llvm::Value *overflowed =
      b.CreateAnd(b.CreateNot(boxed), b.CreateOr(b.CreateOr(isInf(b, ac), isInf(b, bd)),
                                                 b.CreateOr(isInf(b, ad), isInf(b, bc))));
  for (llvm::Value **part : {&a, &bb, &c, &d})
    *part = b.CreateSelect(overflowed, nanToZero(b, *part), *part);
  llvm::Value *inf = llvm::ConstantFP::getInfinity(a->getType());
  Complex recomputed{b.CreateFMul(inf, b.CreateFSub(b.CreateFMul(a, c), b.CreateFMul(bb, d))),
                     b.CreateFMul(inf, b.CreateFAdd(b.CreateFMul(a, d), b.CreateFMul(bb, c)))};
  llvm::Value *recover = b.CreateAnd(b.CreateAnd(emitIsNan(b, plain.re), emitIsNan(b, plain.im)),
                                     b.CreateOr(boxed, overflowed));
  return {b.CreateSelect(recover, recomputed.re, plain.re),
          b.CreateSelect(recover, recomputed.im, plain.im)};
}

Complex emitComplexDivide(llvm::IRBuilderBase &b, Complex x, Complex y) {
  if (!isDouble(x.re))
    return recoverDivision(b, x, y, divideFloat(b, x, y));
  Complex quotient = divideDouble(b, x, y); // scales x and y
  return recoverDivision(b, x, y, quotient);
}

llvm::Value *emitHypot(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y) {
  llvm::Value *inf = llvm::ConstantFP::getInfinity(x->getType());
  // Infinities win over quiet NaNs; otherwise a NaN propagates as x + y.
  llvm::Value *nonFinite = b.CreateOr(b.CreateNot(isFinite(b, x)), b.CreateNot(isFinite(b, y)));
  llvm::Value *infinite =
      b.CreateAnd(b.CreateOr(isInf(b, x), isInf(b, y)),
                  b.CreateNot(b.CreateOr(emitIsSignalingNan(b, x), emitIsSignalingNan(b, y))));
  llvm::Value *special = b.CreateSelect(infinite, inf, b.CreateFAdd(x, y));
  llvm::Value *finite;
  if (!isDouble(x)) {
    // hypotf: the squares are exact in double, the sum and the root each
    // round once, then one rounding to float.
    llvm::Type *wide = x->getType()->getWithNewType(b.getDoubleTy());
    llvm::Value *wx = b.CreateFPExt(x, wide), *wy = b.CreateFPExt(y, wide);
    llvm::Value *sum = b.CreateFAdd(b.CreateFMul(wx, wx), b.CreateFMul(wy, wy));
    finite = b.CreateFPTrunc(b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, sum), x->getType());
  } else {
    // hypot: ax >= ay, scaled away from overflow and underflow, then
    // sqrt(ax^2 + ay^2) corrected by one Newton-like step (Borges 2019).
    auto k = [&](double value) { return constant(x, value); };
    llvm::Value *fx = emitFabs(b, x), *fy = emitFabs(b, y);
    llvm::Value *swap = b.CreateFCmpOLT(fx, fy);
    llvm::Value *ax = b.CreateSelect(swap, fy, fx), *ay = b.CreateSelect(swap, fx, fy);
    llvm::Value *large = b.CreateFCmpOGT(ax, k(0x1p511));
    llvm::Value *tiny = b.CreateAnd(b.CreateNot(large), b.CreateFCmpOLT(ay, k(0x1p-511)));
    llvm::Value *scale = b.CreateSelect(large, k(0x1p-600), b.CreateSelect(tiny, k(0x1p600), k(1)));
    llvm::Value *unscale =
        b.CreateSelect(large, k(0x1p600), b.CreateSelect(tiny, k(0x1p-600), k(1)));
    llvm::Value *sx = b.CreateFMul(ax, scale), *sy = b.CreateFMul(ay, scale);
    llvm::Value *h = b.CreateUnaryIntrinsic(
        llvm::Intrinsic::sqrt, b.CreateFAdd(b.CreateFMul(sx, sx), b.CreateFMul(sy, sy)));
    llvm::Value *nearY = b.CreateFCmpOLE(h, b.CreateFMul(k(2), sy));
    llvm::Value *deltaY = b.CreateFSub(h, sy), *deltaX = b.CreateFSub(h, sx);
    llvm::Value *t1 = b.CreateSelect(
        nearY, b.CreateFMul(sx, b.CreateFSub(b.CreateFMul(k(2), deltaY), sx)),
        b.CreateFMul(b.CreateFMul(k(2), deltaX), b.CreateFSub(sx, b.CreateFMul(k(2), sy))));
    llvm::Value *t2 = b.CreateSelect(
        nearY, b.CreateFMul(b.CreateFSub(deltaY, b.CreateFMul(k(2), b.CreateFSub(sx, sy))), deltaY),
        b.CreateFAdd(b.CreateFMul(b.CreateFSub(b.CreateFMul(k(4), deltaX), sy), sy),
                     b.CreateFMul(deltaX, deltaX)));
    h = b.CreateFSub(h, b.CreateFDiv(b.CreateFAdd(t1, t2), b.CreateFMul(k(2), h)));
    llvm::Value *kernel = b.CreateFMul(h, unscale);
    // ay negligible next to ax (also when ay is 0): ax + ay.
    llvm::Value *negligible =
        b.CreateSelect(tiny, b.CreateFCmpOGE(ax, b.CreateFDiv(ay, k(0x1p-54))),
                       b.CreateFCmpOLE(ay, b.CreateFMul(ax, k(0x1p-54))));
    finite = b.CreateSelect(negligible, b.CreateFAdd(ax, ay), kernel);
  }
  return b.CreateSelect(nonFinite, special, finite);
}

} // namespace mote::codegen
