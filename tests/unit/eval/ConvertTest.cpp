//===- ConvertTest.cpp - convert, bitcast-convert, reduce-precision --------===//
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

std::string convert(const std::string &from, const std::string &value, const std::string &to,
                    const std::string &op = "convert", const std::string &attributes = "") {
  return "HloModule m\nENTRY e {\n  a = " + from + " constant(" + value + ")\n  ROOT r = " + to +
         " " + op + "(a)" + attributes + "\n}\n";
}

} // namespace

TEST_CASE("float to integer truncates, saturates and maps NaN to 0") {
  CHECK(elements<int32_t>(
            evaluate(convert("f32[7]", "{2.9, -2.9, 3e9, -3e9, nan, inf, -inf}", "s32[7]"))) ==
        std::vector<int32_t>{2, -2, 2147483647, -2147483647 - 1, 0, 2147483647, -2147483647 - 1});
  CHECK(elements<uint8_t>(evaluate(convert("f32[5]", "{-1.5, 300, 255.9, 0.99, -0}", "u8[5]"))) ==
        std::vector<uint8_t>{0, 255, 255, 0, 0});
  CHECK(elements<int64_t>(evaluate(convert("f64[2]", "{1e19, -1e19}", "s64[2]"))) ==
        std::vector<int64_t>{std::numeric_limits<int64_t>::max(),
                             std::numeric_limits<int64_t>::min()});
  CHECK(elements<int8_t>(evaluate(convert("bf16[3]", "{-200, 127.5, -128.5}", "s8[3]"))) ==
        std::vector<int8_t>{-128, 127, -128});
}

TEST_CASE("convert to pred is x != 0") {
  CHECK(elements<bool>(evaluate(convert("f32[4]", "{0, -0, nan, 0.5}", "pred[4]"))) ==
        std::vector<bool>{false, false, true, true});
  CHECK(elements<bool>(evaluate(convert("s32[3]", "{0, -7, 256}", "pred[3]"))) ==
        std::vector<bool>{false, true, true});
  CHECK(elements<float>(evaluate(convert("pred[2]", "{true, false}", "f32[2]"))) ==
        std::vector<float>{1, 0});
}

TEST_CASE("integer to integer truncates or extends two's complement bits") {
  CHECK(elements<int8_t>(evaluate(convert("u32[2]", "{300, 128}", "s8[2]"))) ==
        std::vector<int8_t>{44, -128});
  CHECK(elements<uint32_t>(evaluate(convert("s8[2]", "{-1, 5}", "u32[2]"))) ==
        std::vector<uint32_t>{4294967295u, 5});
  CHECK(elements<int64_t>(evaluate(convert("u32[1]", "{4294967295}", "s64[1]"))) ==
        std::vector<int64_t>{4294967295});
}

TEST_CASE("rounding into f32, bf16 and f16 is to nearest even") {
  // 2^24 + 1 and 2^24 + 3 sit halfway between floats two apart.
  CHECK(elements<float>(evaluate(convert("s32[2]", "{16777217, 16777219}", "f32[2]"))) ==
        std::vector<float>{16777216.0f, 16777220.0f});
  // bf16 keeps 8 significant bits: 1 + 2^-8 ties down to 1, 1 + 3 * 2^-8 ties up.
  CHECK(halfElements<hlo::BFloat16>(
            evaluate(convert("f32[3]", "{1.00390625, 1.01171875, 3.0e38}", "bf16[3]"))) ==
        std::vector<float>{1.0f, 1.015625f, 3.00405527e38f});
  CHECK(halfElements<hlo::Float16>(
            evaluate(convert("f32[5]", "{2049, 2051, 65519, 65520, 5.96046448e-08}", "f16[5]"))) ==
        std::vector<float>{2048.0f, 2052.0f, 65504.0f, std::numeric_limits<float>::infinity(),
                           5.96046448e-08f});
  // s32 -> bf16 goes through f32: 2^24 + 1 -> 2^24 -> exactly 2^24 in bf16.
  CHECK(halfElements<hlo::BFloat16>(evaluate(convert("s32[2]", "{16777217, 257}", "bf16[2]"))) ==
        std::vector<float>{16777216.0f, 256.0f});
  auto nan = halfElements<hlo::BFloat16>(evaluate(convert("f32[1]", "{nan}", "bf16[1]")));
  CHECK(std::isnan(nan[0]));
  CHECK(elements<double>(evaluate(convert("bf16[1]", "{0.1}", "f64[1]"))) ==
        std::vector<double>{0.10009765625});
}

TEST_CASE("convert between real and complex") {
  auto c = elements<std::complex<double>>(evaluate(convert("s32[2]", "{3, -1}", "c128[2]")));
  CHECK(c == std::vector<std::complex<double>>{{3, 0}, {-1, 0}});
  auto narrowed =
      elements<std::complex<float>>(evaluate(convert("c128[1]", "{(1.5, -2)}", "c64[1]")));
  CHECK(narrowed == std::vector<std::complex<float>>{{1.5f, -2.0f}});
  std::string error = evaluationError(convert("c64[1]", "{(1, 2)}", "f32[1]"), {}, {}, false);
  CHECK(error.find("complex") != std::string::npos);
}

TEST_CASE("bitcast-convert between equal widths") {
  CHECK(elements<int32_t>(evaluate(convert("f32[2]", "{1, -2}", "s32[2]", "bitcast-convert"))) ==
        std::vector<int32_t>{0x3f800000, int32_t(0xc0000000u)});
  CHECK(std::isnan(elements<float>(
      evaluate(convert("u32[1]", "{2143289344}", "f32[1]", "bitcast-convert")))[0]));
  auto bf16 = elements<uint16_t>(evaluate(convert("bf16[1]", "{1}", "u16[1]", "bitcast-convert")));
  CHECK(bf16 == std::vector<uint16_t>{0x3f80});
}

