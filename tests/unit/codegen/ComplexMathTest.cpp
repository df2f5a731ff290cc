//===- ComplexMathTest.cpp - Inline complex math against the evaluator's --===//
//
// The reference evaluator computes complex functions with the host's
// std::complex (glibc's cexp, clog, csqrt, cpow, csin... and libgcc's complex
// division); compiled code uses ComplexOps.h. Each function is JIT-compiled
// as a 4-lane kernel per result part, with and without FMA, and compared
// with std::complex over parts drawn from every exponent (infinities, NaNs
// and subnormals included), a uniform box around the origin, points near
// the unit circle and pairs of special values. The bounds asserted (in ulps
// of each part, NaN matching NaN and infinity only infinity) are the ones
// the differential tests state for complex transcendentals.
//
//===----------------------------------------------------------------------===//

#include "MathTestHarness.h"

#include "codegen/ComplexOps.h"

#include <doctest/doctest.h>

#include <complex>

using namespace llvm;
using namespace mote::test;
using mote::codegen::Complex;
namespace codegen = mote::codegen;
namespace math = mote::codegen::math;

namespace {

using ComplexEmit = Complex (*)(IRBuilderBase &, Complex);

template <class T> struct Sample {
  std::vector<T> re, im;
};

/// Parts of every kind; n is a multiple of 4.
template <class T> Sample<T> complexSample(size_t n, uint32_t seed) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> box(-20, 20), angle(-4, 4), offset(-1e-3, 1e-3);
  const T specials[] = {T(0),
                        -T(0),
                        T(1),
                        -T(1),
                        INFINITY,
                        -INFINITY,
                        NAN,
                        std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::max(),
                        -std::numeric_limits<T>::max(),
                        T(1e-30),
                        T(100),
                        T(-89.5),
                        T(0.5)};
  auto randomBits = [&] {
    Bits bits = Bits(rng());
    T value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  };
  Sample<T> s;
  for (size_t i = 0; i < n; ++i) {
    T re, im;
    switch (i % 4) {
    case 0:
      re = randomBits();
      im = randomBits();
      break;
    case 1:
      re = T(box(rng));
      im = T(box(rng));
      break;
    case 2: { // near |z| = 1, where log cancels
      double r = 1 + offset(rng) * std::ldexp(1.0, -int(rng() % 40)), a = angle(rng);
      re = T(r * std::cos(a));
      im = T(r * std::sin(a));
      break;
    }
    default:
      re = specials[rng() % std::size(specials)];
      im = rng() % 2 ? specials[rng() % std::size(specials)] : T(box(rng));
      if (rng() % 2)
        std::swap(re, im);
      break;
    }
    s.re.push_back(re);
    s.im.push_back(im);
  }
  return s;
}

/// Values with |z| in [1/4, 4] at every angle (n a multiple of 4).
template <class T> Sample<T> moderateSample(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> logRadius(std::log(0.25), std::log(4.0)), angle(-4, 4);
  Sample<T> s;
  for (size_t i = 0; i < n; ++i) {
    double r = std::exp(logRadius(rng)), a = angle(rng);
    s.re.push_back(T(r * std::cos(a)));
    s.im.push_back(T(r * std::sin(a)));
  }
  return s;
}

template <class T> using Reference = std::function<std::complex<T>(std::complex<T>)>;
using Emit = std::function<Complex(IRBuilderBase &, Complex)>;

