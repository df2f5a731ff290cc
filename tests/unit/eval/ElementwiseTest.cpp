//===- ElementwiseTest.cpp - Elementwise arithmetic, compare, select, clamp ===//
//
// Expected values are worked out by hand from XLA's operation semantics.
//
//===----------------------------------------------------------------------===//

#include "EvaluateText.h"

#include <cmath>
#include <limits>

using namespace mote;
using namespace mote::eval::test;
using hlo::PrimitiveType;

namespace {

/// `ROOT r = <result> <op>(a, b)<attributes>` on two constants of `type`.
std::string binary(const std::string &type, const std::string &op, const std::string &lhs,
                   const std::string &rhs, const std::string &result = "",
                   const std::string &attributes = "") {
  return "HloModule m\nENTRY e {\n  a = " + type + " constant(" + lhs + ")\n  b = " + type +
         " constant(" + rhs + ")\n  ROOT r = " + (result.empty() ? type : result) + " " + op +
         "(a, b)" + attributes + "\n}\n";
}

/// `ROOT r = <result> <op>(a)` on one constant.
std::string unary(const std::string &type, const std::string &op, const std::string &value,
                  const std::string &result = "") {
  return "HloModule m\nENTRY e {\n  a = " + type + " constant(" + value +
         ")\n  ROOT r = " + (result.empty() ? type : result) + " " + op + "(a)\n}\n";
}

constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kIntMax = std::numeric_limits<int32_t>::max();

} // namespace

TEST_CASE("integer add, subtract and multiply wrap around") {
  CHECK(elements<int32_t>(
            evaluate(binary("s32[3]", "add", "{2147483647, -2147483648, 5}", "{1, -1, -7}"))) ==
        std::vector<int32_t>{kIntMin, kIntMax, -2});
  CHECK(elements<uint8_t>(evaluate(binary("u8[2]", "add", "{255, 200}", "{1, 100}"))) ==
        std::vector<uint8_t>{0, 44});
  CHECK(elements<uint8_t>(evaluate(binary("u8[2]", "subtract", "{0, 5}", "{1, 3}"))) ==
        std::vector<uint8_t>{255, 2});
  CHECK(elements<int8_t>(evaluate(binary("s8[2]", "multiply", "{16, -128}", "{16, -1}"))) ==
        std::vector<int8_t>{0, -128});
  // (2^16 - 1)^2 = 2^32 - 2^17 + 1, which is 1 modulo 2^16.
  CHECK(elements<uint16_t>(evaluate(binary("u16[1]", "multiply", "{65535}", "{65535}"))) ==
        std::vector<uint16_t>{1});
  CHECK(elements<int64_t>(evaluate(binary("s64[1]", "add", "{9223372036854775807}", "{1}"))) ==
        std::vector<int64_t>{std::numeric_limits<int64_t>::min()});
}

TEST_CASE("integer divide and remainder: truncation, x/0, INT_MIN/-1") {
  auto quotient = evaluate(
      binary("s32[6]", "divide", "{7, -7, 7, -7, -2147483648, 5}", "{2, 2, -2, -2, -1, 0}"));
  CHECK(elements<int32_t>(quotient) == std::vector<int32_t>{3, -3, -3, 3, kIntMin, -1});
  auto remainder = evaluate(
      binary("s32[6]", "remainder", "{7, -7, 7, -7, -2147483648, 5}", "{2, 2, -2, -2, -1, 0}"));
  CHECK(elements<int32_t>(remainder) == std::vector<int32_t>{1, -1, 1, -1, 0, 5});
  CHECK(elements<uint32_t>(evaluate(binary("u32[2]", "divide", "{5, 9}", "{0, 4}"))) ==
        std::vector<uint32_t>{4294967295u, 2});
  CHECK(elements<uint32_t>(evaluate(binary("u32[2]", "remainder", "{5, 9}", "{0, 4}"))) ==
        std::vector<uint32_t>{5, 1});
  CHECK(elements<int8_t>(evaluate(binary("s8[2]", "divide", "{-128, 100}", "{-1, 0}"))) ==
        std::vector<int8_t>{-128, -1});
}

