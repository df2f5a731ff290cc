//===- MathUnaryTest.cpp - ULP accuracy of the unary inline math ----------===//
//
// Each function is JIT-compiled as an 8-lane vector kernel for the host, once
// with FMA (native CPU) and once for baseline x86-64 where fmuladd is not
// fused, and compared with long double libm: f32 over a dense sample of every
// bit pattern (2^20 by default, MOTE_MATH_SAMPLES to change), f64 over random
// bit patterns plus uniform values in the function's interesting range. Both
// cover the whole finite range: huge trig arguments, subnormal results.
//
//===----------------------------------------------------------------------===//

#include "MathTestHarness.h"

#include "codegen/MathEmitter.h"

#include <doctest/doctest.h>

using namespace llvm;
using namespace mote::test;
namespace math = mote::codegen::math;

namespace {

using UnaryEmit = Value *(*)(IRBuilderBase &, Value *);
using Reference = long double (*)(long double);

struct UnaryCase {
  const char *name;
  UnaryEmit emit;
  Reference ref;
  double boundF32, boundF64; ///< max ulp asserted
  double lo, hi;             ///< f64: uniform sample interval
};

template <class T> void sweep(const UnaryCase &uc, HostCpu cpu, const std::vector<T> &xs) {
  MathJit jit(cpu);
  Elem e = sizeof(T) == 4 ? Elem::F32 : Elem::F64;
  std::string name = std::string(uc.name) + (sizeof(T) == 4 ? "_f32" : "_f64");
  KernelFn k = jit.compile(name, e, Elem::None, e, 8,
                           [&](IRBuilderBase &b, Value *x, Value *) { return uc.emit(b, x); });
  REQUIRE(static_cast<bool>(k));
  std::vector<T> out(xs.size());
  k(xs.data(), nullptr, out.data(), int64_t(xs.size()));
  ErrorStats<T> stats;
  for (size_t i = 0; i < xs.size(); ++i)
    stats.add(ulpError<T>(out[i], uc.ref((long double)xs[i])), xs[i]);
  double bound = sizeof(T) == 4 ? uc.boundF32 : uc.boundF64;
  MESSAGE(name << std::string(cpu == HostCpu::Native ? " native" : " baseline") << ": max "
               << stats.maxUlp << " ulp at x=" << double(stats.worstX) << " over " << stats.count
               << " points");
  CHECK(stats.maxUlp <= bound);
}

void runCase(const UnaryCase &uc) {
  size_t n = sweepSize();
  auto f32 = denseF32Sample(n, 7);
  auto f64 = mixedF64Sample(n, uc.lo, uc.hi, 11);
  for (HostCpu cpu : {HostCpu::Native, HostCpu::Baseline}) {
    sweep<float>(uc, cpu, f32);
    sweep<double>(uc, cpu, f64);
  }
}

long double logisticRef(long double x) { return 1.0L / (1.0L + std::exp(-x)); }
long double rsqrtRef(long double x) { return 1.0L / std::sqrt(x); }

} // namespace

TEST_CASE("math exp accuracy") { runCase({"exp", math::emitExp, expl, 1, 1, -746, 710}); }
TEST_CASE("math expm1 accuracy") { runCase({"expm1", math::emitExpm1, expm1l, 2, 2, -2, 2}); }
TEST_CASE("math log accuracy") { runCase({"log", math::emitLog, logl, 1, 1, 0, 4}); }
TEST_CASE("math log1p accuracy") { runCase({"log1p", math::emitLog1p, log1pl, 1, 1, -1, 2}); }
TEST_CASE("math tanh accuracy") { runCase({"tanh", math::emitTanh, tanhl, 3, 3, -3, 3}); }
TEST_CASE("math logistic accuracy") {
  runCase({"logistic", math::emitLogistic, logisticRef, 3, 3, -40, 40});
}
TEST_CASE("math erf accuracy") { runCase({"erf", math::emitErf, erfl, 1, 1, -4, 4}); }
TEST_CASE("math sin accuracy") { runCase({"sin", math::emitSin, sinl, 1, 1, -100, 100}); }
TEST_CASE("math cos accuracy") { runCase({"cos", math::emitCos, cosl, 1, 1, -100, 100}); }
TEST_CASE("math tan accuracy") { runCase({"tan", math::emitTan, tanl, 2.5, 2.5, -100, 100}); }
TEST_CASE("math cbrt accuracy") { runCase({"cbrt", math::emitCbrt, cbrtl, 1, 1, -10, 10}); }
TEST_CASE("math rsqrt accuracy") { runCase({"rsqrt", math::emitRsqrt, rsqrtRef, 1.5, 1.5, 0, 10}); }