/// The largest error of `emit` against `reference` over `s`, in ulps of
/// either part, or with `normwise` in ulps of the larger part (the measure
/// for results whose small part is known only to the precision of the
/// larger one).
template <class T>
double measure(const std::string &name, HostCpu cpu, const Emit &emit,
               const Reference<T> &reference, const Sample<T> &s, bool normwise = false) {
  const size_t n = s.re.size();
  MathJit jit(cpu);
  Elem e = sizeof(T) == 4 ? Elem::F32 : Elem::F64;
  std::vector<T> parts[2] = {std::vector<T>(n), std::vector<T>(n)};
  for (int part = 0; part < 2; ++part) {
    std::string kernel =
        std::string(name) + (part ? "_im" : "_re") + (sizeof(T) == 4 ? "_c64" : "_c128");
    KernelFn k = jit.compile(kernel, e, e, e, 4, [&](IRBuilderBase &b, Value *x, Value *y) {
      Complex r = emit(b, {x, y});
      return part ? r.im : r.re;
    });
    REQUIRE(static_cast<bool>(k));
    k(s.re.data(), s.im.data(), parts[part].data(), int64_t(n));
  }
  double worst = 0;
  size_t worstIndex = 0;
  for (size_t i = 0; i < n; ++i) {
    std::complex<T> ref = reference(std::complex<T>(s.re[i], s.im[i]));
    double error =
        std::max(ulpError<T>(parts[0][i], ref.real()), ulpError<T>(parts[1][i], ref.imag()));
    if (normwise && std::isfinite(error) && std::isfinite(std::abs(ref))) {
      // Both parts against the ulp of the larger one: ulpError of a value
      // of that magnitude off by the same amount.
      long double scale =
          std::max(std::fabs((long double)ref.real()), std::fabs((long double)ref.imag()));
      error = 0;
      for (int part = 0; part < 2; ++part) {
        long double r = part ? ref.imag() : ref.real();
        long double difference = std::fabs((long double)parts[part][i] - r);
        error = std::max(error, ulpError<T>(T(scale + difference), scale));
      }
    }
    if (error > worst || std::isnan(error)) {
      worst = error;
      worstIndex = i;
    }
  }
  const size_t w = worstIndex;
  std::complex<T> ref = reference(std::complex<T>(s.re[w], s.im[w]));
  char text[256];
  std::snprintf(text, sizeof text, "(%a, %a) -> (%a, %a), expected (%a, %a)", double(s.re[w]),
                double(s.im[w]), double(parts[0][w]), double(parts[1][w]), double(ref.real()),
                double(ref.imag()));
  std::string label = std::string(name) + (sizeof(T) == 4 ? " c64" : " c128") +
                      (cpu == HostCpu::Native ? " native" : " baseline");
  MESSAGE(label << ": max " << worst << " ulp over " << n << " points, worst " << text);
  return worst;
}

template <class T>
double measure(const std::string &name, HostCpu cpu, const Emit &emit,
               const Reference<T> &reference) {
  return measure<T>(name, cpu, emit, reference, complexSample<T>(sweepSize() / 4 * 4, 17));
}

template <class T> std::complex<T> stdExp(std::complex<T> z) { return std::exp(z); }
template <class T> std::complex<T> stdLog(std::complex<T> z) { return std::log(z); }
template <class T> std::complex<T> stdSqrt(std::complex<T> z) { return std::sqrt(z); }
template <class T> std::complex<T> stdSin(std::complex<T> z) { return std::sin(z); }
template <class T> std::complex<T> stdCos(std::complex<T> z) { return std::cos(z); }
template <class T> std::complex<T> stdTan(std::complex<T> z) { return std::tan(z); }
template <class T> std::complex<T> stdSinh(std::complex<T> z) { return std::sinh(z); }
template <class T> std::complex<T> stdCosh(std::complex<T> z) { return std::cosh(z); }
template <class T> std::complex<T> stdTanh(std::complex<T> z) { return std::tanh(z); }
template <class T> std::complex<T> stdAsin(std::complex<T> z) { return std::asin(z); }
template <class T> std::complex<T> stdAcos(std::complex<T> z) { return std::acos(z); }
template <class T> std::complex<T> stdAtan(std::complex<T> z) { return std::atan(z); }
template <class T> std::complex<T> stdAsinh(std::complex<T> z) { return std::asinh(z); }
template <class T> std::complex<T> stdAcosh(std::complex<T> z) { return std::acosh(z); }
template <class T> std::complex<T> stdAtanh(std::complex<T> z) { return std::atanh(z); }
template <class T> std::complex<T> stdAbs(std::complex<T> z) { return {std::abs(z), T(0)}; }

struct Case {
  const char *name;
  ComplexEmit emit;
  std::complex<float> (*f32)(std::complex<float>);
  std::complex<double> (*f64)(std::complex<double>);
  double bound;
};

void check(const Case &c) {
  for (HostCpu cpu : {HostCpu::Native, HostCpu::Baseline}) {
    CHECK(measure<float>(c.name, cpu, c.emit, c.f32) <= c.bound);
    CHECK(measure<double>(c.name, cpu, c.emit, c.f64) <= c.bound);
  }
}

} // namespace

TEST_CASE("complex exp matches std::complex") {
  check({"exp", math::emitComplexExp, stdExp<float>, stdExp<double>, 4});
}

TEST_CASE("complex log matches std::complex") {
  check({"log", math::emitComplexLog, stdLog<float>, stdLog<double>, 3});
}

