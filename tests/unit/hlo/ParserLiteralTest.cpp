//===- ParserLiteralTest.cpp - Constants in HLO text ----------------------===//
//
// Expected bit patterns are worked out by hand from the formats (IEEE 754
// binary16/32/64, bfloat16, and the f8 encodings documented in Float8.h).
//
//===----------------------------------------------------------------------===//

#include "ParserTestUtil.h"
#include "hlo/Printer.h"

#include "hlo/Float8.h"

#include <cmath>
#include <cstring>

using namespace mote::hlo;
using namespace mote::hlo::testing;

namespace {
/// The literal of constant `c` in a module whose entry is just `c = <text>`.
Literal constant(const std::string &text) {
  auto module = parseOk("HloModule k\nENTRY e {\n  ROOT c = " + text + "\n}\n");
  if (!module || !module->entry()->root()->attributes().literal) {
    FAIL_CHECK("no literal in: " << text);
    return Literal();
  }
  return *module->entry()->root()->attributes().literal;
}

uint64_t doubleBits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
} // namespace

TEST_CASE("literals: integer, pred and float arrays in row-major order") {
  Literal matrix = constant("s32[2,3]{0,1} constant({{1, -2, 3}, {4, 5, -2147483648}})");
  REQUIRE(matrix.elementCount() == 6);
  CHECK(matrix.get<int32_t>(1) == -2);
  CHECK(matrix.get<int32_t>(3) == 4);
  CHECK(matrix.get<int32_t>(5) == INT32_MIN);
  CHECK(matrix.shape().layout()->minorToMajor == llvm::SmallVector<int64_t, 4>{0, 1});

  Literal big = constant("u64[2] constant({18446744073709551615, 9223372036854775808})");
  CHECK(big.get<uint64_t>(0) == UINT64_MAX);
  CHECK(big.get<uint64_t>(1) == (uint64_t(1) << 63));

  Literal nibbles = constant("s4[3] constant({-8, 7, -1})");
  CHECK(nibbles.get<int8_t>(0) == -8);
  CHECK(nibbles.get<int8_t>(2) == -1);

  Literal flags = constant("pred[3] constant({true, false, true})");
  CHECK(flags.get<bool>(0));
  CHECK_FALSE(flags.get<bool>(1));

  Literal floats = constant("f32[4] constant({1.5, -0.25, 3e2, .5})");
  CHECK(floats.get<float>(0) == 1.5f);
  CHECK(floats.get<float>(1) == -0.25f);
  CHECK(floats.get<float>(2) == 300.0f);
  CHECK(floats.get<float>(3) == 0.5f);

  Literal empty = constant("f32[2,0] constant({{}, {}})");
  CHECK(empty.elementCount() == 0);

  Literal scalar = constant("f64[] constant(0.1)");
  CHECK(scalar.get<double>(0) == 0.1);
}

TEST_CASE("literals: inf, nan, signs and NaN payloads") {
  Literal f = constant("f32[5] constant({inf, -inf, nan, -nan, nan(0x1)})");
  CHECK(floatBits(f.get<float>(0)) == 0x7f800000u);
  CHECK(floatBits(f.get<float>(1)) == 0xff800000u);
  CHECK(floatBits(f.get<float>(2)) == 0x7fc00000u); // quiet bit only
  CHECK(floatBits(f.get<float>(3)) == 0xffc00000u);
  CHECK(floatBits(f.get<float>(4)) == 0x7f800001u);

  Literal d = constant("f64[2] constant({-nan(0x8000000000000), nan(0x2a)})");
  CHECK(doubleBits(d.get<double>(0)) == 0xfff8000000000000ull);
  CHECK(doubleBits(d.get<double>(1)) == 0x7ff000000000002aull);

  Literal h = constant("bf16[2] constant({nan, -nan(0x1)})");
  CHECK(h.get<BFloat16>(0).bits == 0x7fc0);
  CHECK(h.get<BFloat16>(1).bits == 0xff81);
}

TEST_CASE("literals: f16 and bf16 round to nearest even") {
  // bf16 keeps 8 significant bits: 1 + 1/256 is halfway between 1 (0x3f80)
  // and 1 + 1/128 (0x3f81) and goes to the even one; 1 + 3/256 is halfway
  // between 0x3f81 and 0x3f82 and goes to 0x3f82.
  Literal b = constant("bf16[3] constant({1.00390625, 1.01171875, -2})");
  CHECK(b.get<BFloat16>(0).bits == 0x3f80);
  CHECK(b.get<BFloat16>(1).bits == 0x3f82);
  CHECK(b.get<BFloat16>(2).bits == 0xc000);
  // f16: 65504 is the largest finite value; 65520 is halfway to 65536 and
  // rounds to even, which is infinity. 2^-24 is the smallest subnormal.
  Literal h = constant("f16[3] constant({65504, 65520, 5.9604644775390625e-08})");
  CHECK(h.get<Float16>(0).bits == 0x7bff);
  CHECK(h.get<Float16>(1).bits == 0x7c00);
  CHECK(h.get<Float16>(2).bits == 0x0001);
}

