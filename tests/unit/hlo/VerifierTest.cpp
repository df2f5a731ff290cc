//===- VerifierTest.cpp - Structural and shape checks of whole modules -----===//
//
// Text cases check the message and where it points (line:column); cases the
// parser would already refuse are built in code.
//
//===----------------------------------------------------------------------===//

#include "hlo/Verifier.h"
#include "SourceTree.h"
#include "hlo/Diagnostics.h"
#include "hlo/Loader.h"
#include "hlo/Module.h"
#include "hlo/Parser.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

using namespace mote::hlo;

namespace {

/// "" when `text` parses and verifies, else "<string>:line:col: message" of
/// the verifier's first complaint.
std::string verifyText(const std::string &text) {
  auto module = parseModuleText(text);
  if (!module) {
    std::string message = errorToString(module.takeError(), nullptr);
    FAIL("module does not parse: " << message);
    return "";
  }
  if (llvm::Error error = verifyModule(**module))
    return errorToString(std::move(error), (*module)->sourceManager().get());
  return "";
}

std::string verifyBuilt(const Module &module) {
  if (llvm::Error error = verifyModule(module))
    return errorToString(std::move(error), nullptr);
  return "";
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// Builds small computations in code.
struct Builder {
  Computation *computation;

  Instruction *parameter(int64_t number, Shape shape) {
    auto instruction = std::make_unique<Instruction>(
        Opcode::Parameter, "p" + std::to_string(number), std::move(shape));
    instruction->mutableAttributes().parameterNumber = number;
    return computation->addInstruction(std::move(instruction));
  }
  Instruction *op(Opcode opcode, std::string name, Shape shape,
                  std::initializer_list<Instruction *> operands) {
    auto instruction = std::make_unique<Instruction>(opcode, std::move(name), std::move(shape));
    for (Instruction *operand : operands)
      instruction->addOperand(operand);
    return computation->addInstruction(std::move(instruction));
  }
};

Shape f32(std::initializer_list<int64_t> dims) { return Shape::array(PrimitiveType::F32, dims); }

/// A module whose entry adds two f32[2] parameters.
std::unique_ptr<Module> addModule(Builder &builder) {
  auto module = std::make_unique<Module>("m");
  Computation *entry = module->addComputation(std::make_unique<Computation>("e"));
  module->setEntry(entry);
  builder.computation = entry;
  return module;
}

} // namespace

TEST_CASE("a well-formed module verifies") {
  std::string text =
      R"(HloModule m, entry_computation_layout={(f32[2,3]{1,0}, s32[])->(f32[2], s32[])}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[2] add(x, x)
  ROOT t = (s32[], f32[2]) tuple(j, y)
}

ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  k = s32[] parameter(1)
  z = f32[] constant(0)
  r = f32[2]{0} reduce(x, z), dimensions={1}, to_apply=add
  t = (s32[], f32[2]) tuple(k, r)
  w = (s32[], f32[2]) while(t), condition=cond, body=body
  y = f32[2] get-tuple-element(w), index=1
  ROOT out = (f32[2], s32[]) tuple(y, k)
}
)";
  CHECK(verifyText(text) == "");
}

TEST_CASE("a declared shape that disagrees with inference is located") {
  std::string text = R"(HloModule m

ENTRY e {
  a = f32[2] parameter(0)
  s = f32[3] add(a, a)
  ROOT n = f32[3] negate(s)
}
)";
  CHECK(verifyText(text) ==
        "<string>:5:3: in %s: shape f32[3] does not match the f32[2] that add produces here");
}

TEST_CASE("bad dimension numbers and bad reducers are reported") {
  std::string badDot = R"(HloModule m

ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[4,5] parameter(1)
  ROOT d = f32[2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";
  std::string message = verifyText(badDot);
  CHECK(contains(message, "<string>:6:"));
  CHECK(contains(message, "dot: lhs contracting dimension 1 has size 3 but rhs contracting "
                          "dimension 0 has size 4"));

  std::string badReducer = R"(HloModule m

max3 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  ROOT m = f32[] maximum(a, b)
}

ENTRY e {
  x = f32[8] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=max3
}
)";
  message = verifyText(badReducer);
  CHECK(contains(message, "<string>:13:"));
  CHECK(contains(message, "reduce: to_apply must take 2 parameters, takes 3"));

  std::string badCondition = R"(HloModule m