TEST_CASE("shifts by the bit width or more") {
  CHECK(elements<int32_t>(
            evaluate(binary("s32[4]", "shift-left", "{1, 1, 1, 3}", "{31, 32, -1, 2}"))) ==
        std::vector<int32_t>{kIntMin, 0, 0, 12});
  CHECK(elements<int32_t>(evaluate(
            binary("s32[4]", "shift-right-arithmetic", "{-8, -8, 8, 8}", "{1, 40, 40, 2}"))) ==
        std::vector<int32_t>{-4, -1, 0, 2});
  // -8 is 0xfffffff8: its top four bits shifted down by 28 give 15.
  CHECK(elements<int32_t>(evaluate(binary("s32[3]", "shift-right-logical", "{-8, -8, 64}",
                                          "{28, 32, 3}"))) == std::vector<int32_t>{15, 0, 8});
  // Arithmetic shift of an unsigned value copies its top bit: 0x80 -> 0xc0.
  CHECK(elements<uint8_t>(evaluate(binary("u8[2]", "shift-right-arithmetic", "{128, 128}",
                                          "{1, 8}"))) == std::vector<uint8_t>{192, 255});
  CHECK(elements<uint8_t>(evaluate(binary("u8[2]", "shift-left", "{255, 1}", "{4, 8}"))) ==
        std::vector<uint8_t>{240, 0});
}

TEST_CASE("maximum and minimum propagate NaN") {
  auto max = evaluate(binary("f32[4]", "maximum", "{nan, 1, 2, -inf}", "{1, nan, 3, -5}"));
  auto values = elements<float>(max);
  REQUIRE(values.size() == 4);
  CHECK(std::isnan(values[0]));
  CHECK(std::isnan(values[1]));
  CHECK(values[2] == 3.0f);
  CHECK(values[3] == -5.0f);
  auto min = elements<float>(evaluate(binary("f32[3]", "minimum", "{-inf, 4, 2}", "{nan, 3, 2}")));
  CHECK(std::isnan(min[0]));
  CHECK(min[1] == 3.0f);
  CHECK(min[2] == 2.0f);
  CHECK(elements<int32_t>(evaluate(binary("s32[2]", "maximum", "{-1, 7}", "{-2, 9}"))) ==
        std::vector<int32_t>{-1, 9});
  CHECK(elements<uint32_t>(evaluate(binary("u32[1]", "minimum", "{4294967295}", "{1}"))) ==
        std::vector<uint32_t>{1});
}

TEST_CASE("compare: IEEE by default, TOTALORDER on request, signedness from the type") {
  auto ieee = [](const std::string &direction) {
    return elements<bool>(
        evaluate(binary("f32[4]", "compare", "{nan, nan, -0, 1}", "{nan, 1, 0, 2}", "pred[4]",
                        ", direction=" + direction)));
  };
  CHECK(ieee("EQ") == std::vector<bool>{false, false, true, false});
  CHECK(ieee("NE") == std::vector<bool>{true, true, false, true});
  CHECK(ieee("LT") == std::vector<bool>{false, false, false, true});
  CHECK(ieee("GE") == std::vector<bool>{false, false, true, false});

  auto total = [](const std::string &direction) {
    return elements<bool>(evaluate(binary("f32[5]", "compare", "{-0, nan, -nan, inf, -inf}",
                                          "{0, nan, -inf, nan, -1}", "pred[5]",
                                          ", direction=" + direction + ", type=TOTALORDER")));
  };
  // -0 < +0; NaN == NaN (same bits); -NaN < -inf; +inf < +NaN; -inf < -1.
  CHECK(total("LT") == std::vector<bool>{true, false, true, true, true});
  CHECK(total("EQ") == std::vector<bool>{false, true, false, false, false});
  CHECK(total("GE") == std::vector<bool>{false, true, false, false, false});

  CHECK(elements<bool>(evaluate(binary("u32[1]", "compare", "{4294967295}", "{1}", "pred[1]",
                                       ", direction=GT"))) == std::vector<bool>{true});
  CHECK(elements<bool>(evaluate(binary("s32[1]", "compare", "{-1}", "{1}", "pred[1]",
                                       ", direction=GT"))) == std::vector<bool>{false});
  CHECK(elements<bool>(evaluate(binary("pred[2]", "compare", "{true, false}", "{false, false}",
                                       "pred[2]", ", direction=GT"))) ==
        std::vector<bool>{true, false});
}

TEST_CASE("select with an elementwise or a scalar predicate") {
  const char *elementwise = R"(HloModule m
ENTRY e {
  p = pred[3] constant({true, false, true})
  a = s32[3] constant({1, 2, 3})
  b = s32[3] constant({10, 20, 30})
  ROOT r = s32[3] select(p, a, b)
})";
  CHECK(elements<int32_t>(evaluate(elementwise)) == std::vector<int32_t>{1, 20, 3});
  const char *scalar = R"(HloModule m
ENTRY e {
  p = pred[] constant(false)
  a = f64[2] constant({1, 2})
  b = f64[2] constant({-1, -2})
  ROOT r = f64[2] select(p, a, b)
})";
  CHECK(elements<double>(evaluate(scalar)) == std::vector<double>{-1, -2});
}

