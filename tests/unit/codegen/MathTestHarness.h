//===- MathTestHarness.h - JIT and ULP measurement for the math tests -*- C++ -*-===//
///
/// \file
/// Builds one MathEmitter function into a loop kernel
/// `void k(const void *a, const void *b, void *out, i64 n)` (n a multiple of
/// the lane count), checks the optimised module calls nothing, JIT-compiles
/// it for the host, and measures errors in ulps against long double libm.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TESTS_UNIT_CODEGEN_MATHTESTHARNESS_H
#define MOTE_TESTS_UNIT_CODEGEN_MATHTESTHARNESS_H

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace mote::test {

enum class Elem { None, F32, F64, I16 };

using MathEmit = std::function<llvm::Value *(llvm::IRBuilderBase &, llvm::Value *, llvm::Value *)>;
using KernelFn = void (*)(const void *, const void *, void *, int64_t);

/// Which host CPU the JIT targets: everything it has (FMA, AVX-512 here) or
/// plain x86-64 (SSE2, no FMA), where fmuladd is not fused.
enum class HostCpu { Native, Baseline };

/// Emits one kernel per call into a fresh module and JITs it.
class MathJit {
public:
  explicit MathJit(HostCpu cpu);
  ~MathJit();
  /// The kernel applying `emit` lane-wise; `lanes` 1 is scalar code. Fails
  /// the current doctest case (and returns nullptr) on a verifier error or a
  /// call/declaration that is not an allowed intrinsic.
  KernelFn compile(const std::string &name, Elem in0, Elem in1, Elem out, unsigned lanes,
                   const MathEmit &emit);

private:
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unique_ptr<llvm::TargetMachine> tm;
};

/// Problems in `m` for freestanding code: calls or declarations other than
/// intrinsics that lower to instructions. Empty when clean.
std::string findForbiddenCalls(const llvm::Module &m);

/// Runs the O2 pipeline for `tm` over `m`, then the rewrites of bf16
/// roundings and narrowings motec makes for AVX-512.
void optimizeModule(llvm::Module &m, llvm::TargetMachine &tm);

/// |got - ref| in ulps of T at ref (subnormal ulp below the normal range);
/// 0 when both are the same NaN/inf, infinity when only one is.
template <class T> double ulpError(T got, long double ref) {
  using L = std::numeric_limits<T>;
  if (std::isnan(ref) || std::isnan(got))
    return std::isnan(ref) && std::isnan(got) ? 0 : INFINITY;
  T refT = T(ref);
  if (std::isinf(refT) || std::isinf(got))
    return refT == got ? 0 : INFINITY;
  int e = ref == 0 ? L::min_exponent - 1 : std::ilogb(ref);
  if (e < L::min_exponent - 1)
    e = L::min_exponent - 1;
  long double ulp = std::ldexp(1.0L, e - (L::digits - 1));
  return double(std::fabs((long double)got - ref) / ulp);
}

/// Same value, NaN == NaN, +0 != -0.
template <class T> bool sameValue(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T> struct ErrorStats {
  double maxUlp = 0;
  T worstX{}, worstY{};
  size_t count = 0;
  void add(double ulp, T x, T y = T()) {
    ++count;
    if (ulp > maxUlp || std::isnan(ulp)) {
      maxUlp = ulp;
      worstX = x;
      worstY = y;
    }
  }
};

/// Number of points for the dense sweeps: 2^20, or MOTE_MATH_SAMPLES.
size_t sweepSize();

/// Inputs spread evenly over every f32 bit pattern (all exponents, both
/// signs, NaNs included) with a random offset inside each stride.
std::vector<float> denseF32Sample(size_t n, uint32_t seed);
/// Random f64 bit patterns (uniform over exponents) plus uniform values in
/// [lo, hi].
std::vector<double> mixedF64Sample(size_t n, double lo, double hi, uint32_t seed);

} // namespace mote::test

#endif // MOTE_TESTS_UNIT_CODEGEN_MATHTESTHARNESS_H
