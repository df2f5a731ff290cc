//===- MathInverseHyperbolicTest.cpp - ULP accuracy of the other unary ops -===//
//
// The inverse trigonometric and hyperbolic functions the elemental emitter
// builds from the inline math (ElementalUnary.cpp), measured like the core
// functions (MathUnaryTest.cpp): f32 over a dense sample of every bit
// pattern, f64 over random bit patterns plus an interesting range, against
// long double libm, with and without FMA. The bounds asserted are the
// measured maxima rounded up: sinh and cosh 2.5 (the largest where e^|x|
// overflows and (w/2) w takes over), asinh 1.7, acosh 1.9, atanh 1.9,
// asin 2.2, acos 1.9, atan 1.2 ulp.
//
//===----------------------------------------------------------------------===//

#include "MathTestHarness.h"

#include "codegen/ElementalEmitter.h"

#include <doctest/doctest.h>

using namespace llvm;
using namespace mote::test;
using mote::hlo::Opcode;
using mote::hlo::PrimitiveType;

namespace {

using Reference = long double (*)(long double);

template <Opcode op> Value *emitOp(IRBuilderBase &b, Value *x) {
  PrimitiveType type =
      x->getType()->getScalarType()->isDoubleTy() ? PrimitiveType::F64 : PrimitiveType::F32;
  return mote::codegen::emitUnaryOp(b, op, type, x);
}

template <class T>
void sweep(const char *name, Value *(*emit)(IRBuilderBase &, Value *), Reference ref,
           double bound, HostCpu cpu, const std::vector<T> &xs) {
  MathJit jit(cpu);
  Elem e = sizeof(T) == 4 ? Elem::F32 : Elem::F64;
  std::string kernel = std::string(name) + (sizeof(T) == 4 ? "_f32" : "_f64");
  KernelFn k = jit.compile(kernel, e, Elem::None, e, 8,
                           [&](IRBuilderBase &b, Value *x, Value *) { return emit(b, x); });
  REQUIRE(static_cast<bool>(k));
  std::vector<T> out(xs.size());
  k(xs.data(), nullptr, out.data(), int64_t(xs.size()));
  ErrorStats<T> stats;
  for (size_t i = 0; i < xs.size(); ++i)
    stats.add(ulpError<T>(out[i], ref((long double)xs[i])), xs[i]);
  MESSAGE(kernel << std::string(cpu == HostCpu::Native ? " native" : " baseline") << ": max "
                 << stats.maxUlp << " ulp at x=" << double(stats.worstX) << " over "
                 << stats.count << " points");
  CHECK(stats.maxUlp <= bound);
}

void run(const char *name, Value *(*emit)(IRBuilderBase &, Value *), Reference ref, double boundF32,
         double boundF64, double lo, double hi) {
  size_t n = sweepSize();
  auto f32 = denseF32Sample(n, 7);
  auto f64 = mixedF64Sample(n, lo, hi, 11);
  for (HostCpu cpu : {HostCpu::Native, HostCpu::Baseline}) {
    sweep<float>(name, emit, ref, boundF32, cpu, f32);
    sweep<double>(name, emit, ref, boundF64, cpu, f64);
  }
}

} // namespace

TEST_CASE("math sinh accuracy") { run("sinh", emitOp<Opcode::Sinh>, sinhl, 3, 3, -720, 720); }
TEST_CASE("math cosh accuracy") { run("cosh", emitOp<Opcode::Cosh>, coshl, 3, 3, -720, 720); }
TEST_CASE("math asinh accuracy") { run("asinh", emitOp<Opcode::Asinh>, asinhl, 2, 2, -10, 10); }
TEST_CASE("math acosh accuracy") { run("acosh", emitOp<Opcode::Acosh>, acoshl, 2, 2, 1, 10); }
TEST_CASE("math atanh accuracy") { run("atanh", emitOp<Opcode::Atanh>, atanhl, 2, 2, -1, 1); }
TEST_CASE("math asin accuracy") { run("asin", emitOp<Opcode::Asin>, asinl, 2.5, 2.5, -1, 1); }
TEST_CASE("math acos accuracy") { run("acos", emitOp<Opcode::Acos>, acosl, 2, 2, -1, 1); }
TEST_CASE("math atan accuracy") { run("atan", emitOp<Opcode::Atan>, atanl, 1.5, 1.5, -10, 10); }
