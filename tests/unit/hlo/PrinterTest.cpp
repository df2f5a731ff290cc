//===- PrinterTest.cpp - HLO text printing and the print/parse round trip -===//
//
// Expected texts are written by hand in the style of current XLA dumps.
//
//===----------------------------------------------------------------------===//

#include "ParserTestUtil.h"
#include "SourceTree.h"

#include "hlo/Printer.h"

#include "llvm/Support/MemoryBuffer.h"

#include <filesystem>

using namespace mote::hlo;
using namespace mote::hlo::testing;

namespace {
std::string printed(const std::string &text) {
  auto module = parseOk(text);
  return module ? printModule(*module) : "";
}

/// print(parse(print(parse(text)))) == print(parse(text)).
void checkRoundTrip(const std::string &text, const std::string &what) {
  INFO(what);
  std::string first = printed(text);
  REQUIRE_FALSE(first.empty());
  auto again = parseModuleText(first, "printed.hlo");
  if (!again) {
    FAIL_CHECK("printed text does not parse: " << llvm::toString(again.takeError()) << "\n"
                                               << first);
    return;
  }
  CHECK(printModule(**again) == first);
}
} // namespace

TEST_CASE("printer: a module built in code") {
  Module module("built");
  auto add = std::make_unique<Computation>("add");
  auto param = [](Computation &computation, const char *name, int64_t number, Shape shape) {
    auto instruction = std::make_unique<Instruction>(Opcode::Parameter, name, std::move(shape));
    instruction->mutableAttributes().parameterNumber = number;
    return computation.addInstruction(std::move(instruction));
  };
  Instruction *a = param(*add, "a", 0, Shape::scalar(PrimitiveType::F32));
  Instruction *b = param(*add, "b", 1, Shape::scalar(PrimitiveType::F32));
  auto sum = std::make_unique<Instruction>(Opcode::Add, "sum", Shape::scalar(PrimitiveType::F32));
  sum->addOperand(a);
  sum->addOperand(b);
  add->setRoot(add->addInstruction(std::move(sum)));
  Computation *adder = module.addComputation(std::move(add));

  auto entry = std::make_unique<Computation>("main");
  Shape matrix = Shape::array(PrimitiveType::F32, {2, 3});
  matrix.setLayout(Layout{{0, 1}, ""});
  Instruction *p0 = param(*entry, "p0", 0, matrix);
  auto init =
      std::make_unique<Instruction>(Opcode::Constant, "init", Shape::scalar(PrimitiveType::F32));
  init->mutableAttributes().literal = Literal::scalar(PrimitiveType::F32, 0.0f);
  Instruction *zero = entry->addInstruction(std::move(init));
  auto reduce =
      std::make_unique<Instruction>(Opcode::Reduce, "r", Shape::array(PrimitiveType::F32, {2}));
  reduce->addOperand(p0);
  reduce->addOperand(zero);
  reduce->mutableAttributes().dimensions = {1};
  reduce->mutableAttributes().hasDimensions = true;
  reduce->addCalledComputation(adder);
  Instruction *root = entry->addInstruction(std::move(reduce));
  entry->setRoot(root);
  module.setEntry(module.addComputation(std::move(entry)));

  CHECK(printModule(module) == R"(HloModule built

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

ENTRY %main (p0: f32[2,3]{0,1}) -> f32[2] {
  %p0 = f32[2,3]{0,1} parameter(0)
  %init = f32[] constant(0)
  ROOT %r = f32[2] reduce(%p0, %init), dimensions={1}, to_apply=%add
}
)");
  CHECK(printInstruction(*root) ==
        "ROOT %r = f32[2] reduce(%p0, %init), dimensions={1}, to_apply=%add");
  CHECK(printInstruction(*p0) == "%p0 = f32[2,3]{0,1} parameter(0)");
}

TEST_CASE("printer: old-style text comes out in the modern style") {
  std::string text = printed(R"(HloModule old:
c (x: f32[]) -> f32[] { x = f32[] parameter(0)  ROOT n = negate(x) }
ENTRY e {
  p = f32[4]{0} parameter(0), sharding={replicated}
  w = f32[2] reduce-window(f32[4]{0} p, f32[] constant(-inf)), window={size=2 stride=2}, to_apply=m
  ROOT k = f32[2] copy(w), metadata={op_name="k"}
}
m { a = f32[] parameter(0) b = f32[] parameter(1) ROOT mx = f32[] maximum(a, b) }
)");
  CHECK(text == R"(HloModule old

%c (x: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  ROOT %n = f32[] negate(%x)
}

ENTRY %e (p: f32[4]{0}) -> f32[2] {
  %p = f32[4]{0} parameter(0), sharding={replicated}
  %constant.1 = f32[] constant(-inf)
  %w = f32[2] reduce-window(%p, %constant.1), window={size=2 stride=2}, to_apply=%m
  ROOT %k = f32[2] copy(%w), metadata={op_name="k"}
}

%m (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %mx = f32[] maximum(%a, %b)
}
)");
}