TEST_CASE("clamp with scalar and array bounds, NaN passes through") {
  const char *scalarBounds = R"(HloModule m
ENTRY e {
  lo = f32[] constant(-1)
  x = f32[4] constant({-5, 0.5, 7, nan})
  hi = f32[] constant(2)
  ROOT r = f32[4] clamp(lo, x, hi)
})";
  auto values = elements<float>(evaluate(scalarBounds));
  REQUIRE(values.size() == 4);
  CHECK(values[0] == -1.0f);
  CHECK(values[1] == 0.5f);
  CHECK(values[2] == 2.0f);
  CHECK(std::isnan(values[3]));
  const char *arrayBounds = R"(HloModule m
ENTRY e {
  lo = s32[3] constant({0, 10, -5})
  x = s32[3] constant({-1, 5, 100})
  hi = s32[3] constant({3, 20, 50})
  ROOT r = s32[3] clamp(lo, x, hi)
})";
  CHECK(elements<int32_t>(evaluate(arrayBounds)) == std::vector<int32_t>{0, 10, 50});
}

TEST_CASE("integer unary ops: abs and negate of INT_MIN, sign, popcnt, clz, not") {
  CHECK(elements<int32_t>(evaluate(unary("s32[3]", "abs", "{-2147483648, -5, 5}"))) ==
        std::vector<int32_t>{kIntMin, 5, 5});
  CHECK(elements<int32_t>(evaluate(unary("s32[2]", "negate", "{-2147483648, 7}"))) ==
        std::vector<int32_t>{kIntMin, -7});
  CHECK(elements<uint8_t>(evaluate(unary("u8[2]", "negate", "{1, 0}"))) ==
        std::vector<uint8_t>{255, 0});
  CHECK(elements<int32_t>(evaluate(unary("s32[3]", "sign", "{-9, 0, 4}"))) ==
        std::vector<int32_t>{-1, 0, 1});
  CHECK(elements<int32_t>(evaluate(unary("s32[3]", "popcnt", "{-1, 0, 7}"))) ==
        std::vector<int32_t>{32, 0, 3});
  CHECK(elements<uint8_t>(evaluate(unary("u8[1]", "popcnt", "{240}"))) == std::vector<uint8_t>{4});
  CHECK(elements<int32_t>(evaluate(unary("s32[4]", "count-leading-zeros", "{1, 0, -1, 65536}"))) ==
        std::vector<int32_t>{31, 32, 0, 15});
  CHECK(elements<uint16_t>(evaluate(unary("u16[1]", "count-leading-zeros", "{1}"))) ==
        std::vector<uint16_t>{15});
  CHECK(elements<int32_t>(evaluate(unary("s32[2]", "not", "{0, 5}"))) ==
        std::vector<int32_t>{-1, -6});
  CHECK(elements<bool>(evaluate(unary("pred[2]", "not", "{true, false}"))) ==
        std::vector<bool>{false, true});
}

TEST_CASE("float rounding, sign and is-finite") {
  CHECK(elements<float>(
            evaluate(unary("f32[5]", "round-nearest-afz", "{2.5, -2.5, 0.5, 1.4, -0.4}"))) ==
        std::vector<float>{3, -3, 1, 1, -0.0f});
  CHECK(elements<float>(evaluate(unary("f32[4]", "round-nearest-even", "{2.5, 3.5, -2.5, 0.5}"))) ==
        std::vector<float>{2, 4, -2, 0});
  CHECK(elements<float>(evaluate(unary("f32[2]", "floor", "{-1.5, 1.5}"))) ==
        std::vector<float>{-2, 1});
  CHECK(elements<float>(evaluate(unary("f32[2]", "ceil", "{-1.5, 1.5}"))) ==
        std::vector<float>{-1, 2});
  auto sign = elements<float>(evaluate(unary("f32[4]", "sign", "{-3, -0, nan, 0.25}")));
  CHECK(sign[0] == -1.0f);
  CHECK(bitsOf(sign[1]) == 0x80000000u); // -0 keeps its sign
  CHECK(std::isnan(sign[2]));
  CHECK(sign[3] == 1.0f);
  CHECK(elements<bool>(evaluate(unary("f32[4]", "is-finite", "{inf, nan, -1e30, -inf}",
                                      "pred[4]"))) == std::vector<bool>{false, false, true, false});
  CHECK(bitsOf(elements<float>(evaluate(unary("f32[1]", "abs", "{-0}")))[0]) == 0u);
}

