//===- InputBindingTest.cpp - Matching .npy values to parameters ----------===//

#include "tools/lib/InputBinding.h"

#include <doctest/doctest.h>

using namespace mote;
using hlo::Literal;
using hlo::PrimitiveType;
using hlo::Shape;

static hlo::Instruction parameter(int64_t number, const char *name, Shape shape) {
  hlo::Instruction instruction(hlo::Opcode::Parameter, name, std::move(shape));
  instruction.mutableAttributes().parameterNumber = number;
  return instruction;
}

static std::string errorText(llvm::Expected<Literal> result) {
  REQUIRE_FALSE(result);
  return llvm::toString(result.takeError());
}

TEST_CASE("binding: exact matches pass and take the parameter's layout") {
  Shape shape = Shape::array(PrimitiveType::S32, {2, 3});
  shape.setLayout(hlo::Layout{{0, 1}, ""});
  hlo::Instruction p = parameter(0, "x", shape);
  Literal value(Shape::array(PrimitiveType::S32, {2, 3}));
  value.set<int32_t>(4, 7);
  auto bound = tools::bindInput(std::move(value), p, "x.npy");
  REQUIRE(bound);
  CHECK(bound->get<int32_t>(4) == 7);
  REQUIRE(bound->shape().layout());
  CHECK(bound->shape().layout()->minorToMajor == llvm::SmallVector<int64_t, 4>{0, 1});
}

TEST_CASE("binding: float32 feeds bf16, rounded to nearest even") {
  hlo::Instruction p = parameter(1, "w", Shape::array(PrimitiveType::BF16, {4}));
  Literal value(Shape::array(PrimitiveType::F32, {4}));
  // 1 + 2^-8 is halfway between bf16 1.0 (0x3f80) and 1.0078125 (0x3f81): even is 0x3f80.
  value.set<float>(0, 1.00390625f);
  // 1 + 3 * 2^-8 is halfway between 0x3f81 and 0x3f82: even is 0x3f82.
  value.set<float>(1, 1.01171875f);
  // Just above the first halfway point rounds up.
  value.set<float>(2, hlo::floatFromBits(0x3f808001));
  value.set<float>(3, -2.0f); // exact: 0xc000
  auto bound = tools::bindInput(std::move(value), p, "w.npy");
  REQUIRE(bound);
  CHECK(bound->shape().toString(false) == "bf16[4]");
  CHECK(bound->get<hlo::BFloat16>(0).bits == 0x3f80);
  CHECK(bound->get<hlo::BFloat16>(1).bits == 0x3f82);
  CHECK(bound->get<hlo::BFloat16>(2).bits == 0x3f81);
  CHECK(bound->get<hlo::BFloat16>(3).bits == 0xc000);
}

TEST_CASE("binding: mismatches name the parameter and its shape") {
  hlo::Instruction p = parameter(2, "Arg_2.3", Shape::array(PrimitiveType::F32, {2, 16}));
  std::string wrongShape =
      errorText(tools::bindInput(Literal(Shape::array(PrimitiveType::F32, {16, 2})), p, "a.npy"));
  CHECK(wrongShape == "input 'a.npy' does not fit parameter 2 (%Arg_2.3, f32[2,16]): the file "
                      "holds f32[16,2]");
  std::string wrongType =
      errorText(tools::bindInput(Literal(Shape::array(PrimitiveType::F64, {2, 16})), p, "a.npy"));
  CHECK(wrongType.find("the file holds f64[2,16]") != std::string::npos);

  hlo::Instruction half = parameter(0, "h", Shape::array(PrimitiveType::F16, {1}));
  CHECK(errorText(tools::bindInput(Literal(Shape::array(PrimitiveType::F32, {1})), half, "h.npy"))
            .find("the file holds f32[1]") != std::string::npos);

  hlo::Instruction tuple = parameter(0, "t", Shape::tuple({Shape::scalar(PrimitiveType::F32)}));
  CHECK(errorText(tools::bindInput(Literal(Shape::scalar(PrimitiveType::F32)), tuple, "t.npy"))
            .find("only array parameters") != std::string::npos);
}