TEST_CASE("printer: typed attributes in canonical order, defaults left out") {
  std::string text = printed(
      R"(HloModule attrs, entry_computation_layout={(f32[1,4,4,2]{3,2,1,0})->f32[1,2,2,2]{3,2,1,0}}
ENTRY e {
  x = f32[1,4,4,2]{3,2,1,0} parameter(0)
  k = f32[3,3,2,2] parameter(1)
  c = f32[1,2,2,2] convolution(x, k), feature_group_count=1, dim_labels=b01f_01io->b01f, window={stride=2x2 size=3x3 pad=1_1x1_1 rhs_reversal=0x0}
  t = f32[8] parameter(2)
  s = f32[2] slice(t), slice={[1:5:2]}
  s1 = f32[4] slice(t), slice={[0:4:1]}
  z = f32[] constant(0)
  pd = f32[10] pad(s1, z), padding=1_2_1
  ROOT cmp = pred[2] compare(s, s), type=FLOAT, direction=LE
}
)");
  CHECK(
      text ==
      R"(HloModule attrs, entry_computation_layout={(f32[1,4,4,2]{3,2,1,0})->f32[1,2,2,2]{3,2,1,0}}

ENTRY %e (x: f32[1,4,4,2]{3,2,1,0}, k: f32[3,3,2,2], t: f32[8]) -> pred[2] {
  %x = f32[1,4,4,2]{3,2,1,0} parameter(0)
  %k = f32[3,3,2,2] parameter(1)
  %c = f32[1,2,2,2] convolution(%x, %k), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  %t = f32[8] parameter(2)
  %s = f32[2] slice(%t), slice={[1:5:2]}
  %s1 = f32[4] slice(%t), slice={[0:4]}
  %z = f32[] constant(0)
  %pd = f32[10] pad(%s1, %z), padding=1_2_1
  ROOT %cmp = pred[2] compare(%s, %s), direction=LE, type=FLOAT
}
)");
}

TEST_CASE("printer: constants of every kind") {
  std::string text = printed(R"(HloModule k
ENTRY e {
  a = f8e4m3fn[3] constant({448, -0.5, nan})
  b = f8e5m2[2] constant({-inf, 0.0001})
  c = f32[3] constant({nan(0x1), -nan, 0.1})
  d = s32[15]{0} constant({...})
  f = (f32[], (pred[2], c64[])) constant((1, ({true, false}, (1, -2))))
  ROOT g = u4[2,2] constant({{0, 15}, {7, 8}})
}
)");
  CHECK(text.find("%a = f8e4m3fn[3] constant({448, -0.5, nan})") != std::string::npos);
  CHECK(text.find("%b = f8e5m2[2] constant({-inf, 0.0001})") != std::string::npos);
  CHECK(text.find("%c = f32[3] constant({nan(0x1), -nan, 0.1})") != std::string::npos);
  CHECK(text.find("%d = s32[15]{0} constant({...})") != std::string::npos);
  CHECK(text.find("%f = (f32[], (pred[2], c64[])) constant((1, ({true, false}, (1, -2))))") !=
        std::string::npos);
  CHECK(text.find("ROOT %g = u4[2,2] constant({{0, 15}, {7, 8}})") != std::string::npos);
}

TEST_CASE("printer: called computations by opcode") {
  std::string text = printed(R"(HloModule calls
t { x = f32[] parameter(0)
    ROOT n = f32[] negate(x) }
f { x = f32[] parameter(0)
    ROOT c = f32[] copy(x) }
ENTRY e {
  z = f32[] parameter(0)
  flag = pred[] parameter(1)
  k = f32[] conditional(flag, z, z), branch_computations={t, f}
  which = s32[] parameter(2)
  br = f32[] conditional(which, z, z), true_computation=t, false_computation=f
  fu = f32[] fusion(z), calls=t, kind=kLoop
  ROOT cc = f32[] custom-call(z), custom_call_target="x", to_apply=f
}
)");
  // A pred selector with two branches prints as true/false computations.
  CHECK(text.find("conditional(%flag, %z, %z), true_computation=%t, false_computation=%f") !=
        std::string::npos);
  CHECK(text.find("conditional(%which, %z, %z), branch_computations={%t, %f}") !=
        std::string::npos);
  CHECK(text.find("fusion(%z), kind=kLoop, calls=%t") != std::string::npos);
  CHECK(text.find("custom-call(%z), custom_call_target=\"x\", to_apply=%f") != std::string::npos);
}

TEST_CASE("printer: round trip on the parser seed snippets") {
  // The fuzzer's seeds are small hand-written modules covering the grammar;
  // the ones named bad_* must not parse.
  std::filesystem::path seeds = mote::test::sourceTree() / "tests" / "fuzz" / "corpus" / "parser";
  REQUIRE(std::filesystem::is_directory(seeds));
  int checked = 0;
  for (const auto &entry : std::filesystem::directory_iterator(seeds)) {
    auto buffer = llvm::MemoryBuffer::getFile(entry.path().string());
    REQUIRE(buffer);
    std::string text = (*buffer)->getBuffer().str();
    if (entry.path().filename().string().rfind("bad_", 0) == 0) {
      CHECK(parseError(text).find("test.hlo:") == 0);
      continue;
    }
    checkRoundTrip(text, entry.path().filename().string());
    ++checked;
  }
  CHECK(checked >= 10);
}

TEST_CASE("printer: round trip of tricky spellings") {
  checkRoundTrip(
      R"(HloModule tricky, input_output_alias={ {0}: (0, {}, may-alias) }, frontend_attributes={a="b"}
ENTRY e {
  p = (f32[2]{0:T(2)}, token[]) parameter(0), origin={{"x"}}
  a = f32[2]{0:T(2)} get-tuple-element(p), index=0
  b = f32[<=2] negate(a), backend_config={"k": "v\"}"}
  c = f32[] constant(1e-45)
  d = bf16[] constant(3.3895e+38)
  e = f16[] constant(-6.1035e-05)
  w = f64[] constant(2.2250738585072014e-308)
  ROOT t = (f32[<=2], f32[]) tuple(b, c)
}
)",
      "tricky");
}
