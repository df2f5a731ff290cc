//===- MathLargeArgumentTest.cpp - Trig reduction and tiny logistic results ===//
//
// The dense sweeps of MathUnaryTest see few points where the two tricky
// regions live: sin/cos/tan of huge arguments (the Payne-Hanek path, and the
// switch to it) and logistic results in the subnormal range. Here those
// regions get a sweep of their own, scalar and 8-lane, plus the inputs known
// to be hardest: the floats and doubles closest to a multiple of pi/2.
//
//===----------------------------------------------------------------------===//

#include "MathTestHarness.h"

#include "codegen/MathEmitter.h"

#include <doctest/doctest.h>

#include <cfloat>

using namespace llvm;
using namespace mote::test;
namespace math = mote::codegen::math;

namespace {

using UnaryEmit = Value *(*)(IRBuilderBase &, Value *);
using Reference = long double (*)(long double);

template <class T>
std::vector<T> runKernel(UnaryEmit emit, const char *name, unsigned lanes, std::vector<T> xs) {
  MathJit jit(HostCpu::Native);
  Elem e = sizeof(T) == 4 ? Elem::F32 : Elem::F64;
  std::string fn = std::string(name) + (sizeof(T) == 4 ? "_f32_" : "_f64_") + std::to_string(lanes);
  KernelFn k = jit.compile(fn, e, Elem::None, e, lanes,
                           [&](IRBuilderBase &b, Value *x, Value *) { return emit(b, x); });
  REQUIRE(static_cast<bool>(k));
  while (xs.size() % 8)
    xs.push_back(0);
  std::vector<T> out(xs.size());
  k(xs.data(), nullptr, out.data(), int64_t(xs.size()));
  return out;
}

template <class T>
double maxError(UnaryEmit emit, Reference ref, const char *name, unsigned lanes,
                const std::vector<T> &xs) {
  std::vector<T> out = runKernel<T>(emit, name, lanes, xs);
  ErrorStats<T> stats;
  for (size_t i = 0; i < xs.size(); ++i)
    stats.add(ulpError<T>(out[i], ref((long double)xs[i])), xs[i]);
  MESSAGE(std::string(name) << (sizeof(T) == 4 ? "_f32" : "_f64") << " x" << lanes << ": max "
                            << stats.maxUlp << " ulp at x=" << double(stats.worstX) << " over "
                            << stats.count << " points");
  return stats.maxUlp;
}

/// Magnitudes log-uniform in [lo, hi] (both signs), plus the given points.
template <class T> std::vector<T> logUniform(size_t n, double lo, double hi, std::vector<T> extra) {
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> u(std::log2(lo), std::log2(hi));
  std::vector<T> xs = std::move(extra);
  for (size_t i = 0; i < n; ++i) {
    T v = T(std::exp2(u(rng)));
    xs.push_back(i % 2 ? -v : v);
  }
  return xs;
}

template <class T> std::vector<T> hardTrigArguments() {
  if constexpr (sizeof(T) == 4)
    // 16367173 * 2^72 is the float nearest a multiple of pi/2 (Muller,
    // Elementary Functions); 2^14 is where the large path starts.
    return {8388609.0f, 3e38f, FLT_MAX, std::ldexp(16367173.0f, 72), 16384.0f,
            16383.999f, 1e5f,  1e10f,   std::ldexp(1.0f, 127),       1.7e38f};
  else
    // 6381956970095103 * 2^797 is the double nearest a multiple of pi/2.
    return {1e300,
            DBL_MAX,
            std::ldexp(6381956970095103.0, 797),
            16777216.0,
            16777215.999999,
            1e8,
            1e22,
            std::ldexp(1.0, 1023),
            3e38,
            1e15};
}

template <class T> void trigLarge() {
  size_t n = sweepSize() / 4;
  // Starts below the switch to Payne-Hanek so both sides of it are covered.
  double lo = sizeof(T) == 4 ? 1e3 : 1e6;
  double hi = double(std::numeric_limits<T>::max());
  std::vector<T> xs = logUniform<T>(n, lo, hi, hardTrigArguments<T>());
  for (unsigned lanes : {1u, 8u}) {
    CHECK(maxError<T>(math::emitSin, sinl, "sin", lanes, xs) <= 1);
    CHECK(maxError<T>(math::emitCos, cosl, "cos", lanes, xs) <= 1);
    CHECK(maxError<T>(math::emitTan, tanl, "tan", lanes, xs) <= 2.5);
  }
}

long double logisticRef(long double x) { return 1.0L / (1.0L + std::exp(-x)); }

} // namespace

TEST_CASE("math sin cos tan of huge f32 arguments") { trigLarge<float>(); }
TEST_CASE("math sin cos tan of huge f64 arguments") { trigLarge<double>(); }

TEST_CASE("math sin of 1e22 matches the published value") {
  // sin(10^22) = -0.8522008497671888017727... (Ng, "Argument reduction for
  // huge arguments"), independent of any libm.
  std::vector<double> out = runKernel<double>(math::emitSin, "sin1e22", 1, {1e22});
  CHECK(ulpError<double>(out[0], -0.8522008497671888017727L) <= 1);
}

TEST_CASE("math logistic with subnormal results") {
  // 1 + e^x rounds to 1 here, so logistic is e^x rounded once.
  for (unsigned lanes : {1u, 8u}) {
    std::vector<float> xf;
    for (int i = 0; i <= 200000; ++i)
      xf.push_back(float(-80.0 - 24.0 * i / 200000));
    CHECK(maxError<float>(math::emitLogistic, logisticRef, "logistic_tiny", lanes, xf) <= 1);
    std::vector<double> xd;
    for (int i = 0; i <= 200000; ++i)
      xd.push_back(-700.0 - 46.0 * i / 200000);
    CHECK(maxError<double>(math::emitLogistic, logisticRef, "logistic_tiny", lanes, xd) <= 1);
  }
  // e^-100 = 3.7200759760208359629e-44: 26.55 steps of the smallest
  // subnormal, so the float result is 27 of them.
  std::vector<float> out = runKernel<float>(math::emitLogistic, "logistic100", 1, {-100.0f});
  CHECK(out[0] == std::ldexp(27.0f, -149));
}