TEST_CASE("float math functions at known points") {
  auto at = [](const std::string &op, const std::string &value) {
    return elements<float>(evaluate(unary("f32[1]", op, "{" + value + "}")))[0];
  };
  CHECK(at("exponential", "0") == 1.0f);
  CHECK(at("exponential", "1") == doctest::Approx(2.718281828));
  CHECK(at("log", "1") == 0.0f);
  CHECK(at("log", "0") == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(at("log", "-1")));
  CHECK(at("sqrt", "4") == 2.0f);
  CHECK(at("rsqrt", "4") == 0.5f);
  CHECK(at("cbrt", "-8") == -2.0f);
  CHECK(at("logistic", "0") == 0.5f);
  CHECK(at("logistic", "-1000") == 0.0f);
  // e^-100 = 3.720076e-44 lies between the subnormals 26 and 27 times 2^-149;
  // nearest is 27 (26.55). 1 / (1 + e^100) would overflow to 0 instead.
  CHECK(at("logistic", "-100") == 27 * std::ldexp(1.0f, -149));
  CHECK(at("tanh", "0") == 0.0f);
  // Relative tolerance: exp(x) - 1 or log(1 + x) in float would give 0 here.
  CHECK(at("exponential-minus-one", "1e-10") == doctest::Approx(1e-10).scale(0));
  CHECK(at("log-plus-one", "1e-10") == doctest::Approx(1e-10).scale(0));
  CHECK(at("erf", "0") == 0.0f);
  CHECK(at("erf", "10") == 1.0f);
  CHECK(at("sine", "0") == 0.0f);
  CHECK(at("cosine", "0") == 1.0f);
  CHECK(at("tan", "0.7853981634") == doctest::Approx(1.0));
  CHECK(at("atan", "1") == doctest::Approx(0.7853981634));
  CHECK(at("acos", "1") == 0.0f);
  CHECK(at("asin", "1") == doctest::Approx(1.5707963268));
  CHECK(at("cosh", "0") == 1.0f);
  CHECK(at("sinh", "0") == 0.0f);
  CHECK(at("asinh", "0") == 0.0f);
  CHECK(at("acosh", "1") == 0.0f);
  CHECK(at("atanh", "0") == 0.0f);
  auto atan2 = elements<float>(evaluate(binary("f32[2]", "atan2", "{1, 0}", "{1, -1}")));
  CHECK(atan2[0] == doctest::Approx(0.7853981634));
  CHECK(atan2[1] == doctest::Approx(3.1415926536));
}

TEST_CASE("power: integer squaring with wrap, negative exponents, 0^0") {
  CHECK(elements<int32_t>(evaluate(
            binary("s32[7]", "power", "{2, 3, 1, 0, -2, 2, 2}", "{10, -1, -5, 0, 3, 31, 32}"))) ==
        std::vector<int32_t>{1024, 0, 1, 1, -8, kIntMin, 0});
  auto f =
      elements<float>(evaluate(binary("f32[4]", "power", "{0, nan, 2, 1}", "{0, 0, 0.5, nan}")));
  CHECK(f[0] == 1.0f);
  CHECK(f[1] == 1.0f);
  CHECK(f[2] == doctest::Approx(1.41421356));
  CHECK(f[3] == 1.0f);
}

TEST_CASE("pred arithmetic follows bool") {
  CHECK(elements<bool>(evaluate(binary("pred[4]", "and", "{true, true, false, false}",
                                       "{true, false, true, false}"))) ==
        std::vector<bool>{true, false, false, false});
  CHECK(elements<bool>(evaluate(binary("pred[4]", "xor", "{true, true, false, false}",
                                       "{true, false, true, false}"))) ==
        std::vector<bool>{false, true, true, false});
  CHECK(elements<bool>(evaluate(binary("pred[4]", "add", "{true, true, false, false}",
                                       "{true, false, true, false}"))) ==
        std::vector<bool>{true, true, true, false});
}

TEST_CASE("bf16 and f16 compute in f32 and round once") {
  // 1 + 2^-8 is halfway between the bf16 neighbours 1 and 1 + 2^-7: ties to even.
  auto bf16 = halfElements<hlo::BFloat16>(
      evaluate(binary("bf16[2]", "add", "{1, 1.0078125}", "{0.00390625, 0.00390625}")));
  CHECK(bf16 == std::vector<float>{1.0f, 1.015625f});
  // f16 spacing at 2048 is 2: 2048 + 1 ties to 2048, 2050 + 1 ties to 2052.
  auto f16 =
      halfElements<hlo::Float16>(evaluate(binary("f16[2]", "add", "{2048, 2050}", "{1, 1}")));
  CHECK(f16 == std::vector<float>{2048.0f, 2052.0f});
  // 60000 * 2 overflows f16 to infinity.
  auto overflow =
      halfElements<hlo::Float16>(evaluate(binary("f16[1]", "multiply", "{60000}", "{2}")));
  CHECK(std::isinf(overflow[0]));
  auto exp = halfElements<hlo::BFloat16>(evaluate(unary("bf16[1]", "exponential", "{1}")));
  CHECK(exp[0] == 2.71875f); // e rounded to 8 significant bits
}

