//===- StableHloTest.cpp - The StableHLO front end ------------------------===//

#include "doctest/doctest.h"

#include "hlo/Diagnostics.h"
#include "hlo/Printer.h"
#include "hlo/Verifier.h"
#include "stablehlo/MlirParser.h"
#include "stablehlo/StableHlo.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace mote;

namespace {

struct Converted {
  std::shared_ptr<llvm::SourceMgr> sources = std::make_shared<llvm::SourceMgr>();
  llvm::Expected<stablehlo::ConvertedModule> result =
      llvm::createStringError(llvm::inconvertibleErrorCode(), "not converted");
};

std::unique_ptr<Converted> convert(llvm::StringRef text,
                                   stablehlo::ConversionOptions options = {}) {
  auto converted = std::make_unique<Converted>();
  unsigned buffer = converted->sources->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "test.mlir"), llvm::SMLoc());
  llvm::consumeError(converted->result.takeError());
  converted->result = stablehlo::convertStableHlo(converted->sources, buffer, options);
  return converted;
}

std::string errorOf(Converted &converted) {
  REQUIRE(!converted.result);
  return hlo::errorToString(converted.result.takeError(), converted.sources.get());
}

} // namespace

TEST_CASE("MLIR text is told from HLO text by its first word") {
  CHECK(stablehlo::looksLikeMlir("// RUN: x\nmodule @m {}"));
  CHECK(stablehlo::looksLikeMlir("  func.func @main() {}"));
  CHECK(stablehlo::looksLikeMlir("\"builtin.module\"() ({}) : () -> ()"));
  CHECK(stablehlo::looksLikeMlir("#loc = loc(unknown)\nmodule {}"));
  CHECK_FALSE(stablehlo::looksLikeMlir("HloModule m\nENTRY %e {}"));
  CHECK_FALSE(stablehlo::looksLikeMlir("ENTRY %e () -> f32[] {}"));
}

TEST_CASE("split-input-file pieces keep their text") {
  std::vector<llvm::StringRef> pieces =
      stablehlo::splitInputFile("a\n// -----\nb\nc\n  // -----  \nd");
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[0] == "a\n");
  CHECK(pieces[1] == "b\nc\n");
  CHECK(pieces[2] == "d");
}

TEST_CASE("pretty and generic forms parse into the same operation") {
  auto pretty = stablehlo::parseMlir(
      "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.add %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}");
  auto generic = stablehlo::parseMlir(
      "\"func.func\"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = \"f\"}> ({\n"
      "^bb0(%a: tensor<2xf32>):\n"
      "  %0 = \"stablehlo.add\"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
      "  \"func.return\"(%0) : (tensor<2xf32>) -> ()\n}) : () -> ()");
  REQUIRE(pretty);
  REQUIRE(generic);
  for (auto *syntax : {&*pretty, &*generic}) {
    const stablehlo::Operation &function = syntax->operations.front();
    CHECK(function.name == "func.func");
    const stablehlo::Operation &add = function.regions.front().blocks.front().operations.front();
    CHECK(add.name == "stablehlo.add");
    CHECK(add.operands.size() == 2);
    REQUIRE(add.resultTypes.size() == 1);
    CHECK(add.resultTypes.front().dims == llvm::SmallVector<int64_t, 4>{2});
    CHECK(add.resultTypes.front().element == hlo::PrimitiveType::F32);
  }
}

TEST_CASE("quantized types keep their scale, zero point and storage range") {
  auto syntax = stablehlo::parseMlir(
      "!q = !quant.uniform<i8<-127:127>:f32:1, {0.5:1, 0.25:-2}>\n"
      "func.func @f(%a: tensor<3x2x!q>) -> tensor<3x2x!q> {\n  return %a : tensor<3x2x!q>\n}");
  REQUIRE(syntax);
  const stablehlo::Type &type =
      syntax->operations.front().attribute("function_type")->type->elements.front();
  REQUIRE(type.quantized);
  CHECK(type.quantized->storageMin == -127);
  CHECK(type.quantized->axis == 1);
  CHECK(type.quantized->scales == std::vector<double>{0.5, 0.25});
  CHECK(type.quantized->zeroPoints == std::vector<int64_t>{1, -2});
}