TEST_CASE("literals: f8 values are stored as their encoding") {
  // 1.0 is a zero mantissa with the biased exponent equal to the bias.
  CHECK(constant("f8e4m3[] constant(1)").bytes()[0] == 0x38);        // 0 0111 000
  CHECK(constant("f8e5m2[] constant(1)").bytes()[0] == 0x3c);        // 0 01111 00
  CHECK(constant("f8e3m4[] constant(1)").bytes()[0] == 0x30);        // 0 011 0000
  CHECK(constant("f8e4m3fnuz[] constant(1)").bytes()[0] == 0x40);    // bias 8
  CHECK(constant("f8e5m2fnuz[] constant(1)").bytes()[0] == 0x40);    // bias 16
  CHECK(constant("f8e4m3b11fnuz[] constant(1)").bytes()[0] == 0x58); // bias 11
  CHECK(constant("f8e8m0fnu[] constant(8)").bytes()[0] == 130);      // 127 + 3

  // e4m3fn: 448 is S.1111.110; 464 is halfway to the NaN pattern and stays
  // on the even 448; 480 overflows to NaN (no infinity).
  Literal fn = constant("f8e4m3fn[5] constant({448, 464, 480, -0.5, nan})");
  CHECK(fn.bytes()[0] == 0x7e);
  CHECK(fn.bytes()[1] == 0x7e);
  CHECK(fn.bytes()[2] == 0x7f);
  CHECK(fn.bytes()[3] == 0xb0); // 1 0110 000
  CHECK(fn.bytes()[4] == 0x7f);
  // e5m2 has infinities: 57344 is the largest finite, 61440 ties to even = inf.
  Literal e5 = constant("f8e5m2[3] constant({57344, 61440, -inf})");
  CHECK(e5.bytes()[0] == 0x7b);
  CHECK(e5.bytes()[1] == 0x7c);
  CHECK(e5.bytes()[2] == 0xfc);
  // fnuz types have no negative zero and a single NaN, 0x80.
  Literal uz = constant("f8e4m3fnuz[2] constant({-0, nan})");
  CHECK(uz.bytes()[0] == 0x00);
  CHECK(uz.bytes()[1] == 0x80);

  Float8Format e4m3 = float8Format(PrimitiveType::F8E4M3);
  CHECK(float8ToDouble(e4m3, 0x01) == std::ldexp(1.0, -9)); // smallest subnormal
  CHECK(std::isinf(float8ToDouble(e4m3, 0x78)));
}

TEST_CASE("literals: complex, tuples and elided values") {
  Literal z = constant("c64[2] constant({(1, -2), (0.5, inf)})");
  CHECK(z.get<std::complex<float>>(0) == std::complex<float>(1, -2));
  CHECK(std::isinf(z.get<std::complex<float>>(1).imag()));
  Literal w = constant("c128[] constant((nan, 3))");
  CHECK(std::isnan(w.get<std::complex<double>>(0).real()));

  Literal t = constant("(f32[], (s32[2], pred[]), ()) constant((1.5, ({3, 4}, true), ()))");
  REQUIRE(t.tupleSize() == 3);
  CHECK(t.element(0).get<float>(0) == 1.5f);
  CHECK(t.element(1).element(0).get<int32_t>(1) == 4);
  CHECK(t.element(1).element(1).get<bool>(0));
  CHECK(t.element(2).tupleSize() == 0);

  auto module = parseOk("HloModule k\nENTRY e {\n  ROOT c = s32[15]{0} constant({...})\n}\n");
  REQUIRE(module);
  const InstructionAttributes &elided = module->entry()->root()->attributes();
  CHECK(elided.literalElided);
  CHECK_FALSE(elided.literal.has_value());
}

TEST_CASE("literals: values out of range or malformed are located errors") {
  auto error = [](const std::string &text) {
    return parseError("HloModule k\nENTRY e {\n  ROOT c = " + text + "\n}\n");
  };
  CHECK(error("s8[2] constant({1, 128})") == "test.hlo:3:31: value 128 is out of range for s8");
  CHECK(error("u8[] constant(-1)") == "test.hlo:3:26: value -1 is out of range for u8");
  CHECK(error("s4[] constant(8)") == "test.hlo:3:26: value 8 is out of range for s4");
  CHECK(error("s32[] constant(1.5)") ==
        "test.hlo:3:27: expected an integer for an element of type s32");
  CHECK(error("f32[3] constant({1, 2})") ==
        "test.hlo:3:33: dimension 0 of the literal has 2 elements but the shape f32[3] needs 3");
  CHECK(error("f32[1] constant({1, 2})") ==
        "test.hlo:3:30: dimension 0 of the literal has more than 1 elements (shape f32[1])");
  CHECK(error("f32[] constant(nan(0x800000))") ==
        "test.hlo:3:27: NaN payload does not fit in 23 mantissa bits");
  CHECK(error("pred[] constant(yes)") ==
        "test.hlo:3:28: expected 'true' or 'false' for a pred element");
  CHECK(error("(f32[], f32[]) constant((1))") ==
        "test.hlo:3:38: expected ',' between tuple literal elements (the shape has 2)");
  CHECK(error("f32[100000] constant({1})") ==
        "test.hlo:3:33: the literal's shape f32[100000] has more elements than the rest of the "
        "text");
  CHECK(error("constant(1)") == "test.hlo:3:12: a constant needs an explicit shape");
}

TEST_CASE("f4e2m1fn constants round to nearest even and saturate; unbounded dims parse") {
  auto module = mote::hlo::parseModuleText(R"(HloModule m
ENTRY e {
  c = f4e2m1fn[4] constant({0.5, 6, 7, -1.25})
  p = f32[?,784] parameter(0)
  ROOT t = (f4e2m1fn[4], f32[?,784]) tuple(c, p)
})");
  REQUIRE(module);
  std::string printed = mote::hlo::printModule(**module);
  CHECK(printed.find("f4e2m1fn[4] constant({0.5, 6, 6, -1})") != std::string::npos);
  CHECK(printed.find("f32[?,784] parameter(0)") != std::string::npos);
  const mote::hlo::Shape &unbounded = (*module)->entry()->parameter(0)->shape();
  CHECK(unbounded.hasUnboundedDims());
  CHECK(unbounded.elementCount() == 0);
}
