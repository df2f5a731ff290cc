//===- ParserErrorTest.cpp - Located errors for bad HLO text --------------===//
//
// Each bad input must give one error at the exact token, saying what was
// expected. Line and column were counted by hand (1-based).
//
//===----------------------------------------------------------------------===//

#include "ParserTestUtil.h"

#include <string>

using namespace mote::hlo;
using namespace mote::hlo::testing;

TEST_CASE("errors: truncated input") {
  CHECK(
      parseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[2] negate(a") ==
      "test.hlo:4:27: expected ',' or ')' after an operand");
  CHECK(parseError("HloModule m\nENTRY e {\n  a = f32[2") ==
        "test.hlo:3:12: expected ']' after dimensions");
  CHECK(parseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n") ==
        "test.hlo:4:1: expected '}' at the end of computation 'e'");
  CHECK(parseError("HloModule m, is_scheduled=true\n") == "test.hlo:2:1: expected a computation");
  CHECK(parseError("") == "test.hlo:1:1: expected a computation");
}

TEST_CASE("errors: garbage and unbalanced brackets") {
  CHECK(parseError("HloModule m\n@@@ nonsense\n") == "test.hlo:2:1: expected a computation name");
  CHECK(parseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0), metadata={op_name=\"x\" {\n"
                   "  ROOT b = f32[2] negate(a)\n}\n") ==
        "test.hlo:6:1: expected '}' in the value of 'metadata' before the end of the file");
  CHECK(parseError("HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0), sharding={maximal "
                   "device=0)\n}\n") ==
        "test.hlo:3:58: expected '}' in the value of 'sharding', found ')'");
  CHECK(parseError("HloModule m\nENTRY e {\n  ROOT a = f32[] custom-call(), "
                   "custom_call_target=\"abc\n}\n") == "test.hlo:3:52: unterminated string");
  CHECK(parseError("HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0) /* never closed\n}\n") ==
        "test.hlo:3:31: unterminated '/*' comment");
  CHECK(parseError("HloModule m\nENTRY e {\n  a f32[] parameter(0)\n}\n") ==
        "test.hlo:3:5: expected '=' after instruction name 'a'");
}

TEST_CASE("errors: names, opcodes and computations") {
  CHECK(parseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[2] "
                   "frobnicate(a)\n}\n") == "test.hlo:4:19: unknown opcode 'frobnicate'");
  CHECK(parseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[2] add(a, "
                   "%x)\n}\n") == "test.hlo:4:26: use of undefined instruction '%x'");
  CHECK(parseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  %a = f32[2] "
                   "negate(a)\n}\n") == "test.hlo:4:3: instruction '%a' is defined twice");
  CHECK(parseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  z = f32[] constant(0)\n"
                   "  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=%nothere\n}\n") ==
        "test.hlo:5:57: use of undefined computation 'nothere'");
  CHECK(parseError("HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0)\n  ROOT b = f32[] "
                   "negate(a)\n}\n") ==
        "test.hlo:4:3: computation 'e' has more than one ROOT instruction");
  CHECK(parseError("HloModule m\nc {\n  ROOT a = f32[] parameter(0)\n}\n%c {\n  ROOT b = f32[] "
                   "parameter(0)\n}\n") == "test.hlo:5:1: computation 'c' is defined twice");
  CHECK(parseError("HloModule m\nENTRY e {\n}\n") ==
        "test.hlo:2:7: computation 'e' has no instructions");
  CHECK(parseError("HloModule m\nENTRY a {\n  ROOT x = f32[] parameter(0)\n}\nENTRY b {\n  ROOT y "
                   "= f32[] parameter(0)\n}\n") ==
        "test.hlo:5:1: second ENTRY computation 'b' (the first is 'a')");
}

TEST_CASE("errors: shapes and attributes") {
  CHECK(parseError("HloModule m\nENTRY e {\n  ROOT a = f32[2,3]{0,0} parameter(0)\n}\n") ==
        "test.hlo:3:20: layout is not a permutation of the dimensions 0..1");
  CHECK(parseError("HloModule m\nENTRY e {\n  ROOT x = f5e2m1[4] parameter(0)\n}\n") ==
        "test.hlo:3:12: unknown element type 'f5e2m1'");
  CHECK(parseError("HloModule m\nENTRY e {\n  ROOT x = f32[<=?] parameter(0)\n}\n") ==
        "test.hlo:3:18: expected an integer for a dimension size");
  CHECK(parseError("HloModule m\nENTRY e {\n  ROOT a = f32[-2] parameter(0)\n}\n") ==
        "test.hlo:3:16: dimension size must not be negative");
  CHECK(parseError("HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT t = f32[4] "
                   "transpose(x), dimensions={0}, dimensions={0}\n}\n") ==
        "test.hlo:4:49: attribute 'dimensions' is given twice");
  CHECK(parseError("HloModule m\nENTRY e {\n  x = f32[4,4] parameter(0)\n  z = f32[] constant(0)\n"
                   "  ROOT r = f32[2,2] reduce-window(x, z), window={size=2x2 stride=2}, "
                   "to_apply=%x\n}\n") ==
        "test.hlo:5:50: window field 'stride' has 1 dimensions but 'size' has 2");
  std::string labels = parseError(
      "HloModule m\nENTRY e {\n  x = f32[1,4,4,2] parameter(0)\n  k = f32[3,3,2,2] parameter(1)\n"
      "  ROOT c = f32[1,2,2,2] convolution(x, k), dim_labels=b01f_01io->bf01x\n}\n");
  CHECK(labels.rfind("test.hlo:5:55: malformed dim_labels 'b01f_01io->bf01x'", 0) == 0);
  CHECK(parseError("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(-1)\n}\n") ==
        "test.hlo:3:18: parameter number -1 is out of range");
  CHECK(parseError("HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  ROOT y = f32[2] "
                   "negate(f32[3] x)\n}\n") ==
        "test.hlo:4:26: operand '%x' is declared as f32[3] but has shape f32[2]");
  CHECK(parseError("HloModule m\nENTRY e {\n  x = s32[2] parameter(0)\n  ROOT c = pred[2] "
                   "compare(x, x), direction=XX\n}\n") ==
        "test.hlo:4:45: expected one of EQ, NE, GE, GT, LE, LT for 'direction'");
}

TEST_CASE("errors: deep nesting is refused without exhausting the stack") {
  const int depth = 100000;
  std::string tuple = "HloModule m\nENTRY e {\n  ROOT p = " + std::string(depth, '(') + "f32[]" +
                      std::string(depth, ')') + " parameter(0)\n}\n";
  CHECK(parseError(tuple).find("tuple shapes are nested too deeply") != std::string::npos);

  std::string braces =
      "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0), metadata=" + std::string(depth, '{') +
      std::string(depth, '}') + "\n}\n";
  CHECK(parseError(braces).find("nested too deeply") != std::string::npos);

  std::string operands = "HloModule m\nENTRY e {\n  ROOT p = f32[] negate(";
  for (int i = 0; i < depth; ++i)
    operands += "f32[] negate(";
  CHECK(parseError(operands).find("nested too deeply") != std::string::npos);

  std::string literal = "HloModule m\nENTRY e {\n  ROOT c = f32[" + std::string(300, '1') + "]";
  CHECK(parseError(literal).find("test.hlo:3:") == 0);
}