TEST_CASE("dense literals: hex, NaN bits, splats and mismatched nesting") {
  auto converted = convert("func.func @main() -> (tensor<2xf32>, tensor<2x2xi32>) {\n"
                           "  %a = stablehlo.constant dense<[0x7FC00000, 1.5]> : tensor<2xf32>\n"
                           "  %b = stablehlo.constant dense<\"0x05000000\"> : tensor<2x2xi32>\n"
                           "  return %a, %b : tensor<2xf32>, tensor<2x2xi32>\n}");
  REQUIRE(converted->result);
  std::string printed = hlo::printModule(*converted->result->module);
  CHECK(printed.find("f32[2] constant({nan, 1.5})") != std::string::npos);
  CHECK(printed.find("s32[2,2] constant({{5, 5}, {5, 5}})") != std::string::npos);

  auto bad = convert("func.func @main() -> tensor<2x2xi32> {\n"
                     "  %a = stablehlo.constant dense<[[1, 2], [3]]> : tensor<2x2xi32>\n"
                     "  return %a : tensor<2x2xi32>\n}");
  CHECK(errorOf(*bad).find("test.mlir:2:") == 0);
}

TEST_CASE("regions that read outside values carry them") {
  auto converted = convert("func.func @main(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {\n"
                           "  %r = \"stablehlo.if\"(%p) ({\n"
                           "    %n = stablehlo.negate %x : tensor<3xf32>\n"
                           "    stablehlo.return %n : tensor<3xf32>\n"
                           "  }, {\n"
                           "    stablehlo.return %x : tensor<3xf32>\n"
                           "  }) : (tensor<i1>) -> tensor<3xf32>\n"
                           "  return %r : tensor<3xf32>\n}");
  REQUIRE(converted->result);
  hlo::Module &module = *converted->result->module;
  llvm::Error verified = hlo::verifyModule(module);
  CHECK_FALSE(static_cast<bool>(verified));
  llvm::consumeError(std::move(verified));
  const hlo::Instruction *conditional = module.entry()->root();
  REQUIRE(conditional->opcode() == hlo::Opcode::Conditional);
  // Both branches take the tuple holding %x.
  CHECK(conditional->operand(1)->shape().toString(false) == "(f32[3])");
  CHECK(conditional->operand(2)->shape().toString(false) == "(f32[3])");
}

TEST_CASE("unsupported input is an UnsupportedError, bad input a located error") {
  auto dynamic = convert("func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
                         "  %0 = stablehlo.reshape %x : (tensor<?xf32>) -> tensor<?xf32>\n"
                         "  return %0 : tensor<?xf32>\n}");
  REQUIRE(!dynamic->result);
  llvm::Error error = dynamic->result.takeError();
  CHECK(error.isA<stablehlo::UnsupportedError>());
  llvm::consumeError(std::move(error));

  auto undefined = convert("func.func @main() -> tensor<f32> {\n  return %nope : tensor<f32>\n}");
  CHECK(errorOf(*undefined) == "test.mlir:2:10: use of undefined value '%nope'");
}

TEST_CASE("lifted inputs become entry parameters and a module of their own") {
  stablehlo::ConversionOptions options;
  options.liftInputs = true;
  auto converted = convert("func.func @main() -> tensor<2xf32> {\n"
                           "  %0:2 = call @inputs() : () -> (tensor<2xf32>, tensor<2xf32>)\n"
                           "  %1 = stablehlo.add %0#0, %0#1 : tensor<2xf32>\n"
                           "  return %1 : tensor<2xf32>\n}\n"
                           "func.func private @inputs() -> (tensor<2xf32>, tensor<2xf32>) {\n"
                           "  %c = stablehlo.constant dense<1.0> : tensor<2xf32>\n"
                           "  return %c, %c : tensor<2xf32>, tensor<2xf32>\n}",
                           options);
  REQUIRE(converted->result);
  CHECK(converted->result->module->entry()->parameterCount() == 2);
  REQUIRE(converted->result->inputs);
  CHECK(converted->result->inputs->entry()->root()->shape().toString(false) == "(f32[2], f32[2])");
}
