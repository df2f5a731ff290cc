//===- MathBinaryTest.cpp - ULP accuracy of inline pow and atan2 ----------===//

#include "MathTestHarness.h"

#include "codegen/MathEmitter.h"

#include <doctest/doctest.h>

using namespace llvm;
using namespace mote::test;
namespace math = mote::codegen::math;

namespace {

template <class T> Elem elemOf() { return sizeof(T) == 4 ? Elem::F32 : Elem::F64; }

template <class T>
std::vector<T> runBinary(HostCpu cpu, const char *name,
                         Value *(*emit)(IRBuilderBase &, Value *, Value *), const std::vector<T> &a,
                         const std::vector<T> &b) {
  MathJit jit(cpu);
  KernelFn k = jit.compile(name, elemOf<T>(), elemOf<T>(), elemOf<T>(), 8,
                           [&](IRBuilderBase &bld, Value *x, Value *y) { return emit(bld, x, y); });
  REQUIRE(static_cast<bool>(k));
  std::vector<T> out(a.size());
  k(a.data(), b.data(), out.data(), int64_t(a.size()));
  return out;
}

/// Pairs (x, y) whose x^y lands in T's normal range: x over every exponent,
/// y chosen so y log2|x| is uniform over the representable exponents, plus
/// negative x with integer y.
template <class T> void powSample(size_t n, std::vector<T> &xs, std::vector<T> &ys) {
  using L = std::numeric_limits<T>;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> target(L::min_exponent + 1, L::max_exponent - 1);
  std::uniform_real_distribution<double> expo(L::min_exponent, L::max_exponent - 1);
  std::uniform_real_distribution<double> mant(1, 2);
  for (size_t i = 0; i < n; ++i) {
    T x = T(std::ldexp(mant(rng), int(expo(rng))));
    if (i % 4 == 1) // near 1, where the log is small and y large
      x = T(1 + std::ldexp(mant(rng) - 1.5, -int(rng() % (L::digits - 1))));
    double l2 = std::log2(double(x));
    T y = l2 == 0 ? T(1) : T(target(rng) / l2);
    if (i % 4 == 3) { // negative base, integer exponent
      y = T(std::round(double(y)));
      x = -x;
    }
    xs.push_back(x);
    ys.push_back(y);
  }
}

template <class T> void powAccuracy(HostCpu cpu, double bound) {
  std::vector<T> xs, ys;
  powSample<T>(sweepSize(), xs, ys);
  auto out = runBinary<T>(cpu, sizeof(T) == 4 ? "pow_f32" : "pow_f64", math::emitPow, xs, ys);
  ErrorStats<T> stats;
  for (size_t i = 0; i < xs.size(); ++i) {
    long double ref = std::pow((long double)xs[i], (long double)ys[i]);
    // Accuracy is asserted over normal results; subnormal ones below.
    if (std::fabs(ref) < (long double)std::numeric_limits<T>::min())
      continue;
    stats.add(ulpError<T>(out[i], ref), xs[i], ys[i]);
  }
  MESSAGE((sizeof(T) == 4 ? "pow_f32" : "pow_f64")
          << std::string(cpu == HostCpu::Native ? " native" : " baseline") << ": max "
          << stats.maxUlp << " ulp at x=" << double(stats.worstX) << " y=" << double(stats.worstY)
          << " over " << stats.count << " normal results");
  CHECK(stats.maxUlp <= bound);
}

template <class T> void atan2Accuracy(HostCpu cpu, double bound) {
  size_t n = sweepSize();
  std::vector<T> ys, xs;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> ratio(-4, 4);
  if constexpr (sizeof(T) == 4) {
    auto a = denseF32Sample(n, 21), b = denseF32Sample(n, 22);
    std::shuffle(b.begin(), b.end(), rng);
    for (size_t i = 0; i < n; ++i) {
      ys.push_back(a[i]);
      // Half the pairs of similar magnitude, where the result is not 0 or pi/2.
      xs.push_back(i % 2 ? T(a[i] * std::exp2(ratio(rng))) : b[i]);
    }
  } else {
    auto a = mixedF64Sample(n, -10, 10, 23), b = mixedF64Sample(n, -10, 10, 24);
    std::shuffle(b.begin(), b.end(), rng);
    for (size_t i = 0; i < n; ++i) {
      ys.push_back(a[i]);
      xs.push_back(i % 2 ? T(a[i] * std::exp2(ratio(rng))) : b[i]);
    }
  }
  auto out = runBinary<T>(cpu, sizeof(T) == 4 ? "atan2_f32" : "atan2_f64", math::emitAtan2, ys, xs);
  ErrorStats<T> stats;
  for (size_t i = 0; i < n; ++i)
    stats.add(ulpError<T>(out[i], std::atan2((long double)ys[i], (long double)xs[i])), ys[i],
              xs[i]);
  MESSAGE((sizeof(T) == 4 ? "atan2_f32" : "atan2_f64")
          << std::string(cpu == HostCpu::Native ? " native" : " baseline") << ": max "
          << stats.maxUlp << " ulp at y=" << double(stats.worstX) << " x=" << double(stats.worstY)
          << " over " << stats.count << " points");
  CHECK(stats.maxUlp <= bound);
}

} // namespace

TEST_CASE("math pow accuracy") {
  for (HostCpu cpu : {HostCpu::Native, HostCpu::Baseline}) {
    powAccuracy<float>(cpu, 1.5);
    powAccuracy<double>(cpu, 1.5);
  }
}

TEST_CASE("math atan2 accuracy") {
  for (HostCpu cpu : {HostCpu::Native, HostCpu::Baseline}) {
    atan2Accuracy<float>(cpu, 2);
    atan2Accuracy<double>(cpu, 2);
  }
}