TEST_CASE("complex arithmetic and parts") {
  const char *text = R"(HloModule m
ENTRY e {
  re = f32[2] constant({1, 3})
  im = f32[2] constant({2, 4})
  z = c64[2] complex(re, im)
  w = c64[2] multiply(z, z)
  wr = f32[2] real(w)
  wi = f32[2] imag(w)
  za = f32[2] abs(z)
  ROOT t = (f32[2], f32[2], f32[2]) tuple(wr, wi, za)
})";
  auto result = evaluate(text);
  REQUIRE(result.tupleSize() == 3);
  // (1+2i)^2 = -3+4i; (3+4i)^2 = -7+24i; |3+4i| = 5.
  CHECK(elements<float>(result.element(0)) == std::vector<float>{-3, -7});
  CHECK(elements<float>(result.element(1)) == std::vector<float>{4, 24});
  CHECK(elements<float>(result.element(2))[1] == 5.0f);
  CHECK(elements<float>(result.element(2))[0] == doctest::Approx(2.2360679775));
  const char *equal = R"(HloModule m
ENTRY e {
  a = c64[2] constant({(1, 2), (3, 4)})
  b = c64[2] constant({(1, 2), (3, -4)})
  ROOT r = pred[2] compare(a, b), direction=EQ
})";
  CHECK(elements<bool>(evaluate(equal)) == std::vector<bool>{true, false});
}

TEST_CASE("mismatched or unsupported operands are located errors") {
  std::string error =
      evaluationError(binary("f32[2]", "and", "{1, 2}", "{3, 4}"), {}, {}, /*verify=*/false);
  CHECK(error.find("and does not support element type f32") != std::string::npos);
  CHECK(error.find("<string>:5:") == 0);
}

TEST_CASE("4-bit integers wrap and shift within their width") {
  CHECK(elements<int8_t>(evaluate(binary("s4[3]", "add", "{7, -8, 3}", "{1, -1, 3}"))) ==
        std::vector<int8_t>{-8, 7, 6});
  CHECK(elements<int8_t>(evaluate(binary("s4[2]", "multiply", "{3, -8}", "{3, -1}"))) ==
        std::vector<int8_t>{-7, -8});
  CHECK(elements<uint8_t>(evaluate(binary("u4[2]", "add", "{15, 9}", "{1, 9}"))) ==
        std::vector<uint8_t>{0, 2});
  CHECK(elements<int8_t>(evaluate(binary("s4[2]", "divide", "{-8, 5}", "{-1, 0}"))) ==
        std::vector<int8_t>{-8, -1});
  CHECK(elements<uint8_t>(evaluate(binary("u4[1]", "divide", "{5}", "{0}"))) ==
        std::vector<uint8_t>{15});
  // -1 is 0b1111: logically shifted right by one it is 0b0111.
  CHECK(elements<int8_t>(evaluate(binary("s4[4]", "shift-right-logical", "{-1, -8, 7, -1}",
                                         "{1, 3, 4, -1}"))) == std::vector<int8_t>{7, 1, 0, 0});
  CHECK(elements<int8_t>(evaluate(binary("s4[3]", "shift-left", "{1, 1, 3}", "{3, 4, 2}"))) ==
        std::vector<int8_t>{-8, 0, -4});
  // 0b1000 as an unsigned 4-bit value, shifted arithmetically, copies its top bit.
  CHECK(elements<uint8_t>(evaluate(binary("u4[2]", "shift-right-arithmetic", "{8, 8}",
                                          "{1, 4}"))) == std::vector<uint8_t>{12, 15});
  CHECK(elements<int8_t>(evaluate(unary("s4[3]", "count-leading-zeros", "{1, 0, -1}"))) ==
        std::vector<int8_t>{3, 4, 0});
  CHECK(elements<int8_t>(evaluate(unary("s4[2]", "popcnt", "{-1, 5}"))) ==
        std::vector<int8_t>{4, 2});
  CHECK(elements<int8_t>(evaluate(unary("s4[2]", "negate", "{-8, 3}"))) ==
        std::vector<int8_t>{-8, -3});
}
