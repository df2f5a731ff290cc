//===- MathSpecialValuesTest.cpp - Exact special cases of the inline math -===//
//
// NaN, infinities, signed zeros, overflow and underflow, compared bit for bit
// (NaN matches any NaN) in scalar and 4-lane code, f32 and f64. Expected
// values are C99 Annex F's.
//
//===----------------------------------------------------------------------===//

#include "MathTestHarness.h"

#include "codegen/MathEmitter.h"

#include <doctest/doctest.h>

using namespace llvm;
using namespace mote::test;
namespace math = mote::codegen::math;

namespace {

constexpr double inf = INFINITY, nan = NAN;

struct Expect {
  double x, y, want;
};

template <class T>
void checkAll(const char *name, const MathEmit &emit, bool binary,
              const std::vector<Expect> &cases) {
  Elem e = sizeof(T) == 4 ? Elem::F32 : Elem::F64;
  MathJit jit(HostCpu::Native);
  for (unsigned lanes : {1u, 4u}) {
    std::string fn =
        std::string(name) + (sizeof(T) == 4 ? "_f32_" : "_f64_") + std::to_string(lanes);
    KernelFn k = jit.compile(fn, e, binary ? e : Elem::None, e, lanes, emit);
    REQUIRE(static_cast<bool>(k));
    std::vector<T> xs, ys, out;
    for (const Expect &c : cases) {
      xs.push_back(T(c.x));
      ys.push_back(T(c.y));
    }
    while (xs.size() % 4) {
      xs.push_back(0);
      ys.push_back(0);
    }
    out.resize(xs.size());
    k(xs.data(), ys.data(), out.data(), int64_t(xs.size()));
    for (size_t i = 0; i < cases.size(); ++i)
      CHECK_MESSAGE(sameValue<T>(out[i], T(cases[i].want)),
                    fn << "(" << cases[i].x << (binary ? ", " + std::to_string(cases[i].y) : "")
                       << ") = " << double(out[i]) << ", want " << cases[i].want);
  }
}

template <class T>
void checkUnary(const char *name, Value *(*emit)(IRBuilderBase &, Value *),
                const std::vector<std::pair<double, double>> &cases) {
  std::vector<Expect> ex;
  for (auto [x, want] : cases)
    ex.push_back({x, 0, want});
  checkAll<T>(
      name, [&](IRBuilderBase &b, Value *x, Value *) { return emit(b, x); }, false, ex);
}

template <class T> void unarySpecials() {
  // Largest finite double / float, to get overflow in both types.
  double big = sizeof(T) == 4 ? 200.0 : 1000.0;
  checkUnary<T>("exp", math::emitExp,
                {{nan, nan}, {inf, inf}, {-inf, 0}, {0, 1}, {-0.0, 1}, {big, inf}, {-big * 4, 0}});
  checkUnary<T>("expm1", math::emitExpm1,
                {{nan, nan}, {inf, inf}, {-inf, -1}, {0, 0}, {-0.0, -0.0}, {big, inf}, {-big, -1}});
  checkUnary<T>("log", math::emitLog,
                {{nan, nan}, {inf, inf}, {-inf, nan}, {0, -inf}, {-0.0, -inf}, {1, 0}, {-1, nan}});
  checkUnary<T>("log1p", math::emitLog1p,
                {{nan, nan}, {inf, inf}, {-inf, nan}, {0, 0}, {-0.0, -0.0}, {-1, -inf}, {-2, nan}});
  checkUnary<T>("tanh", math::emitTanh,
                {{nan, nan}, {inf, 1}, {-inf, -1}, {0, 0}, {-0.0, -0.0}, {50, 1}, {-50, -1}});
  checkUnary<T>("logistic", math::emitLogistic,
                {{nan, nan}, {inf, 1}, {-inf, 0}, {0, 0.5}, {-0.0, 0.5}, {big, 1}, {-big * 4, 0}});
  checkUnary<T>("erf", math::emitErf,
                {{nan, nan}, {inf, 1}, {-inf, -1}, {0, 0}, {-0.0, -0.0}, {10, 1}, {-10, -1}});
  checkUnary<T>("sin", math::emitSin, {{nan, nan}, {inf, nan}, {-inf, nan}, {0, 0}, {-0.0, -0.0}});
  checkUnary<T>("cos", math::emitCos, {{nan, nan}, {inf, nan}, {-inf, nan}, {0, 1}, {-0.0, 1}});
  checkUnary<T>("tan", math::emitTan, {{nan, nan}, {inf, nan}, {-inf, nan}, {0, 0}, {-0.0, -0.0}});
  checkUnary<T>("cbrt", math::emitCbrt,
                {{nan, nan},
                 {inf, inf},
                 {-inf, -inf},
                 {0, 0},
                 {-0.0, -0.0},
                 {27, 3},
                 {-8, -2},
                 {0.125, 0.5}});
  checkUnary<T>("rsqrt", math::emitRsqrt,
                {{nan, nan}, {inf, 0}, {0, inf}, {-0.0, -inf}, {-1, nan}, {4, 0.5}, {0.25, 2}});
}

template <class T> void powSpecials() {
  std::vector<Expect> c = {// pow(x, +-0) = 1 for any x, pow(1, y) = 1 for any y, even NaN.
                           {nan, 0, 1},
                           {nan, -0.0, 1},
                           {inf, 0, 1},
                           {1, nan, 1},
                           {1, inf, 1},
                           {1, -inf, 1},
                           {nan, 1, nan},
                           {2, nan, nan},
                           // pow(+-0, y)
                           {0, -3, inf},
                           {-0.0, -3, -inf},
                           {0, -2, inf},
                           {-0.0, -2, inf},
                           {-0.0, -0.5, inf},
                           {0, -inf, inf},
                           {-0.0, -inf, inf},
                           {0, 3, 0},
                           {-0.0, 3, -0.0},
                           {-0.0, 2, 0},
                           {-0.0, 0.5, 0},
                           {0, inf, 0},
                           // pow(-1, +-inf) = 1
                           {-1, inf, 1},
                           {-1, -inf, 1},
                           // pow(x, +-inf)
                           {0.5, -inf, inf},
                           {-0.5, -inf, inf},
                           {2, -inf, 0},
                           {-2, -inf, 0},
                           {0.5, inf, 0},
                           {-0.5, inf, 0},
                           {2, inf, inf},
                           {-2, inf, inf},
                           // pow(-inf, y), pow(+inf, y)
                           {-inf, -3, -0.0},
                           {-inf, -2, 0},
                           {-inf, -0.5, 0},
                           {-inf, 3, -inf},
                           {-inf, 2, inf},
                           {-inf, 0.5, inf},
                           {inf, -1, 0},
                           {inf, 0.5, inf},
                           // negative finite base: integer powers keep the sign rule, others NaN
                           {-2, 3, -8},
                           {-2, 2, 4},
                           {-2, -1, -0.5},
                           {-2, 0.5, nan},
                           {-8, 1.0 / 3, nan},
                           // exact small cases, overflow and underflow
                           {2, 10, 1024},
                           {3, 2, 9},
                           {4, 0.5, 2},
                           {2, -2, 0.25},
                           {10, 1e6, inf},
                           {10, -1e6, 0},
                           {-10, 1e6 + 1, -inf},
                           {0.5, 1e30, 0},
                           {2, 1e30, inf}};
  checkAll<T>(
      "pow", [](IRBuilderBase &b, Value *x, Value *y) { return math::emitPow(b, x, y); }, true, c);
}

template <class T> void atan2Specials() {
  const double pi = M_PI, pio2 = M_PI / 2, pio4 = M_PI / 4;
  // Expect{x = first operand y, y = second operand x, want}.
  std::vector<Expect> c = {{0, 0, 0},
                           {-0.0, 0, -0.0},
                           {0, -0.0, pi},
                           {-0.0, -0.0, -pi},
                           {0, 2, 0},
                           {-0.0, 2, -0.0},
                           {0, -2, pi},
                           {-0.0, -2, -pi},
                           {2, 0, pio2},
                           {2, -0.0, pio2},
                           {-2, 0, -pio2},
                           {-2, -0.0, -pio2},
                           {2, inf, 0},
                           {-2, inf, -0.0},
                           {2, -inf, pi},
                           {-2, -inf, -pi},
                           {inf, 2, pio2},
                           {-inf, 2, -pio2},
                           {inf, inf, pio4},
                           {-inf, inf, -pio4},
                           {inf, -inf, 3 * pio4},
                           {-inf, -inf, -3 * pio4},
                           {nan, 1, nan},
                           {1, nan, nan},
                           {1, 1, pio4},
                           {-1, -1, -3 * pio4}};
  checkAll<T>(
      "atan2", [](IRBuilderBase &b, Value *y, Value *x) { return math::emitAtan2(b, y, x); }, true,
      c);
}

} // namespace

TEST_CASE("math special values f32") {
  unarySpecials<float>();
  powSpecials<float>();
  atan2Specials<float>();
}

TEST_CASE("math special values f64") {
  unarySpecials<double>();
  powSpecials<double>();
  atan2Specials<double>();
}

TEST_CASE("math underflow to subnormals") {
  MathJit jit(HostCpu::Native);
  KernelFn k = jit.compile("exp_sub", Elem::F32, Elem::None, Elem::F32, 1,
                           [](IRBuilderBase &b, Value *x, Value *) { return math::emitExp(b, x); });
  REQUIRE(static_cast<bool>(k));
  // exp(-100) = 3.72e-44 is subnormal in f32: 26.55 * 2^-149 rounds to 27.
  float xs[] = {-100.0f, -103.0f, -104.0f};
  float out[3];
  k(xs, nullptr, out, 3);
  for (int i = 0; i < 3; ++i)
    CHECK(ulpError<float>(out[i], std::exp((long double)xs[i])) <= 1);
  CHECK(out[0] == std::ldexp(27.0f, -149));
}