cond {
  s = s32[] parameter(0)
  ROOT c = s32[] copy(s)
}

body {
  s = s32[] parameter(0)
  ROOT n = s32[] negate(s)
}

ENTRY e {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
)";
  message = verifyText(badCondition);
  CHECK(contains(message, "<string>:15:"));
  CHECK(contains(message, "condition must return pred[], returns s32[]"));

  std::string badComparator = R"(HloModule m

cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

ENTRY e {
  x = f32[8] parameter(0)
  ROOT s = f32[8] sort(x), dimensions={0}, to_apply=cmp
}
)";
  CHECK(contains(verifyText(badComparator), "comparator must return pred[], returns f32[]"));
}

TEST_CASE("parameter numbers must run from 0 without gaps or repeats") {
  std::string gap = R"(HloModule m

ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] parameter(2)
  ROOT s = f32[2] add(a, b)
}
)";
  std::string message = verifyText(gap);
  CHECK(contains(message, "<string>:3:"));
  CHECK(contains(message, "in computation %e: parameters must be numbered 0..1 but parameter 1 "
                          "is missing"));

  std::string repeat = R"(HloModule m

ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] parameter(0)
  ROOT s = f32[2] add(a, b)
}
)";
  CHECK(verifyText(repeat) == "<string>:5:3: in %b: parameter number 0 is already used by %a");
}

TEST_CASE("unbounded dimensions verify but negative ones do not") {
  std::string unbounded = R"(HloModule m

ENTRY e {
  x = f32[?,784] parameter(0)
  ROOT a = f32[?,784] abs(x)
}
)";
  CHECK(verifyText(unbounded) == "");

  Builder b{};
  auto module = addModule(b);
  b.computation->setRoot(b.parameter(0, f32({2, -3})));
  CHECK(verifyBuilt(*module) == "in %p0: shape f32[2,-3] has a negative dimension");
}

TEST_CASE("entry_computation_layout must agree with the entry computation") {
  std::string text = R"(HloModule m, entry_computation_layout={(f32[2]{0})->f32[3]{0}}

ENTRY e {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
}
)";
  std::string message = verifyText(text);
  CHECK(contains(message, "<string>:5:"));
  CHECK(contains(message, "entry_computation_layout says the result is f32[3] but the root is "
                          "f32[2]"));

  std::string params = R"(HloModule m, entry_computation_layout={(s32[2]{0})->f32[2]{0}}

ENTRY e {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
}
)";
  CHECK(verifyText(params) == "<string>:4:3: in %a: entry_computation_layout says parameter 0 is "
                              "s32[2] but it is f32[2]");
}

TEST_CASE("operand counts, order and ownership are checked") {
  Builder b{};
  auto module = addModule(b);
  Instruction *x = b.parameter(0, f32({2}));
  b.computation->setRoot(b.op(Opcode::Add, "sum", f32({2}), {x, x, x}));
  CHECK(verifyBuilt(*module) == "in %sum: add: expected 2 operands, got 3");

  Builder b2{};
  auto late = addModule(b2);
  Instruction *p = b2.parameter(0, f32({2}));
  Instruction *neg = b2.op(Opcode::Negate, "neg", f32({2}), {p});
  Instruction *later = b2.op(Opcode::Abs, "later", f32({2}), {p});
  neg->setOperand(0, later);
  b2.computation->setRoot(later);
  CHECK(verifyBuilt(*late) == "in %neg: operand 0 %later is used before it is defined");

  Builder b3{};
  auto foreign = addModule(b3);
  Instruction *q = b3.parameter(0, f32({2}));
  b3.computation->setRoot(q);
  Computation *other = foreign->addComputation(std::make_unique<Computation>("other"));
  Builder ob{other};
  ob.parameter(0, f32({2}));
  other->setRoot(ob.op(Opcode::Negate, "stolen", f32({2}), {q}));
  CHECK(verifyBuilt(*foreign) == "in %stolen: operand 0 %p0 is not in computation %other");
}

