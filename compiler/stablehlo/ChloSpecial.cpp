//===- ChloSpecial.cpp - CHLO's special functions as HLO ------------------===//
///
/// \file
/// erfc, erf_inv, lgamma, digamma, bessel_i1e, zeta and polygamma as the HLO their CHLO
/// legalisation produces, so results match what XLA computes for JAX: Cephes polynomials for erfc,
/// Giles' single- and double-precision approximations for erf_inv, and
/// Lanczos' approximation (g = 7, nine terms) with Euler's reflection for
/// lgamma and digamma, Cephes' Chebyshev series for bessel_i1e, Johansson's Euler-Maclaurin form
/// for zeta. f16 and bf16 compute in f32 and round once at the end.
///
//===----------------------------------------------------------------------===//

#include "stablehlo/Chlo.h"

#include <cmath>
#include <limits>

namespace mote::stablehlo {

using hlo::ComparisonDirection;
using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;
using hlo::Shape;

namespace {

/// Arithmetic on arrays of one shape and float type, spelled as formulas.
struct Expr {
  OpContext &context;
  Shape shape;

  Instruction *c(double value) const { return context.splat(shape.elementType(), value, shape); }
  Instruction *add(Instruction *a, Instruction *b) const {
    return context.binary(Opcode::Add, a, b);
  }
  Instruction *sub(Instruction *a, Instruction *b) const {
    return context.binary(Opcode::Subtract, a, b);
  }
  Instruction *mul(Instruction *a, Instruction *b) const {
    return context.binary(Opcode::Multiply, a, b);
  }
  Instruction *div(Instruction *a, Instruction *b) const {
    return context.binary(Opcode::Divide, a, b);
  }
  Instruction *neg(Instruction *a) const { return context.unary(Opcode::Negate, a); }
  Instruction *f(Opcode opcode, Instruction *a) const { return context.unary(opcode, a); }
  Instruction *less(Instruction *a, Instruction *b) const {
    return context.compare(a, b, ComparisonDirection::LT);
  }
  Instruction *equal(Instruction *a, Instruction *b) const {
    return context.compare(a, b, ComparisonDirection::EQ);
  }
  Instruction *select(Instruction *p, Instruction *a, Instruction *b) const {
    return context.select(p, a, b);
  }
  /// c[0] x^(n-1) + ... + c[n-1], by Horner's rule.
  Instruction *polynomial(Instruction *x, llvm::ArrayRef<double> coefficients) const {
    Instruction *p = c(coefficients.front());
    for (double coefficient : coefficients.drop_front())
      p = add(mul(p, x), c(coefficient));
    return p;
  }
};

/// Runs `body` on the op's operand in f32 (f16, bf16) or its own type (f32,
/// f64), and rounds the result back.
llvm::Error withUpcast(OpContext &context,
                       const std::function<Instruction *(const Expr &, Instruction *)> &body) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  Instruction *x = context.operands[0];
  PrimitiveType type = x->shape().elementType();
  if (!hlo::isFloatingPoint(type) || hlo::isF8(type))
    return context.unsupported("element type " + hlo::primitiveTypeName(type));
  PrimitiveType computeType = type == PrimitiveType::F64 ? type : PrimitiveType::F32;
  x = context.convert(x, computeType);
  Shape shape = x->shape();
  shape.setLayout(std::nullopt);
  Expr e{context, shape};
  context.results = {context.convert(body(e, x), type)};
  return llvm::Error::success();
}

// erfc -------------------------------------------------------------------------------

/// erf(x) for |x| < 1 in f32: x T(x^2).
Instruction *erfSmallF32(const Expr &e, Instruction *x) {
  return e.mul(x, e.polynomial(e.mul(x, x),
                               {+7.853861353153693E-5, -8.010193625184903E-4, +5.188327685732524E-3,
                                -2.685381193529856E-2, +1.128358514861418E-1, -3.761262582423300E-1,
                                +1.128379165726710E+0}));
}

/// erfc(x) for |x| >= 1 in f32.
Instruction *erfcLargeF32(const Expr &e, Instruction *x) {
  Instruction *xSquared = e.mul(x, x);
  Instruction *z = e.neg(xSquared);
  Instruction *absX = e.f(Opcode::Abs, x);
  Instruction *reciprocalSquare = e.div(e.c(1), xSquared);
  Instruction *scale = e.mul(e.f(Opcode::Exp, z), e.div(e.c(1), absX));
  Instruction *p = e.polynomial(
      reciprocalSquare, {+2.326819970068386E-2, -1.387039388740657E-1, +3.687424674597105E-1,
                         -5.824733027278666E-1, +6.210004621745983E-1, -4.944515323274145E-1,
                         +3.404879937665872E-1, -2.741127028184656E-1, +5.638259427386472E-1});
  Instruction *r = e.polynomial(reciprocalSquare, {-1.047766399936249E+1, +1.297719955372516E+1,
                                                   -7.495518717768503E+0, +2.921019019210786E+0,
                                                   -1.015265279202700E+0, +4.218463358204948E-1,
                                                   -2.820767439740514E-1, +5.641895067754075E-1});
  Instruction *approximation = e.mul(scale, e.select(e.less(absX, e.c(2)), p, r));
  // Underflow past exp(-88.7): zero; negative x mirror as 2 - erfc(-x).
  approximation = e.select(e.less(z, e.c(-88.72283905206835)), e.c(0), approximation);
  return e.select(e.less(x, e.c(0)), e.sub(e.c(2), approximation), approximation);
}

/// erf(x) for |x| < 1 in f64 (Cephes).
Instruction *erfSmallF64(const Expr &e, Instruction *x) {
  Instruction *xSquared = e.mul(x, x);
  Instruction *t = e.polynomial(xSquared, {9.60497373987051638749E0, 9.00260197203842689217E1,
                                           2.23200534594684319226E3, 7.00332514112805075473E3,
                                           5.55923013010394962768E4});
  Instruction *u = e.polynomial(xSquared, {1.00000000000000000000E0, 3.35617141647503099647E1,
                                           5.21357949780152679795E2, 4.59432382970980127987E3,
                                           2.26290000613890934246E4, 4.92673942608635921086E4});
  return e.div(e.mul(x, t), u);
}

/// erfc(x) for |x| >= 1 in f64 (Cephes).
Instruction *erfcLargeF64(const Expr &e, Instruction *x) {
  Instruction *z = e.neg(e.mul(x, x));
  Instruction *absX = e.f(Opcode::Abs, x);
  Instruction *expZ = e.f(Opcode::Exp, z);
  Instruction *p = e.polynomial(
      absX, {2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
             4.86371970985681366614E1, 1.96520832956077098242E2, 5.26445194995477358631E2,
             9.34528527171957607540E2, 1.02755188689515710272E3, 5.57535335369399327526E2});
  Instruction *q = e.polynomial(
      absX, {1.00000000000000000000E0, 1.32281951154744992508E1, 8.67072140885989742329E1,
             3.54937778887819891062E2, 9.75708501743205489753E2, 1.82390916687909736289E3,
             2.24633760818710981792E3, 1.65666309194161350182E3, 5.57535340817727675546E2});
  Instruction *r = e.polynomial(absX, {5.64189583547755073984E-1, 1.27536670759978104416E0,
                                       5.01905042251180477414E0, 6.16021097993053585195E0,
                                       7.40974269950448939160E0, 2.97886665372100240670E0});
  Instruction *s = e.polynomial(absX, {1.00000000000000000000E0, 2.26052863220117276590E0,
                                       9.39603524938001434673E0, 1.20489539808096656605E1,
                                       1.70814450747565897222E1, 9.60896809063285878198E0,
                                       3.36907645100081516050E0});
  Instruction *approximation =
      e.select(e.less(absX, e.c(8)), e.div(e.mul(expZ, p), q), e.div(e.mul(expZ, r), s));
  approximation = e.select(e.less(z, e.c(-7.09782712893383996843E2)), e.c(0), approximation);
  return e.select(e.less(x, e.c(0)), e.sub(e.c(2), approximation), approximation);
}

llvm::Error lowerErfc(OpContext &context) {
  return withUpcast(context, [](const Expr &e, Instruction *x) {
    bool f64 = x->shape().elementType() == PrimitiveType::F64;
    Instruction *large = f64 ? erfcLargeF64(e, x) : erfcLargeF32(e, x);
    Instruction *small = e.sub(e.c(1), f64 ? erfSmallF64(e, x) : erfSmallF32(e, x));
    return e.select(e.less(e.f(Opcode::Abs, x), e.c(1)), small, large);
  });
}

// erf_inv --------------------------------------------------------------------------

Instruction *erfInvF32(const Expr &e, Instruction *x) {
  static const double kBelow5[] = {2.81022636e-08,  3.43273939e-07, -3.5233877e-06,
                                   -4.39150654e-06, 0.00021858087,  -0.00125372503,
                                   -0.00417768164,  0.246640727,    1.50140941};
  static const double kAbove5[] = {-0.000200214257, 0.000100950558, 0.00134934322,
                                   -0.00367342844,  0.00573950773,  -0.0076224613,
                                   0.00943887047,   1.00167406,     2.83297682};
  Instruction *w = e.neg(e.f(Opcode::Log1p, e.mul(x, e.neg(x))));
  Instruction *below = e.less(w, e.c(5));
  auto coefficient = [&](int i) { return e.select(below, e.c(kBelow5[i]), e.c(kAbove5[i])); };
  w = e.select(below, e.sub(w, e.c(2.5)), e.sub(e.f(Opcode::Sqrt, w), e.c(3)));
  Instruction *p = coefficient(0);
  for (int i = 1; i < 9; ++i)
    p = e.add(coefficient(i), e.mul(p, w));
  Instruction *result = e.mul(p, x);
  return e.select(e.equal(e.f(Opcode::Abs, x), e.c(1)),
                  e.mul(x, e.c(std::numeric_limits<double>::infinity())), result);
}

Instruction *erfInvF64(const Expr &e, Instruction *x) {
  static const double kBelow625[] = {
      -3.6444120640178196996e-21, -1.685059138182016589e-19,  1.2858480715256400167e-18,
      1.115787767802518096e-17,   -1.333171662854620906e-16,  2.0972767875968561637e-17,
      6.6376381343583238325e-15,  -4.0545662729752068639e-14, -8.1519341976054721522e-14,
      2.6335093153082322977e-12,  -1.2975133253453532498e-11, -5.4154120542946279317e-11,
      1.051212273321532285e-09,   -4.1126339803469836976e-09, -2.9070369957882005086e-08,
      4.2347877827932403518e-07,  -1.3654692000834678645e-06, -1.3882523362786468719e-05,
      0.0001867342080340571352,   -0.00074070253416626697512, -0.0060336708714301490533,
      0.24015818242558961693,     1.6536545626831027356};
  static const double kBelow16[] = {
      2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
      1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
      2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
      6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
      0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
      -0.0037512085075692412107, 0.005370914553590063617,   1.0052589676941592334,
      3.0838856104922207635};
  static const double kAbove16[] = {
      -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
      -3.7894654401267369937e-09, 7.6157012080783393804e-09,  -1.4960026627149240478e-08,
      2.9147953450901080826e-08,  -6.7711997758452339498e-08, 2.2900482228026654717e-07,
      -9.9298272942317002539e-07, 4.5260625972231537039e-06,  -1.9681778105531670567e-05,
      7.5995277030017761139e-05,  -0.00021503011930044477347, -0.00013871931833623122026,
      1.0103004648645343977,      4.8499064014085844221};
  Instruction *w = e.neg(e.f(Opcode::Log1p, e.mul(x, e.neg(x))));
  Instruction *below625 = e.less(w, e.c(6.25));
  Instruction *below16 = e.less(w, e.c(16));
  auto coefficient = [&](int i) {
    Instruction *value = e.c(kBelow625[i]);
    if (i < 19)
      value = e.select(below625, value, e.c(kBelow16[i]));
    if (i < 17)
      value = e.select(below16, value, e.c(kAbove16[i]));
    return value;
  };
  Instruction *wide = e.sub(e.f(Opcode::Sqrt, w), e.select(below16, e.c(3.25), e.c(5)));
  w = e.select(below625, e.sub(w, e.c(3.125)), wide);
  Instruction *p = coefficient(0);
  for (int i = 1; i < 17; ++i)
    p = e.add(coefficient(i), e.mul(p, w));
  for (int i = 17; i < 19; ++i)
    p = e.select(below16, e.add(coefficient(i), e.mul(p, w)), p);
  for (int i = 19; i < 23; ++i)
    p = e.select(below625, e.add(coefficient(i), e.mul(p, w)), p);
  Instruction *result = e.mul(p, x);
  return e.select(e.equal(e.f(Opcode::Abs, x), e.c(1)),
                  e.mul(x, e.c(std::numeric_limits<double>::infinity())), result);
}

llvm::Error lowerErfInv(OpContext &context) {
  return withUpcast(context, [](const Expr &e, Instruction *x) {
    return x->shape().elementType() == PrimitiveType::F64 ? erfInvF64(e, x) : erfInvF32(e, x);
  });
}

// sinh, cosh --------------------------------------------------------------------------

/// e^(x + log 1/2) and e^(log 1/2 - x): half of e^x and e^-x without
/// overflowing where e^x does but e^x / 2 does not.
std::pair<Instruction *, Instruction *> halfExponentials(const Expr &e, Instruction *x) {
  Instruction *logHalf = e.f(Opcode::Log, e.c(0.5));
  return {e.f(Opcode::Exp, e.add(x, logHalf)), e.f(Opcode::Exp, e.sub(logHalf, x))};
}

Instruction *cosh(const Expr &e, Instruction *x) {
  auto [plus, minus] = halfExponentials(e, x);
  return e.add(plus, minus);
}

/// sinh from expm1 below |x| = 1 (no cancellation), from the half
/// exponentials above.
Instruction *sinh(const Expr &e, Instruction *x) {
  auto [plus, minus] = halfExponentials(e, x);
  Instruction *large = e.sub(plus, minus);
  Instruction *expm1 = e.f(Opcode::Expm1, x);
  Instruction *small = e.mul(e.c(0.5), e.add(expm1, e.div(expm1, e.add(expm1, e.c(1)))));
  return e.select(e.less(e.f(Opcode::Abs, x), e.c(1)), small, large);
}

/// sinh and cosh of real values as CHLO decomposes them; complex values
/// keep HLO's own sinh and cosh.
llvm::Error lowerSinhCosh(OpContext &context) {
  bool isSinh = context.op.name == "chlo.sinh";
  if (!context.operands.empty() && hlo::isComplex(context.operands[0]->shape().elementType())) {
    if (llvm::Error error = context.expectCounts(1, 1))
      return error;
    context.results = {context.unary(isSinh ? Opcode::Sinh : Opcode::Cosh, context.operands[0])};
    return llvm::Error::success();
  }
  return withUpcast(context, isSinh ? sinh : cosh);
}

// bessel_i1e -------------------------------------------------------------------------

/// Clenshaw's recurrence for a Chebyshev series, as Cephes' chbevl.
Instruction *chebyshev(const Expr &e, Instruction *x, llvm::ArrayRef<double> coefficients) {
  Instruction *b0 = e.c(0), *b1 = e.c(0), *b2 = e.c(0);
  for (double coefficient : coefficients) {
    b2 = b1;
    b1 = b0;
    b0 = e.add(e.sub(e.mul(x, b1), b2), e.c(coefficient));
  }
  return e.mul(e.sub(b0, b2), e.c(0.5));
}

/// exp(-|x|) I1(x) from Cephes' Chebyshev series on [0, 8] and (8, inf).
Instruction *besselI1e(const Expr &e, Instruction *x) {
  static const double kBelow8[] = {
      2.77791411276104639959E-18,  -2.11142121435816608115E-17, 1.55363195773620046921E-16,
      -1.10559694773538630805E-15, 7.60068429473540693410E-15,  -5.04218550472791168711E-14,
      3.22379336594557470981E-13,  -1.98397439776494371520E-12, 1.17361862988909016308E-11,
      -6.66348972350202774223E-11, 3.62559028155211703701E-10,  -1.88724975172282928790E-9,
      9.38153738649577178388E-9,   -4.44505912879632808065E-8,  2.00329475355213526229E-7,
      -8.56872026469545474066E-7,  3.47025130813767847674E-6,   -1.32731636560394358279E-5,
      4.78156510755005422638E-5,   -1.61760815825896745588E-4,  5.12285956168575772895E-4,
      -1.51357245063125314899E-3,  4.15642294431288815669E-3,   -1.05640848946261981558E-2,
      2.47264490306265168283E-2,   -5.29459812080949914269E-2,  1.02643658689847095384E-1,
      -1.76416518357834055153E-1,  2.52587186443633654823E-1};
  static const double kAbove8[] = {
      7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17,
      -3.20952592199342395980E-17, 2.96262899764595013876E-16,  3.30820231092092828324E-16,
      -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
      4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
      -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,
      3.25260358301548823856E-11,  -1.89749581235054123450E-11, -5.58974346219658380687E-10,
      -3.83538038596423702205E-9,  -2.63146884688951950684E-8,  -2.51223623787020892529E-7,
      -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
      7.78576235018280120474E-1};
  // f32 uses the tails of the series (its precision needs no more terms).
  bool f64 = x->shape().elementType() == PrimitiveType::F64;
  llvm::ArrayRef<double> below = llvm::ArrayRef(kBelow8).drop_front(f64 ? 0 : 12);
  llvm::ArrayRef<double> above = llvm::ArrayRef(kAbove8).drop_front(f64 ? 0 : 18);
  Instruction *z = e.f(Opcode::Abs, x);
  Instruction *small = e.mul(z, chebyshev(e, e.sub(e.mul(e.c(0.5), z), e.c(2)), below));
  Instruction *large =
      e.div(chebyshev(e, e.sub(e.div(e.c(32), z), e.c(2)), above), e.f(Opcode::Sqrt, z));
  Instruction *value =
      e.select(e.context.compare(z, e.c(8), ComparisonDirection::LE), small, large);
  return e.mul(e.f(Opcode::Sign, x), value);
}

llvm::Error lowerBesselI1e(OpContext &context) { return withUpcast(context, besselI1e); }

// lgamma ---------------------------------------------------------------------------

constexpr double kLanczosGamma = 7;
constexpr double kLanczosBase = 0.99999999999980993227684700473478;
constexpr double kLanczosCoefficients[] = {
    676.520368121885098567009190444019, -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,   -176.61502916214059906584551354,
    12.507343278686904814458936853,     -0.13857109526572011689554707,
    9.984369578019570859563e-6,         1.50563273514931155834e-7};

Instruction *lgamma(const Expr &e, Instruction *x) {
  Instruction *half = e.c(0.5), *one = e.c(1);
  Instruction *reflect = e.less(x, half);
  Instruction *z = e.select(reflect, e.neg(x), e.sub(x, one));
  Instruction *a = e.c(kLanczosBase);
  for (int i = 0; i < 8; ++i)
    a = e.add(a, e.div(e.c(kLanczosCoefficients[i]), e.add(z, e.c(i + 1))));
  Instruction *lanczosHalf = e.c(kLanczosGamma + 0.5);
  Instruction *t = e.add(lanczosHalf, z);
  Instruction *logT =
      e.add(e.c(std::log(kLanczosGamma + 0.5)), e.f(Opcode::Log1p, e.div(z, lanczosHalf)));
  // (z + 1/2) log t - t, without overflowing: (z + 1/2 - t / log t) log t.
  Instruction *r = e.mul(e.sub(e.add(z, half), e.div(t, logT)), logT);
  Instruction *value =
      e.add(e.add(e.c((std::log(2.0) + std::log(M_PI)) / 2), r), e.f(Opcode::Log, a));
  // Reflection: log(pi) - lgamma(1 - x) - log|sin(pi frac|x|)|, the fraction
  // folded into [0, 1/2] for precision.
  Instruction *absX = e.f(Opcode::Abs, x);
  Instruction *fraction = e.sub(absX, e.f(Opcode::Floor, absX));
  fraction = e.select(e.less(half, fraction), e.sub(one, fraction), fraction);
  Instruction *denominator = e.f(Opcode::Log, e.f(Opcode::Sin, e.mul(e.c(M_PI), fraction)));
  Instruction *reflected = e.sub(e.sub(e.c(std::log(M_PI)), denominator), value);
  reflected = e.select(e.f(Opcode::IsFinite, denominator), reflected, e.neg(denominator));
  value = e.select(reflect, reflected, value);
  Instruction *infinite = e.equal(absX, e.c(std::numeric_limits<double>::infinity()));
  return e.select(infinite, e.c(std::numeric_limits<double>::infinity()), value);
}

llvm::Error lowerLgamma(OpContext &context) { return withUpcast(context, lgamma); }

// digamma, zeta, polygamma -----------------------------------------------------------

/// digamma(z + 1) = log t + a'(z) / a(z) - g / t, with Lanczos' a(z) and
/// t = z + g + 1/2, reflected below 1/2 as digamma(1 - x) - pi cot(pi x).
Instruction *digamma(const Expr &e, Instruction *x) {
  Instruction *half = e.c(0.5), *one = e.c(1), *zero = e.c(0);
  Instruction *reflect = e.less(x, half);
  Instruction *z = e.select(reflect, e.neg(x), e.sub(x, one));
  Instruction *a = e.c(kLanczosBase);
  Instruction *aPrime = zero;
  for (int i = 0; i < 8; ++i) {
    Instruction *coefficient = e.c(kLanczosCoefficients[i]);
    Instruction *term = e.add(z, e.c(i + 1));
    aPrime = e.sub(aPrime, e.div(coefficient, e.mul(term, term)));
    a = e.add(a, e.div(coefficient, term));
  }
  Instruction *lanczosHalf = e.c(kLanczosGamma + 0.5);
  Instruction *t = e.add(lanczosHalf, z);
  Instruction *logT =
      e.add(e.c(std::log(kLanczosGamma + 0.5)), e.f(Opcode::Log1p, e.div(z, lanczosHalf)));
  Instruction *value = e.sub(e.add(logT, e.div(aPrime, a)), e.div(e.c(kLanczosGamma), t));
  // cot(pi x) near integers: shift x into [-1/2, 1/2] first.
  Instruction *reduced = e.add(x, e.f(Opcode::Abs, e.f(Opcode::Floor, e.add(x, half))));
  Instruction *piX = e.mul(e.c(M_PI), reduced);
  Instruction *reflection =
      e.sub(value, e.div(e.mul(e.c(M_PI), e.f(Opcode::Cos, piX)), e.f(Opcode::Sin, piX)));
  value = e.select(reflect, reflection, value);
  Instruction *negativeInteger =
      e.context.binary(Opcode::And, e.less(x, zero), e.equal(x, e.f(Opcode::Floor, x)));
  value = e.select(negativeInteger, e.c(std::numeric_limits<double>::quiet_NaN()), value);
  return e.select(e.equal(x, zero), e.c(-std::numeric_limits<double>::infinity()), value);
}

llvm::Error lowerDigamma(OpContext &context) { return withUpcast(context, digamma); }

/// Hurwitz zeta(x, q): nine terms of the series, then a 12-term
/// Euler-Maclaurin correction (Johansson, formula 5).
Instruction *zeta(const Expr &e, Instruction *x, Instruction *q) {
  static const double kCoefficients[12] = {-7.1661652561756670113e18,
                                           1.8152105401943546773e17,
                                           -4.5979787224074726105e15,
                                           1.1646782814350067249e14,
                                           -2.950130727918164224e12,
                                           7.47242496e10,
                                           -1.8924375803183791606e9,
                                           47900160.0,
                                           -1209600.0,
                                           30240.0,
                                           -720.0,
                                           12.0};
  Instruction *zero = e.c(0), *one = e.c(1);
  Instruction *accumulated = q;
  Instruction *negX = e.neg(x);
  Instruction *powerSum = e.context.binary(Opcode::Power, q, negX);
  for (int i = 0; i < 9; ++i) {
    accumulated = e.add(accumulated, one);
    powerSum = e.add(powerSum, e.context.binary(Opcode::Power, accumulated, negX));
  }
  accumulated = e.add(accumulated, one);
  Instruction *qNegPower = e.context.binary(Opcode::Power, accumulated, negX);
  Instruction *correction = e.div(e.mul(qNegPower, accumulated), e.sub(x, one));
  Instruction *reciprocalSquare = e.div(one, e.mul(accumulated, accumulated));
  Instruction *hornerSum = zero;
  for (int i = 0; i < 11; ++i) {
    Instruction *product = e.mul(e.add(x, e.c(22 - 2 * i)), e.add(x, e.c(21 - 2 * i)));
    hornerSum =
        e.mul(product, e.mul(reciprocalSquare, e.add(hornerSum, e.c(1 / kCoefficients[i]))));
  }
  Instruction *tail = e.mul(
      qNegPower,
      e.add(e.c(0.5), e.mul(e.div(x, accumulated), e.add(e.c(1 / kCoefficients[11]), hornerSum))));
  Instruction *accurate = e.add(e.add(powerSum, correction), tail);
  double smallest = x->shape().elementType() == PrimitiveType::F64
                        ? std::numeric_limits<double>::denorm_min()
                        : double(std::numeric_limits<float>::denorm_min());
  Instruction *output = e.select(
      e.less(e.f(Opcode::Abs, qNegPower), e.mul(e.f(Opcode::Abs, powerSum), e.c(smallest))),
      powerSum, accurate);
  Instruction *nan = e.c(std::numeric_limits<double>::quiet_NaN());
  output = e.select(e.less(x, one), nan, output);
  Instruction *qNotPositive = e.context.compare(q, zero, ComparisonDirection::LE);
  Instruction *xInteger = e.equal(x, e.f(Opcode::Floor, x));
  output = e.select(e.context.binary(Opcode::And, qNotPositive, e.f(Opcode::Not, xInteger)), nan,
                    output);
  Instruction *atPole =
      e.context.binary(Opcode::And, qNotPositive, e.equal(q, e.f(Opcode::Floor, q)));
  Instruction *xEven = e.equal(e.context.binary(Opcode::Remainder, x, e.c(2)), zero);
  output = e.select(atPole,
                    e.select(e.context.binary(Opcode::And, xInteger, xEven),
                             e.c(std::numeric_limits<double>::infinity()), nan),
                    output);
  return e.select(e.equal(x, one), e.c(std::numeric_limits<double>::infinity()), output);
}

/// Runs `body` on the op's two operands in f32 (f16, bf16) or their type.
llvm::Error
withUpcast2(OpContext &context,
            const std::function<Instruction *(const Expr &, Instruction *, Instruction *)> &body) {
  if (llvm::Error error = context.expectCounts(2, 1))
    return error;
  PrimitiveType type = context.operands[0]->shape().elementType();
  if (!hlo::isFloatingPoint(type) || hlo::isF8(type))
    return context.unsupported("element type " + hlo::primitiveTypeName(type));
  PrimitiveType computeType = type == PrimitiveType::F64 ? type : PrimitiveType::F32;
  Instruction *a = context.convert(context.operands[0], computeType);
  Instruction *b = context.convert(context.operands[1], computeType);
  Shape shape = a->shape();
  shape.setLayout(std::nullopt);
  Expr e{context, shape};
  context.results = {context.convert(body(e, a, b), type)};
  return llvm::Error::success();
}

llvm::Error lowerZeta(OpContext &context) { return withUpcast2(context, zeta); }

/// polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x); digamma for n = 0; NaN
/// unless n is a natural number.
llvm::Error lowerPolygamma(OpContext &context) {
  return withUpcast2(context, [](const Expr &e, Instruction *n, Instruction *x) {
    Instruction *one = e.c(1), *two = e.c(2), *zero = e.c(0);
    Instruction *sign = e.sub(e.mul(two, e.context.binary(Opcode::Remainder, n, two)), one);
    Instruction *nPlusOne = e.add(n, one);
    Instruction *factorial = e.f(Opcode::Exp, lgamma(e, nPlusOne));
    Instruction *result = e.mul(e.mul(sign, factorial), zeta(e, nPlusOne, x));
    result = e.select(e.equal(n, zero), digamma(e, x), result);
    Instruction *notNatural = e.context.binary(
        Opcode::Or, e.context.compare(n, e.f(Opcode::Floor, n), ComparisonDirection::NE),
        e.less(n, zero));
    return e.select(notNatural, e.c(std::numeric_limits<double>::quiet_NaN()), result);
  });
}

} // namespace

void registerChloSpecialLowerings(llvm::StringMap<OpLowering> &table) {
  table["chlo.erfc"] = lowerErfc;
  table["chlo.sinh"] = lowerSinhCosh;
  table["chlo.cosh"] = lowerSinhCosh;
  table["chlo.erf_inv"] = lowerErfInv;
  table["chlo.lgamma"] = lowerLgamma;
  table["chlo.digamma"] = lowerDigamma;
  table["chlo.bessel_i1e"] = lowerBesselI1e;
  table["chlo.zeta"] = lowerZeta;
  table["chlo.polygamma"] = lowerPolygamma;
}

} // namespace mote::stablehlo
