//===- MathSpecial.cpp - tanh, logistic and erf as inline IR --------------===//
//
// erf follows fdlibm's four intervals (x + x R(x^2) below 0.84375, a
// rational in |x| - 1 up to 1.25, 1 - exp(-x^2 - 0.5625 + R/S) / x up to 6,
// then 1), with the fdlibm/Sun coefficients; every interval is evaluated and
// the right one selected, the two rational pairs of each half sharing one
// evaluation through selected coefficients.
//
//===----------------------------------------------------------------------===//

#include "codegen/MathEmitter.h"
#include "codegen/MathSupport.h"

#include <cmath>

using namespace llvm;

namespace mote::codegen::math {

Value *emitTanh(IRBuilderBase &b, Value *x) {
  MathIR m(b, x->getType());
  Value *a = m.abs(x);
  // Above ~log(3)/2 use 1 - 2 / (e^2a + 1); below, -t / (t + 2) with
  // t = e^-2a - 1 keeps small results relative-accurate.
  Value *big = m.gt(a, m.c(0.55));
  Value *t = emitExpm1(b, m.sel(big, m.mul(m.c(2), a), m.mul(m.c(-2), a)));
  Value *t2 = m.add(t, m.c(2));
  Value *r = m.sel(big, m.sub(m.c(1), m.div(m.c(2), t2)), m.div(m.neg(t), t2));
  r = m.sel(m.gt(a, m.c2(9.5, 22.0)), m.c(1), r);
  return m.copysign(r, x);
}

Value *emitLogistic(IRBuilderBase &b, Value *x) {
  MathIR m(b, x->getType());
  // e = exp(-|x|) never overflows; 1/(1+e) for x >= 0, e/(1+e) otherwise.
  Value *e = emitExp(b, m.neg(m.abs(x)));
  Value *den = m.add(m.c(1), e);
  return m.sel(m.lt(x, m.c(0)), m.div(e, den), m.div(m.c(1), den));
}

namespace {

/// Horner over coefficients chosen per lane between two sets of equal length.
Value *polySelect(MathIR &m, Value *v, Value *pickFirst, ArrayRef<double> first,
                  ArrayRef<double> second) {
  SmallVector<Value *, 10> cs;
  for (size_t i = 0; i < first.size(); ++i)
    cs.push_back(first[i] == second[i] ? m.c(first[i])
                                       : m.sel(pickFirst, m.c(first[i]), m.c(second[i])));
  return m.poly(v, cs);
}

} // namespace

Value *emitErf(IRBuilderBase &b, Value *x) {
  MathIR m(b, x->getType());
  bool d = m.f64;
  Value *a = m.abs(x);

  // |x| < 1.25: x + x P(x^2)/Q(x^2) below 0.84375, erx + P(s)/Q(s) above,
  // s = |x| - 1. Coefficients from the highest degree down, padded with 0.
  Value *low = m.lt(a, m.c(0.84375));
  Value *v = m.sel(low, m.mul(a, a), m.sub(a, m.c(1)));
  const double ppF[] = {0,
                        0,
                        -2.3763017452e-05,
                        -5.7702702470e-03,
                        -2.8481749818e-02,
                        -3.2504209876e-01,
                        1.2837916613e-01};
  const double qqF[] = {
      0, -3.9602282413e-06, 1.3249473704e-04, 5.0813062117e-03, 6.5022252500e-02, 3.9791721106e-01,
      1};
  const double paF[] = {-2.1663755178e-03, 3.5478305072e-02, -1.1089469492e-01, 3.1834661961e-01,
                        -3.7220788002e-01, 4.1485610604e-01, -2.3621185683e-03};
  const double qaF[] = {1.1984500103e-02,
                        1.3637083583e-02,
                        1.2617121637e-01,
                        7.1828655899e-02,
                        5.4039794207e-01,
                        1.0642088205e-01,
                        1};
  const double ppD[] = {0,
                        0,
                        -2.37630166566501626084e-05,
                        -5.77027029648944159157e-03,
                        -2.84817495755985104766e-02,
                        -3.25042107247001499370e-01,
                        1.28379167095512558561e-01};
  const double qqD[] = {0,
                        -3.96022827877536812320e-06,
                        1.32494738004321644526e-04,
                        5.08130628187576562776e-03,
                        6.50222499887672944485e-02,
                        3.97917223959155352819e-01,
                        1};
  const double paD[] = {-2.16637559486879084300e-03, 3.54783043256182359371e-02,
                        -1.10894694282396677476e-01, 3.18346619901161753674e-01,
                        -3.72207876035701323847e-01, 4.14856118683748331666e-01,
                        -2.36211856075265944077e-03};
  const double qaD[] = {1.19844998467991074170e-02,
                        1.36370839120290507362e-02,
                        1.26171219808761642112e-01,
                        7.18286544141962662868e-02,
                        5.40397917702171048937e-01,
                        1.06420880400844228286e-01,
                        1};
  Value *q = m.div(polySelect(m, v, low, d ? ppD : ppF, d ? paD : paF),
                   polySelect(m, v, low, d ? qqD : qqF, d ? qaD : qaF));
  Value *erx = m.c2(8.4506291151e-01, 8.45062911510467529297e-01);
  Value *nearZero = m.sel(low, m.fma(a, q, a), m.add(erx, q));

  // 1.25 <= |x| < 6: erf = 1 - exp(-x^2 - 0.5625 + R(1/x^2)/S(1/x^2)) / x.
  Value *ac = m.sel(m.lt(a, m.c(1.25)), m.c(1.25), m.sel(m.gt(a, m.c(6)), m.c(6), a));
  Value *mid = m.lt(ac, m.c(1 / 0.35));
  Value *s = m.div(m.c(1), m.mul(ac, ac));
  const double raF[] = {0,
                        -9.8143291473e+00,
                        -8.1287437439e+01,
                        -1.8460508728e+02,
                        -1.6239666748e+02,
                        -6.2375331879e+01,
                        -1.0558626175e+01,
                        -6.9385856390e-01,
                        -9.8649440333e-03};
  const double saF[] = {-6.0424413532e-02, 6.5702495575e+00, 1.0863500214e+02,
                        4.2900814819e+02,  6.4538726807e+02, 4.3456588745e+02,
                        1.3765776062e+02,  1.9651271820e+01, 1};
  const double rbF[] = {0,
                        0,
                        -4.8351919556e+02,
                        -1.0250950928e+03,
                        -6.3756646729e+02,
                        -1.6063638306e+02,
                        -1.7757955551e+01,
                        -7.9928326607e-01,
                        -9.8649431020e-03};
  const double sbF[] = {0,
                        -2.2440952301e+01,
                        4.7452853394e+02,
                        2.5530502930e+03,
                        3.1998581543e+03,
                        1.5367296143e+03,
                        3.2579251099e+02,
                        3.0338060379e+01,
                        1};
  const double raD[] = {0,
                        -9.81432934416914548592e+00,
                        -8.12874355063065934246e+01,
                        -1.84605092906711035994e+02,
                        -1.62396669462573470355e+02,
                        -6.23753324503260060396e+01,
                        -1.05586262253232909814e+01,
                        -6.93858572707181764372e-01,
                        -9.86494403484714822705e-03};
  const double saD[] = {
      -6.04244152148580987438e-02, 6.57024977031928170135e+00, 1.08635005541779435134e+02,
      4.29008140027567833386e+02,  6.45387271733267880336e+02, 4.34565877475229228821e+02,
      1.37657754143519042600e+02,  1.96512716674392571292e+01, 1};
  const double rbD[] = {0,
                        0,
                        -4.83519191608651397019e+02,
                        -1.02509513161107724954e+03,
                        -6.37566443368389627722e+02,
                        -1.60636384855821916062e+02,
                        -1.77579549177547519889e+01,
                        -7.99283237680523006574e-01,
                        -9.86494292470009928597e-03};
  const double sbD[] = {0,
                        -2.24409524465858183362e+01,
                        4.74528541206955367215e+02,
                        2.55305040643316442583e+03,
                        3.19985821950859553908e+03,
                        1.53672958608443695994e+03,
                        3.25792512996573918826e+02,
                        3.03380607434824582924e+01,
                        1};
  Value *rs = m.div(polySelect(m, s, mid, d ? raD : raF, d ? rbD : rbF),
                    polySelect(m, s, mid, d ? saD : saF, d ? sbD : sbF));
  // -x^2 carried exactly as a pair so the exponential sees no rounding of it.
  Pair sq = m.twoProd(ac, ac);
  Pair head = m.twoSum(m.neg(sq.hi), m.c(-0.5625));
  Value *e = expPair(m, head.hi, m.add(m.sub(head.lo, sq.lo), rs));
  Value *tailSide = m.sub(m.c(1), m.div(e, ac));

  Value *r = m.sel(m.lt(a, m.c(1.25)), nearZero, m.sel(m.lt(a, m.c(6)), tailSide, m.c(1)));
  r = m.copysign(r, x);
  return m.sel(m.isNan(x), x, r);
}

} // namespace mote::codegen::math