TEST_CASE("bitcast-convert across widths adds or removes a minor dimension, little-endian") {
  // 1.0f is 0x3f800000: bytes 00 00 80 3f from least significant up.
  CHECK(elements<uint8_t>(evaluate(convert("f32[2]", "{1, 0}", "u8[2,4]", "bitcast-convert"))) ==
        std::vector<uint8_t>{0, 0, 128, 63, 0, 0, 0, 0});
  CHECK(
      elements<uint32_t>(evaluate(convert("u16[1,2]", "{{1, 2}}", "u32[1]", "bitcast-convert"))) ==
      std::vector<uint32_t>{0x00020001});
  CHECK(elements<int8_t>(evaluate(convert("s8[2]", "{33, -1}", "s4[2,2]", "bitcast-convert"))) ==
        std::vector<int8_t>{1, 2, -1, -1});
  CHECK(elements<int8_t>(evaluate(convert("s4[1,2]", "{{-1, 0}}", "s8[1]", "bitcast-convert"))) ==
        std::vector<int8_t>{15});
  std::string error =
      evaluationError(convert("u8[3]", "{1, 2, 3}", "u16[1]", "bitcast-convert"), {}, {}, false);
  CHECK(error.find("cannot bitcast-convert") != std::string::npos);
}

TEST_CASE("reduce-precision to bf16-like and f16-like formats") {
  auto bf16Like = elements<float>(
      evaluate(convert("f32[5]", "{1.00390625, 1.01171875, nan, inf, 3.4e38}", "f32[5]",
                       "reduce-precision", ", exponent_bits=8, mantissa_bits=7")));
  CHECK(bf16Like[0] == 1.0f);
  CHECK(bf16Like[1] == 1.015625f);
  CHECK(std::isnan(bf16Like[2]));
  CHECK(std::isinf(bf16Like[3]));
  // 3.4e38 rounds past the largest bf16 (3.39e38) into infinity.
  CHECK(std::isinf(bf16Like[4]));
  auto f16Like = elements<float>(
      evaluate(convert("f32[6]", "{65504, 65520, 1e-8, 3.0517578125e-05, -70000, 6.103515625e-05}",
                       "f32[6]", "reduce-precision", ", exponent_bits=5, mantissa_bits=10")));
  // 65520 rounds up to 2^16, beyond f16's range; 2^-15 and 1e-8 are below the
  // smallest normal 2^-14 and flush to zero.
  CHECK(f16Like == std::vector<float>{65504.0f, std::numeric_limits<float>::infinity(), 0.0f, 0.0f,
                                      -std::numeric_limits<float>::infinity(), 6.103515625e-05f});
  auto noMantissa =
      elements<float>(evaluate(convert("f32[3]", "{nan, 1.5, 3}", "f32[3]", "reduce-precision",
                                       ", exponent_bits=8, mantissa_bits=0")));
  CHECK(noMantissa[0] == std::numeric_limits<float>::infinity());
  // With no mantissa bits the exponent's lowest bit decides ties: 1.5 (between
  // 2^0 and 2^1) goes to 2^1, 3 (between 2^1 and 2^2) also to 2^1.
  CHECK(noMantissa[1] == 2.0f);
  CHECK(noMantissa[2] == 2.0f);
}

TEST_CASE(
    "stochastic-convert rounds the magnitude up when the random bits are below the fraction") {
  const char *text = R"(HloModule m
ENTRY e {
  x = f32[7] constant({2.25, 2.25, -2.25, 2, 1e10, nan, -1e10})
  r = u32[7] constant({1073741823, 1073741824, 0, 0, 0, 0, 4294967295})
  ROOT s = s32[7] stochastic-convert(x, r)
})";
  // The fraction 0.25 scaled to 32 bits is 2^30 = 1073741824.
  CHECK(elements<int32_t>(evaluate(text)) ==
        std::vector<int32_t>{3, 2, -3, 2, 2147483647, 0, -2147483647 - 1});
}

TEST_CASE("iota over any dimension and element type") {
  const char *text = R"(HloModule m
ENTRY e {
  a = s32[2,3] iota(), iota_dimension=1
  b = s32[2,3] iota(), iota_dimension=0
  c = bf16[3] iota(), iota_dimension=0
  ROOT t = (s32[2,3], s32[2,3], bf16[3]) tuple(a, b, c)
})";
  auto result = evaluate(text);
  REQUIRE(result.tupleSize() == 3);
  CHECK(elements<int32_t>(result.element(0)) == std::vector<int32_t>{0, 1, 2, 0, 1, 2});
  CHECK(elements<int32_t>(result.element(1)) == std::vector<int32_t>{0, 0, 0, 1, 1, 1});
  CHECK(halfElements<hlo::BFloat16>(result.element(2)) == std::vector<float>{0, 1, 2});
}

TEST_CASE("convert into 4-bit integers wraps integers and saturates floats") {
  CHECK(elements<int8_t>(evaluate(convert("s32[3]", "{9, -9, 16}", "s4[3]"))) ==
        std::vector<int8_t>{-7, 7, 0});
  CHECK(elements<int8_t>(evaluate(convert("f32[4]", "{100, -100, 7.9, -8.5}", "s4[4]"))) ==
        std::vector<int8_t>{7, -8, 7, -8});
  CHECK(elements<uint8_t>(evaluate(convert("f32[3]", "{100, -3, 15.5}", "u4[3]"))) ==
        std::vector<uint8_t>{15, 0, 15});
  CHECK(elements<int32_t>(evaluate(convert("s4[2]", "{-8, 7}", "s32[2]"))) ==
        std::vector<int32_t>{-8, 7});
}