TEST_CASE("modules without an entry, a root or a sane call graph are rejected") {
  Module empty("m");
  CHECK(verifyBuilt(empty) == "module 'm' has no entry computation");

  Builder b{};
  auto rootless = addModule(b);
  b.parameter(0, f32({2}));
  CHECK(verifyBuilt(*rootless) == "in computation %e: has no root instruction");

  Builder b2{};
  auto recursive = addModule(b2);
  Instruction *x = b2.parameter(0, f32({2}));
  Instruction *call = b2.op(Opcode::Call, "again", f32({2}), {x});
  call->addCalledComputation(b2.computation);
  b2.computation->setRoot(call);
  CHECK(verifyBuilt(*recursive) == "in %again: calls %e recursively, which would never finish");

  Builder b3{};
  auto stray = addModule(b3);
  Instruction *y = b3.parameter(0, f32({2}));
  Instruction *neg = b3.op(Opcode::Negate, "neg", f32({2}), {y});
  neg->addCalledComputation(b3.computation);
  b3.computation->setRoot(neg);
  CHECK(verifyBuilt(*stray) == "in %neg: negate does not call computations, but calls 1");
}

TEST_CASE("constants hold a value of their shape unless marked elided") {
  Builder b{};
  auto empty = addModule(b);
  Instruction *x = b.parameter(0, f32({2}));
  Instruction *c = b.op(Opcode::Constant, "c", f32({2}), {});
  b.computation->setRoot(b.op(Opcode::Add, "sum", f32({2}), {x, c}));
  CHECK(verifyBuilt(*empty) == "in %c: constant has no value and is not marked elided");

  c->mutableAttributes().literal = Literal(f32({3}));
  CHECK(verifyBuilt(*empty) == "in %c: constant's value f32[3] does not fill its shape f32[2]");
  c->mutableAttributes().literal = Literal(f32({2}));
  CHECK(verifyBuilt(*empty) == "");
  c->mutableAttributes().literalElided = true;
  CHECK(verifyBuilt(*empty) == "in %c: constant is marked elided but holds a value");
  c->mutableAttributes().literal.reset();
  CHECK(verifyBuilt(*empty) == "");
  // Marked elided, it verifies, but compiling or running it is refused.
  llvm::Error missing = checkConstantsHaveValues(*empty);
  REQUIRE(static_cast<bool>(missing));
  CHECK(contains(errorToString(std::move(missing), nullptr),
                 "constant values were elided by the dumper ('{...}')"));
}

TEST_CASE("a fusion's computation has no other caller") {
  std::string shared = verifyText(R"(
HloModule m
fused {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
ENTRY e {
  x = f32[2] parameter(0)
  a = f32[2] fusion(x), kind=kLoop, calls=fused
  ROOT b = f32[2] fusion(a), kind=kLoop, calls=fused
}
)");
  CHECK(contains(shared, "calls %fused, the computation of fusion %a (a fusion's computation "
                         "has no other caller)"));
  // A reducer shared by many reduces is fine.
  CHECK(verifyText(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[2,3] parameter(0)
  z = f32[] constant(0)
  r = f32[2] reduce(x, z), dimensions={1}, to_apply=add
  ROOT t = f32[] reduce(r, z), dimensions={0}, to_apply=add
}
)") == "");
}

TEST_CASE("floating-point types mix only where XLA's verifier lets them") {
  // A dot names its result type, so bf16 inputs may accumulate into f32.
  std::string dot = R"(HloModule m

ENTRY e {
  x = bf16[4,8] parameter(0)
  ROOT d = f32[4,4] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
)";
  CHECK(verifyText(dot) == "");

  // Shape inference would make this f32, but the module must convert first.
  std::string add = R"(HloModule m

ENTRY e {
  x = bf16[4] parameter(0)
  y = f32[4] parameter(1)
  ROOT s = f32[4] add(x, y)
}
)";
  CHECK(verifyText(add) == "<string>:6:3: in %s: add: operands mix floating-point types bf16 "
                           "and f32; convert them to one type first");

  std::string reduce = R"(HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = bf16[4,8] parameter(0)
  z = bf16[] constant(0)
  ROOT r = f32[4] reduce(x, z), dimensions={1}, to_apply=add
}
)";
  CHECK(contains(verifyText(reduce), "reduce: to_apply parameter 0 is f32 but operand 0 is bf16"));
}