TEST_CASE("complex sqrt matches std::complex") {
  check({"sqrt", math::emitComplexSqrt, stdSqrt<float>, stdSqrt<double>, 0});
}

TEST_CASE("complex sin matches std::complex") {
  check({"sin", math::emitComplexSin, stdSin<float>, stdSin<double>, 6});
}

TEST_CASE("complex cos matches std::complex") {
  check({"cos", math::emitComplexCos, stdCos<float>, stdCos<double>, 6});
}

TEST_CASE("complex tan matches std::complex") {
  check({"tan", math::emitComplexTan, stdTan<float>, stdTan<double>, 10});
}

TEST_CASE("complex sinh matches std::complex") {
  check({"sinh", math::emitComplexSinh, stdSinh<float>, stdSinh<double>, 6});
}

TEST_CASE("complex cosh matches std::complex") {
  check({"cosh", math::emitComplexCosh, stdCosh<float>, stdCosh<double>, 6});
}

TEST_CASE("complex tanh matches std::complex") {
  check({"tanh", math::emitComplexTanh, stdTanh<float>, stdTanh<double>, 10});
}

TEST_CASE("complex asin matches std::complex") {
  check({"asin", math::emitComplexAsin, stdAsin<float>, stdAsin<double>, 3});
}

TEST_CASE("complex acos matches std::complex") {
  check({"acos", math::emitComplexAcos, stdAcos<float>, stdAcos<double>, 3});
}

TEST_CASE("complex atan matches std::complex") {
  check({"atan", math::emitComplexAtan, stdAtan<float>, stdAtan<double>, 3});
}

TEST_CASE("complex asinh matches std::complex") {
  check({"asinh", math::emitComplexAsinh, stdAsinh<float>, stdAsinh<double>, 3});
}

TEST_CASE("complex acosh matches std::complex") {
  check({"acosh", math::emitComplexAcosh, stdAcosh<float>, stdAcosh<double>, 3});
}

TEST_CASE("complex atanh matches std::complex") {
  check({"atanh", math::emitComplexAtanh, stdAtanh<float>, stdAtanh<double>, 3});
}

TEST_CASE("complex abs is hypot") {
  auto abs = [](IRBuilderBase &b, Complex z) -> Complex {
    Value *r = codegen::emitHypot(b, z.re, z.im);
    return {r, ConstantFP::get(r->getType(), 0.0)};
  };
  // hypotf rounds once from double: bit-exact; hypot within 1 ulp.
  for (HostCpu cpu : {HostCpu::Native, HostCpu::Baseline}) {
    CHECK(measure<float>("abs", cpu, abs, stdAbs<float>) == 0);
    CHECK(measure<double>("abs", cpu, abs, stdAbs<double>) <= 1);
  }
}

TEST_CASE("complex pow matches std::pow on moderate arguments") {
  // exp(y log x) turns an absolute error e in y log x into a relative error
  // e of the result. log's parts (|log x| <= 3.6 here, x in [1/4, 4]) are
  // within 2 ulps, so for |y| <= 3 e reaches about 3 * 2 ulp(3.6), some 24
  // ulps of the result, plus exp's own 3 (measured: up to 40 for y = -3 +
  // i/4, 5 for real y <= 1/2). The angle is known to that absolute
  // precision only, so a part near zero has no relative accuracy: errors
  // are normwise.
  const std::complex<double> exponents[] = {{0.5, 0}, {2.5, -1.5}, {1.0 / 3, 0}, {-3, 0.25}};
  const size_t n = sweepSize() / 16 * 4;
  const Sample<float> f32 = moderateSample<float>(n, 5);
  const Sample<double> f64 = moderateSample<double>(n, 5);
  for (std::complex<double> w : exponents) {
    auto emit = [&](IRBuilderBase &b, Complex z) {
      Complex y{ConstantFP::get(z.re->getType(), w.real()),
                ConstantFP::get(z.re->getType(), w.imag())};
      return math::emitComplexPow(b, z, y);
    };
    const std::complex<float> wf(float(w.real()), float(w.imag()));
    Reference<float> refF32 = [&](std::complex<float> z) { return std::pow(z, wf); };
    Reference<double> refF64 = [&](std::complex<double> z) { return std::pow(z, w); };
    for (HostCpu cpu : {HostCpu::Native, HostCpu::Baseline}) {
      CHECK(measure<float>("pow", cpu, emit, refF32, f32, /*normwise=*/true) <= 64);
      CHECK(measure<double>("pow", cpu, emit, refF64, f64, /*normwise=*/true) <= 64);
    }
  }
}
