//===- MathHalfTest.cpp - Bit-exact f16/bf16 conversions ------------------===//
//
// Widening is checked on all 65536 inputs. Narrowing is checked on every
// half's rounding midpoint and its neighbours, every f32 exponent/high-bit
// pattern with tie-prone low bits, and random values, against both the
// repository's host conversion (hlo/FloatTypes.h) and an independent
// nearest-value search over the table of all halves.
//
//===----------------------------------------------------------------------===//

#include "MathTestHarness.h"

#include "codegen/MathEmitter.h"
#include "hlo/FloatTypes.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>

using namespace llvm;
using namespace mote::test;
using mote::hlo::BFloat16;
using mote::hlo::Float16;
namespace math = mote::codegen::math;

namespace {

template <class To, class From> To bitsOf(From v) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  std::memcpy(&t, &v, sizeof t);
  return t;
}

/// The values of the non-negative finite halves 0x0000..0x7bff, increasing.
const std::vector<double> &halfTable() {
  static const std::vector<double> table = [] {
    std::vector<double> t;
    for (uint32_t h = 0; h <= 0x7bff; ++h)
      t.push_back(std::ldexp(double((h & 0x3ff) | ((h >> 10) ? 0x400 : 0)),
                             std::max(int(h >> 10), 1) - 25));
    return t;
  }();
  return table;
}

/// Nearest half to a finite or infinite v, ties to even; 65520 and up overflow.
uint16_t nearestHalf(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  double a = std::fabs(v);
  if (a >= 65520.0)
    return sign | 0x7c00;
  const auto &t = halfTable();
  size_t hi = std::upper_bound(t.begin(), t.end(), a) - t.begin(); // first > a
  size_t lo = hi - 1;                                              // last <= a
  if (t[lo] == a || hi == t.size())
    return sign | uint16_t(lo);
  double dl = a - t[lo], dh = t[hi] - a;
  size_t pick = dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
  return sign | uint16_t(pick);
}

template <class T> uint16_t expectedHalf(T v) {
  if (std::isnan(v)) {
    if constexpr (sizeof(T) == 4) {
      uint32_t b = bitsOf<uint32_t>(v);
      return uint16_t(((b >> 16) & 0x8000) | 0x7e00 | ((b >> 13) & 0x3ff));
    } else {
      uint64_t b = bitsOf<uint64_t>(v);
      return uint16_t(((b >> 48) & 0x8000) | 0x7e00 | ((b >> 42) & 0x3ff));
    }
  }
  return nearestHalf(double(v));
}

/// Inputs for narrowing: half midpoints and neighbours, plus random values.
template <class T> std::vector<T> narrowingSample() {
  std::vector<T> v;
  const auto &t = halfTable();
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    T mid = T((t[i] + t[i + 1]) / 2); // exact in both f32 and f64
    for (T x : {mid, std::nextafter(mid, T(0)), std::nextafter(mid, T(INFINITY)), T(t[i])}) {
      v.push_back(x);
      v.push_back(-x);
    }
  }
  for (double edge : {65504.0, 65519.0, 65520.0, 65536.0, 1e10, double(INFINITY)}) {
    v.push_back(T(edge));
    v.push_back(T(-edge));
    v.push_back(std::nextafter(T(edge), T(0)));
  }
  v.push_back(T(NAN));
  v.push_back(-T(NAN));
  std::mt19937_64 rng(9);
  for (int i = 0; i < (1 << 18); ++i) {
    if constexpr (sizeof(T) == 4)
      v.push_back(bitsOf<float>(uint32_t(rng())));
    else // mostly in and near the half range, some anywhere
      v.push_back(i % 4 ? std::ldexp(double(rng() >> 11), int(rng() % 50) - 90)
                        : bitsOf<double>(uint64_t(rng())));
  }
  while (v.size() % 8)
    v.push_back(T(0));
  return v;
}

} // namespace