namespace {

/// ../shared/hlo-corpus/files next to the repository, or $MOTE_HLO_CORPUS.
std::filesystem::path corpusDirectory() {
  if (const char *override = std::getenv("MOTE_HLO_CORPUS"))
    return std::filesystem::path(override) / "files";
  return mote::test::sharedCorpusFiles();
}

} // namespace

TEST_CASE("real modules from the corpus load and verify") {
  std::filesystem::path directory = corpusDirectory();
  if (!std::filesystem::is_directory(directory)) {
    MESSAGE("skipped: no HLO corpus at " << directory.string());
    return;
  }
  // Files that XLA itself would refuse, with what is wrong in them.
  const std::map<std::string, std::string> invalid = {
      // Rebuilt from FileCheck lines: the call declares a u64[4] state but
      // the called computation returns u64[2].
      {"xla__hlo__transforms__tests__rng_bit_generator_expander__recon1_TestThreeFryAlgorithm.hlo",
       "in %call: shape (u64[4], u32[]) does not match the (u64[2], u32[]) that call produces "
       "here"},
      {"xla__hlo__transforms__tests__rng_bit_generator_expander__recon4_TestPhiloxAlgorithm.hlo",
       "in %call: shape (u64[6], u32[]) does not match the (u64[3], u32[]) that call produces "
       "here"},
      // A FileCheck pattern, constant({{.*}}), was left in the text; any
      // parse error will do.
      {"xla__hlo__transforms__tests__rng_expander__recon3_TestNormalDistribution.hlo", ""},
  };
  // Importer tests that bundle many test cases behind a dummy entry: some
  // computations nothing calls are not valid HLO. Shapes are only verified in
  // reachable computations, so these load; were that to change, this is the
  // error each must give.
  const std::map<std::string, std::string> invalidWhenUnused = {
      // HLO's broadcast (unlike MHLO's) cannot stretch a size-1 dimension.
      {"xla__hlo__translate__hlo_to_mhlo__tests__while.hlo",
       "in %broadcast.1: broadcast: operand dimension 0 has size 1 but result dimension 0 has "
       "size 3"},
      // A 2x2 kernel under a 3x3 window.
      {"xla__hlo__translate__hlo_to_mhlo__tests__import.hlo",
       "in %convolution.4: convolution: window size 3 of spatial dimension 0 does not match the "
       "kernel's 2"},
  };
  int verified = 0, files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(directory)) {
    if (entry.path().extension() != ".hlo")
      continue;
    ++files;
    std::string name = entry.path().filename().string();
    auto module = loadModule(entry.path().string());
    if (module) {
      ++verified;
      CHECK_MESSAGE(!invalid.count(name), name << " should have been rejected");
      continue;
    }
    std::string message = errorToString(module.takeError(), nullptr);
    if (auto known = invalid.find(name); known != invalid.end()) {
      CHECK_MESSAGE(contains(message, known->second), name << ": " << message);
      continue;
    }
    if (auto known = invalidWhenUnused.find(name); known != invalidWhenUnused.end()) {
      CHECK_MESSAGE(contains(message, known->second), name << ": " << message);
      continue;
    }
    CHECK_MESSAGE(false, name << ": " << message);
  }
  MESSAGE(verified << " of " << files << " corpus modules verify");
  CHECK(files > 0);
  CHECK(verified == files - static_cast<int>(invalid.size()));
}