TEST_CASE("math f16 and bf16 widen exactly") {
  MathJit jit(HostCpu::Native);
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < 65536; ++i)
    all[i] = uint16_t(i);
  for (unsigned lanes : {1u, 8u}) {
    std::string suffix = "_" + std::to_string(lanes);
    auto f16 =
        jit.compile("f16_to_f32" + suffix, Elem::I16, Elem::None, Elem::F32, lanes,
                    [](IRBuilderBase &b, Value *h, Value *) { return math::emitF16ToF32(b, h); });
    auto f16d =
        jit.compile("f16_to_f64" + suffix, Elem::I16, Elem::None, Elem::F64, lanes,
                    [](IRBuilderBase &b, Value *h, Value *) { return math::emitF16ToF64(b, h); });
    auto bf16 =
        jit.compile("bf16_to_f32" + suffix, Elem::I16, Elem::None, Elem::F32, lanes,
                    [](IRBuilderBase &b, Value *h, Value *) { return math::emitBF16ToF32(b, h); });
    REQUIRE(static_cast<bool>(f16));
    REQUIRE(static_cast<bool>(f16d));
    REQUIRE(static_cast<bool>(bf16));
    std::vector<float> outF(65536), outB(65536);
    std::vector<double> outD(65536);
    f16(all.data(), nullptr, outF.data(), 65536);
    f16d(all.data(), nullptr, outD.data(), 65536);
    bf16(all.data(), nullptr, outB.data(), 65536);
    size_t bad = 0;
    for (uint32_t h = 0; h < 65536; ++h) {
      float wantF = Float16::toFloat(uint16_t(h));
      bad += bitsOf<uint32_t>(outF[h]) != bitsOf<uint32_t>(wantF);
      bad += bitsOf<uint32_t>(outB[h]) != bitsOf<uint32_t>(float(BFloat16::fromBits(uint16_t(h))));
      // f64: the same value; NaNs keep sign and payload (shifted), unquieted.
      uint64_t wantD = std::isnan(wantF) ? (uint64_t(h & 0x8000) << 48) | 0x7ff0000000000000ull |
                                               (uint64_t(h & 0x3ff) << 42)
                                         : bitsOf<uint64_t>(double(wantF));
      bad += bitsOf<uint64_t>(outD[h]) != wantD;
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("math f32 to f16 and bf16 round to nearest even") {
  MathJit jit(HostCpu::Native);
  std::vector<float> xs = narrowingSample<float>();
  // Every sign/exponent/high-mantissa pattern with low bits around the ties
  // of both formats.
  for (uint32_t top = 0; top < 65536; ++top)
    for (uint32_t low : {0x0u, 0x1u, 0x7fffu, 0x8000u, 0x8001u, 0xfffu, 0x1000u, 0x1001u, 0xffffu})
      xs.push_back(bitsOf<float>((top << 16) | low));
  while (xs.size() % 8)
    xs.push_back(0);
  for (unsigned lanes : {1u, 8u}) {
    std::string suffix = "_" + std::to_string(lanes);
    auto toF16 =
        jit.compile("f32_to_f16" + suffix, Elem::F32, Elem::None, Elem::I16, lanes,
                    [](IRBuilderBase &b, Value *x, Value *) { return math::emitF32ToF16(b, x); });
    auto toBF16 =
        jit.compile("f32_to_bf16" + suffix, Elem::F32, Elem::None, Elem::I16, lanes,
                    [](IRBuilderBase &b, Value *x, Value *) { return math::emitF32ToBF16(b, x); });
    REQUIRE(static_cast<bool>(toF16));
    REQUIRE(static_cast<bool>(toBF16));
    std::vector<uint16_t> h(xs.size()), bf(xs.size());
    toF16(xs.data(), nullptr, h.data(), int64_t(xs.size()));
    toBF16(xs.data(), nullptr, bf.data(), int64_t(xs.size()));
    size_t badHost = 0, badIndependent = 0, badBf = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      badHost += h[i] != Float16::fromFloat(xs[i]);
      badIndependent += h[i] != expectedHalf(xs[i]);
      badBf += bf[i] != BFloat16::fromFloat(xs[i]);
    }
    CHECK(badHost == 0);
    CHECK(badIndependent == 0);
    CHECK(badBf == 0);
  }
}

TEST_CASE("math f32 to bf16 rounds every f32 to nearest even, 32 lanes a step") {
  // All 2^32 inputs, in the vector width of a bf16 epilogue on x86-64 with
  // AVX-512 (two zmm registers), where the tie-to-even bit is a mask and the
  // narrowing one word permute (output/RoundingMasks.cpp,
  // HighHalfNarrowing.cpp): NaN payloads, infinities, overflow to infinity,
  // subnormals and signed zeros included. Against the evaluator's rounding.
  MathJit jit(HostCpu::Native);
  auto toBF16 =
      jit.compile("f32_to_bf16_all", Elem::F32, Elem::None, Elem::I16, 32,
                  [](IRBuilderBase &b, Value *x, Value *) { return math::emitF32ToBF16(b, x); });
  REQUIRE(static_cast<bool>(toBF16));
  constexpr uint64_t chunk = uint64_t(1) << 22;
  std::vector<uint32_t> bits(chunk);
  std::vector<uint16_t> rounded(chunk);
  uint64_t bad = 0;
  uint32_t firstBad = 0;
  for (uint64_t begin = 0; begin < (uint64_t(1) << 32); begin += chunk) {
    for (uint64_t i = 0; i < chunk; ++i)
      bits[i] = uint32_t(begin + i);
    toBF16(bits.data(), nullptr, rounded.data(), int64_t(chunk));
    for (uint64_t i = 0; i < chunk; ++i)
      if (rounded[i] != BFloat16::fromFloat(bitsOf<float>(bits[i])) && !bad++)
        firstBad = bits[i];
  }
  char first[16];
  std::snprintf(first, sizeof first, "0x%08x", firstBad);
  CHECK_MESSAGE(bad == 0, bad << " wrong, the first for f32 bits " << first);
}

TEST_CASE("math f64 to f16 rounds once") {
  MathJit jit(HostCpu::Native);
  std::vector<double> xs = narrowingSample<double>();
  // Just above and below each midpoint by less than an f32 ulp: rounding
  // through f32 would land on the midpoint and then tie to even, wrongly.
  const auto &t = halfTable();
  for (size_t i = 0; i + 1 < t.size(); i += 7) {
    double mid = (t[i] + t[i + 1]) / 2;
    xs.push_back(mid * (1 + 0x1p-40));
    xs.push_back(mid * (1 - 0x1p-40));
  }
  while (xs.size() % 8)
    xs.push_back(0);
  size_t doubleRoundingWouldFail = 0;
  for (double x : xs)
    doubleRoundingWouldFail += !std::isnan(x) && Float16::fromFloat(float(x)) != expectedHalf(x);
  CHECK(doubleRoundingWouldFail > 0); // the sample does exercise the difference
  for (unsigned lanes : {1u, 8u}) {
    auto toF16 =
        jit.compile("f64_to_f16_" + std::to_string(lanes), Elem::F64, Elem::None, Elem::I16, lanes,
                    [](IRBuilderBase &b, Value *x, Value *) { return math::emitF64ToF16(b, x); });
    REQUIRE(static_cast<bool>(toF16));
    std::vector<uint16_t> h(xs.size());
    toF16(xs.data(), nullptr, h.data(), int64_t(xs.size()));
    size_t bad = 0;
    for (size_t i = 0; i < xs.size(); ++i)
      if (h[i] != expectedHalf(xs[i]) && ++bad < 5)
        MESSAGE("f64_to_f16(" << xs[i] << ") = " << h[i] << ", want " << expectedHalf(xs[i]));
    CHECK(bad == 0);
  }
}
