//===- BackendWorkaroundsTest.cpp - IR rewrites around LLVM backend bugs --===//

#include "output/BackendWorkarounds.h"
#include "target/Target.h"

#include "llvm/Analysis/VectorUtils.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/ConstantFold.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"

#include <doctest/doctest.h>

#include <string>

using namespace mote;
using llvm::CmpInst;

namespace {

const char *const kPredicates[] = {"oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                                   "ueq", "ugt", "uge", "ult", "ule", "une", "uno"};

/// The predicates LLVM 16 lowers right for MVE against a splat second operand.
bool loweredRight(CmpInst::Predicate predicate) {
  switch (predicate) {
  case CmpInst::FCMP_OEQ:
  case CmpInst::FCMP_UNE:
  case CmpInst::FCMP_OGT:
  case CmpInst::FCMP_OGE:
  case CmpInst::FCMP_ULT:
  case CmpInst::FCMP_ULE:
    return true;
  default:
    return false;
  }
}

std::unique_ptr<llvm::TargetMachine> machineFor(llvm::StringRef triple, llvm::StringRef cpu,
                                                llvm::StringRef features) {
  auto spec = target::resolveTarget(triple, cpu, features);
  REQUIRE(bool(spec));
  auto machine = target::createTargetMachine(*spec);
  REQUIRE(bool(machine));
  return std::move(*machine);
}

/// Checks that `module` is valid IR after a rewrite, naming its problems.
void checkValid(llvm::Module &module) {
  std::string problems;
  llvm::raw_string_ostream stream(problems);
  CHECK_MESSAGE(!llvm::verifyModule(module, &stream), problems);
}

/// One function a predicate: x against a broadcast scalar on each side, and
/// x against a vector.
std::string comparesText() {
  std::string text;
  for (const char *predicate : kPredicates)
    text += std::string("define <4 x i1> @") + predicate +
            "(<4 x float> %x, <4 x float> %y, float %f) {\n"
            "  %i = insertelement <4 x float> poison, float %f, i32 0\n"
            "  %s = shufflevector <4 x float> %i, <4 x float> poison, <4 x i32> zeroinitializer\n"
            "  %a = fcmp " +
            predicate + " <4 x float> %x, %s\n  %b = fcmp " + predicate +
            " <4 x float> %s, %x\n  %c = fcmp " + predicate + " <4 x float> %x, zeroinitializer\n" +
            "  %d = fcmp " + predicate + " <4 x float> %x, %y\n" +
            "  %ab = and <4 x i1> %a, %b\n  %cd = and <4 x i1> %c, %d\n"
            "  %r = and <4 x i1> %ab, %cd\n  ret <4 x i1> %r\n}\n";
  return text;
}

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext &context, const std::string &text) {
  llvm::SMDiagnostic diagnostic;
  auto module = llvm::parseAssemblyString(text, diagnostic, context);
  REQUIRE_MESSAGE(module, diagnostic.getMessage().str());
  return module;
}

} // namespace

TEST_CASE("MVE: compares against a splat keep only predicates LLVM 16 lowers right") {
  llvm::LLVMContext context;
  auto module = parse(context, comparesText());
  auto machine = machineFor("thumbv8.1m.main-none-eabihf", "", "");
  // Against a splat second (a broadcast scalar, zero) the eight others than
  // oeq, une, ogt, oge, ult and ule are rebuilt; with the splat first all 14
  // are, or restated with it second. x against a vector is left alone.
  CHECK(output::legalizeMveFloatCompares(*module, *machine) == 8 * 2 + 14);
  for (llvm::Function &function : *module) {
    CAPTURE(function.getName().str());
    unsigned vectorByVector = 0;
    for (llvm::Instruction &instruction : llvm::instructions(function)) {
      auto *compare = llvm::dyn_cast<llvm::FCmpInst>(&instruction);
      if (!compare)
        continue;
      llvm::Value *lhs = compare->getOperand(0), *rhs = compare->getOperand(1);
      const bool splatRhs = llvm::isa<llvm::Constant>(rhs) || llvm::getSplatValue(rhs);
      const bool splatLhs = llvm::isa<llvm::Constant>(lhs) || llvm::getSplatValue(lhs);
      if (!splatLhs && !splatRhs) {
        ++vectorByVector;
        CHECK(CmpInst::getPredicateName(compare->getPredicate()) == function.getName());
        continue;
      }
      CHECK_FALSE(splatLhs);
      CHECK(loweredRight(compare->getPredicate()));
    }
    CHECK(vectorByVector == 1);
  }
}

TEST_CASE("MVE: rebuilt compares mean what the originals meant, NaN and zeros included") {
  // x and the splat as constants: the rebuilt compare folds to a constant,
  // checked against LLVM's folding of the original.
  const char *values = "<float 0x7FF8000000000000, float -1.0, float -0.0, float 2.0>";
  const char *splats[] = {"zeroinitializer", "<float -1.0, float -1.0, float -1.0, float -1.0>",
                          "<float 0x7FF8000000000000, float 0x7FF8000000000000, "
                          "float 0x7FF8000000000000, float 0x7FF8000000000000>"};
  auto machine = machineFor("thumbv8.1m.main-none-eabihf", "", "");
  for (const char *predicate : kPredicates)
    for (const char *splat : splats)
      for (bool splatFirst : {false, true}) {
        CAPTURE(predicate);
        CAPTURE(splat);
        CAPTURE(splatFirst);
        std::string lhs = splatFirst ? splat : values, rhs = splatFirst ? values : splat;
        llvm::LLVMContext context;
        auto module =
            parse(context, std::string("define <4 x i1> @f() {\n  %c = fcmp ") + predicate +
                               " <4 x float> " + lhs + ", " + rhs + "\n  ret <4 x i1> %c\n}\n");
        auto *original = llvm::cast<llvm::FCmpInst>(&*llvm::instructions(*module->begin()).begin());
        llvm::Constant *expected = llvm::ConstantFoldCompareInstruction(
            original->getPredicate(), llvm::cast<llvm::Constant>(original->getOperand(0)),
            llvm::cast<llvm::Constant>(original->getOperand(1)));
        REQUIRE(expected);
        output::legalizeMveFloatCompares(*module, *machine);
        auto *ret = llvm::cast<llvm::ReturnInst>(module->begin()->getEntryBlock().getTerminator());
        auto *result = llvm::dyn_cast<llvm::Constant>(ret->getReturnValue());
        if (!result) { // a safe predicate, restated with the splat second
          auto *compare = llvm::cast<llvm::FCmpInst>(ret->getReturnValue());
          result = llvm::ConstantFoldCompareInstruction(
              compare->getPredicate(), llvm::cast<llvm::Constant>(compare->getOperand(0)),
              llvm::cast<llvm::Constant>(compare->getOperand(1)));
        }
        CHECK(result == expected);
      }
}

TEST_CASE("the MVE compare rewrite leaves other targets and MVE without floats alone") {
  struct Case {
    const char *triple, *cpu, *features;
  } cases[] = {{"aarch64-linux-gnu", "", ""},
               {"thumbv7em-none-eabihf", "cortex-m4", ""},
               {"thumbv8.1m.main-none-eabihf", "cortex-m55", "-mve.fp"},
               {"x86_64-linux-gnu", "", ""}};
  for (const Case &c : cases) {
    CAPTURE(c.triple);
    CAPTURE(c.features);
    llvm::LLVMContext context;
    auto module = parse(context, comparesText());
    auto machine = machineFor(c.triple, c.cpu, c.features);
    CHECK(output::legalizeMveFloatCompares(*module, *machine) == 0);
  }
}

namespace {

/// Half vector operations x86-64 restates in f32 (an add, a compare, a
/// maximum) and two it leaves: a fused multiply-add (double rounding would
/// not be innocuous) and a scalar add (promoted one at a time anyway).
const char *const kHalfVectorText = R"(
define <8 x half> @f(<8 x half> %x, <8 x half> %y, half %s, ptr %out) {
  %sum = fadd <8 x half> %x, %y
  %less = fcmp olt <8 x half> %sum, %y
  %pick = select <8 x i1> %less, <8 x half> %sum, <8 x half> %y
  %top = call <8 x half> @llvm.maxnum.v8f16(<8 x half> %pick, <8 x half> %x)
  %fused = call <8 x half> @llvm.fma.v8f16(<8 x half> %top, <8 x half> %x, <8 x half> %y)
  %scalar = fadd half %s, %s
  store half %scalar, ptr %out
  ret <8 x half> %fused
}
declare <8 x half> @llvm.maxnum.v8f16(<8 x half>, <8 x half>)
declare <8 x half> @llvm.fma.v8f16(<8 x half>, <8 x half>, <8 x half>)
)";

/// Whether `instruction` computes on half vectors (other than converting).
bool computesOnHalfVectors(const llvm::Instruction &instruction) {
  if (llvm::isa<llvm::FPExtInst, llvm::FPTruncInst, llvm::SelectInst, llvm::ReturnInst>(
          instruction))
    return false;
  auto isHalfVector = [](llvm::Type *type) {
    return type->isVectorTy() && type->getScalarType()->isHalfTy();
  };
  if (isHalfVector(instruction.getType()))
    return true;
  for (const llvm::Value *operand : instruction.operands())
    if (isHalfVector(operand->getType()))
      return true;
  return false;
}

} // namespace

TEST_CASE("x86-64 with F16C computes half vector arithmetic and compares in f32") {
  llvm::LLVMContext context;
  auto module = parse(context, kHalfVectorText);
  auto machine = machineFor("x86_64-linux-gnu", "x86-64-v3", "");
  CHECK(output::widenHalfVectorArithmetic(*module, *machine) == 3);
  checkValid(*module);
  unsigned left = 0;
  for (llvm::Instruction &instruction : llvm::instructions(*module->getFunction("f")))
    if (computesOnHalfVectors(instruction)) {
      ++left;
      CHECK(llvm::isa<llvm::CallInst>(instruction)); // the fma
    }
  CHECK(left == 1);
}

TEST_CASE("the half vector rewrite leaves targets without F16C or with half arithmetic alone") {
  struct Case {
    const char *triple, *cpu, *features;
  } cases[] = {{"x86_64-linux-gnu", "", ""},
               {"x86_64-linux-gnu", "x86-64-v3", "+avx512f,+avx512bw,+avx512vl,+avx512fp16"},
               {"aarch64-linux-gnu", "", "+fullfp16"},
               {"aarch64-linux-gnu", "", ""}};
  for (const Case &c : cases) {
    CAPTURE(c.triple);
    CAPTURE(c.features);
    llvm::LLVMContext context;
    auto module = parse(context, kHalfVectorText);
    auto machine = machineFor(c.triple, c.cpu, c.features);
    CHECK(output::widenHalfVectorArithmetic(*module, *machine) == 0);
  }
}

namespace {

/// A bf16 epilogue's end as the vectorizer leaves it: 32 f32 lanes rounded
/// (x + 0x7fff + ((x >> 16) & 1)) and narrowed to their top halves, plus a
/// narrowing of 16 lanes and a shift by 15, which stay as they are.
const char *const kBf16RoundingText = R"(
define void @f(<32 x i32> %x, <16 x i32> %y, ptr %out) {
  %up = add <32 x i32> %x, <i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767>
  %kept = lshr <32 x i32> %x, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %odd = and <32 x i32> %kept, <i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1>
  %r = add <32 x i32> %up, %odd
  %top = lshr <32 x i32> %r, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %h = trunc <32 x i32> %top to <32 x i16>
  store <32 x i16> %h, ptr %out
  %ytop = lshr <16 x i32> %y, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %yh = trunc <16 x i32> %ytop to <16 x i16>
  %p16 = getelementptr i16, ptr %out, i64 32
  store <16 x i16> %yh, ptr %p16
  %x15 = lshr <32 x i32> %x, <i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15>
  %h15 = trunc <32 x i32> %x15 to <32 x i16>
  %p48 = getelementptr i16, ptr %out, i64 48
  store <32 x i16> %h15, ptr %p48
  ret void
}
)";

unsigned countOpcode(llvm::Function &function, unsigned opcode) {
  unsigned count = 0;
  for (llvm::Instruction &instruction : llvm::instructions(function))
    count += instruction.getOpcode() == opcode;
  return count;
}

} // namespace

TEST_CASE("x86-64 with AVX-512: bf16 roundings take a mask, 32-lane narrowings one permute") {
  llvm::LLVMContext context;
  auto module = parse(context, kBf16RoundingText);
  auto machine = machineFor("x86_64-linux-gnu", "x86-64-v4", "");
  CHECK(output::selectBf16RoundingWithMasks(*module, *machine) == 1);
  CHECK(output::narrowHighHalvesWithPermutes(*module, *machine) == 1);
  checkValid(*module);
  llvm::Function &f = *module->getFunction("f");
  CHECK(countOpcode(f, llvm::Instruction::Select) == 1);
  // The rounding's shift and and are gone; 16 lanes and the shift by 15 stay.
  CHECK(countOpcode(f, llvm::Instruction::And) == 1); // x & 0x10000
  CHECK(countOpcode(f, llvm::Instruction::LShr) == 2);
  CHECK(countOpcode(f, llvm::Instruction::Trunc) == 2);
  for (llvm::Instruction &instruction : llvm::instructions(f))
    if (auto *shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(&instruction)) {
      llvm::ArrayRef<int> mask = shuffle->getShuffleMask();
      REQUIRE(mask.size() == 32);
      for (unsigned lane = 0; lane < 32; ++lane)
        CHECK(mask[lane] == int(2 * lane + 1));
    }
  CHECK(countOpcode(f, llvm::Instruction::ShuffleVector) == 1);
}

TEST_CASE("a bf16 rounding of a rounding's sum is rewritten after it, reading its replacement") {
  const char *const text = R"(
define <16 x i32> @g(<16 x i32> %x) {
  %up = add <16 x i32> %x, <i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767>
  %kept = lshr <16 x i32> %x, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %odd = and <16 x i32> %kept, <i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1>
  %r = add <16 x i32> %up, %odd
  %up2 = add <16 x i32> %r, <i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767>
  %kept2 = lshr <16 x i32> %r, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %odd2 = and <16 x i32> %kept2, <i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1>
  %r2 = add <16 x i32> %up2, %odd2
  ret <16 x i32> %r2
}
)";
  llvm::LLVMContext context;
  auto module = parse(context, text);
  auto machine = machineFor("x86_64-linux-gnu", "x86-64-v4", "");
  CHECK(output::selectBf16RoundingWithMasks(*module, *machine) == 2);
  checkValid(*module);
  llvm::Function &g = *module->getFunction("g");
  CHECK(countOpcode(g, llvm::Instruction::Select) == 2);
  CHECK(countOpcode(g, llvm::Instruction::LShr) == 0);
  auto *second = llvm::cast<llvm::SelectInst>(g.getEntryBlock().getTerminator()->getOperand(0));
  auto *firstUse = llvm::cast<llvm::Instruction>(second->getTrueValue());
  CHECK(llvm::isa<llvm::SelectInst>(firstUse->getOperand(0)));
}

TEST_CASE("the bf16 rounding and narrowing rewrites leave targets without AVX-512 alone") {
  struct Case {
    const char *triple, *cpu, *features;
  } cases[] = {{"x86_64-linux-gnu", "", ""},
               {"x86_64-linux-gnu", "x86-64-v3", ""},
               {"aarch64-linux-gnu", "", ""},
               {"riscv64-linux-gnu", "", "+v"}};
  for (const Case &c : cases) {
    CAPTURE(c.triple);
    CAPTURE(c.cpu);
    llvm::LLVMContext context;
    auto module = parse(context, kBf16RoundingText);
    auto machine = machineFor(c.triple, c.cpu, c.features);
    CHECK(output::selectBf16RoundingWithMasks(*module, *machine) == 0);
    CHECK(output::narrowHighHalvesWithPermutes(*module, *machine) == 0);
  }
}

namespace {

/// The NaN case of bf16 roundings as the optimised IR has it: 32 lanes
/// (two zmm registers), 8 lanes, and a select on an ordered compare that
/// is no NaN test.
const char *const kBf16QuietNanText = R"(
define void @q(<32 x float> %x, <32 x i32> %rounded, <8 x float> %y, <8 x i32> %yr, ptr %out) {
  %bits = bitcast <32 x float> %x to <32 x i32>
  %nan = fcmp uno <32 x float> %x, zeroinitializer
  %quiet = or <32 x i32> %bits, <i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304>
  %r = select <32 x i1> %nan, <32 x i32> %quiet, <32 x i32> %rounded
  store <32 x i32> %r, ptr %out
  %ybits = bitcast <8 x float> %y to <8 x i32>
  %ynan = fcmp uno <8 x float> %y, %y
  %yquiet = or <8 x i32> %ybits, <i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304>
  %yr2 = select <8 x i1> %ynan, <8 x i32> %yquiet, <8 x i32> %yr
  %p1 = getelementptr i32, ptr %out, i64 32
  store <8 x i32> %yr2, ptr %p1
  %lt = fcmp olt <8 x float> %y, zeroinitializer
  %kept = select <8 x i1> %lt, <8 x i32> %yquiet, <8 x i32> %yr
  %p2 = getelementptr i32, ptr %out, i64 40
  store <8 x i32> %kept, ptr %p2
  ret void
}
)";

} // namespace

TEST_CASE("x86-64 with AVX-512: a bf16 rounding's NaN case is one fixup a register") {
  llvm::LLVMContext context;
  auto module = parse(context, kBf16QuietNanText);
  auto machine = machineFor("x86_64-linux-gnu", "x86-64-v4", "");
  CHECK(output::quietBf16NansWithFixups(*module, *machine) == 2);
  checkValid(*module);
  llvm::Function &q = *module->getFunction("q");
  // Two 16-lane fixups for the 32 lanes, one 8-lane fixup; the ordered
  // compare's select stays, and with it the 8 lanes' or.
  unsigned fixups16 = 0, fixups8 = 0;
  for (llvm::Instruction &instruction : llvm::instructions(q))
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(&instruction)) {
      const llvm::Intrinsic::ID id = call->getIntrinsicID();
      fixups16 += id == llvm::Intrinsic::x86_avx512_mask_fixupimm_ps_512;
      fixups8 += id == llvm::Intrinsic::x86_avx512_mask_fixupimm_ps_256;
      // Quiet NaN -> the lane, signalling NaN -> the lane quieted, else kept.
      auto *table = llvm::dyn_cast<llvm::Constant>(call->getArgOperand(2));
      REQUIRE(table);
      auto *splat = llvm::dyn_cast_or_null<llvm::ConstantInt>(table->getSplatValue());
      REQUIRE(splat);
      CHECK(splat->getZExtValue() == 0x21);
    }
  CHECK(fixups16 == 2);
  CHECK(fixups8 == 1);
  CHECK(countOpcode(q, llvm::Instruction::Select) == 1);
  CHECK(countOpcode(q, llvm::Instruction::FCmp) == 1);
  CHECK(countOpcode(q, llvm::Instruction::Or) == 1);
}

TEST_CASE("the bf16 NaN fixup leaves targets without AVX-512 alone") {
  for (const char *cpu : {"", "x86-64-v3"}) {
    CAPTURE(cpu);
    llvm::LLVMContext context;
    auto module = parse(context, kBf16QuietNanText);
    auto machine = machineFor("x86_64-linux-gnu", cpu, "");
    CHECK(output::quietBf16NansWithFixups(*module, *machine) == 0);
  }
  llvm::LLVMContext context;
  auto module = parse(context, kBf16QuietNanText);
  CHECK(output::quietBf16NansWithFixups(*module, *machineFor("aarch64-linux-gnu", "", "")) == 0);
}

TEST_CASE("x86-64 with AVX-512: a relu after a bf16 rounding zeroes the fixup's lanes below "
          "-2^-134 when its readers take the top half") {
  // @top's relu is read as its top half: folded, its and and compare gone.
  // @whole's relu is also stored whole: the and and the relu stay.
  // @pair's relu is the top half of a 32-bit pair (an odd channel's bf16
  // over an even one's): folded, its and gone, the reader's and kept.
  // A rounding's NaN case, its and and a relu: the body both functions share.
  const std::string relu = R"(
  %bits = bitcast <16 x float> %x to <16 x i32>
  %nan = fcmp uno <16 x float> %x, zeroinitializer
  %quiet = or <16 x i32> %bits, <i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304, i32 4194304>
  %r = select <16 x i1> %nan, <16 x i32> %quiet, <16 x i32> %rounded
  %cleared = and <16 x i32> %r, <i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536>
  %f = bitcast <16 x i32> %cleared to <16 x float>
  %negative = fcmp olt <16 x float> %f, zeroinitializer
  %relu = select <16 x i1> %negative, <16 x float> zeroinitializer, <16 x float> %f
)";
  const std::string text = "define void @top(<16 x float> %x, <16 x i32> %rounded, ptr %out) {" +
                           relu + R"(
  %relubits = bitcast <16 x float> %relu to <16 x i32>
  %top = lshr <16 x i32> %relubits, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %h = trunc <16 x i32> %top to <16 x i16>
  store <16 x i16> %h, ptr %out
  ret void
}
define void @whole(<16 x float> %x, <16 x i32> %rounded, ptr %out) {)" +
                           relu + R"(
  store <16 x float> %relu, ptr %out
  ret void
}
define void @pair(<16 x float> %x, <16 x i32> %rounded, <16 x i32> %even, ptr %out) {)" +
                           relu + R"(
  %relubits = bitcast <16 x float> %relu to <16 x i32>
  %high = and <16 x i32> %relubits, <i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536, i32 -65536>
  %low = lshr <16 x i32> %even, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %both = or <16 x i32> %high, %low
  store <16 x i32> %both, ptr %out
  ret void
}
)";
  llvm::LLVMContext context;
  auto module = parse(context, text.c_str());
  auto machine = machineFor("x86_64-linux-gnu", "x86-64-v4", "");
  CHECK(output::quietBf16NansWithFixups(*module, *machine) == 3);
  checkValid(*module);
  llvm::Function &top = *module->getFunction("top");
  CHECK(countOpcode(top, llvm::Instruction::Select) == 0);
  CHECK(countOpcode(top, llvm::Instruction::And) == 0);
  unsigned zeroing = 0;
  for (llvm::Instruction &instruction : llvm::instructions(top))
    if (auto *compare = llvm::dyn_cast<llvm::FCmpInst>(&instruction)) {
      // Kept where x >= -2^-134 or unordered: a NaN stays a NaN.
      CHECK(compare->getPredicate() == llvm::FCmpInst::FCMP_UGE);
      auto *edge = llvm::dyn_cast_or_null<llvm::ConstantFP>(
          llvm::cast<llvm::Constant>(compare->getOperand(1))->getSplatValue());
      REQUIRE(edge);
      CHECK(edge->getValueAPF().convertToFloat() == -0x1p-134f);
    } else if (auto *call = llvm::dyn_cast<llvm::CallInst>(&instruction)) {
      zeroing += call->getIntrinsicID() == llvm::Intrinsic::x86_avx512_maskz_fixupimm_ps_512;
    }
  CHECK(zeroing == 1);
  llvm::Function &whole = *module->getFunction("whole");
  CHECK(countOpcode(whole, llvm::Instruction::Select) == 1);
  CHECK(countOpcode(whole, llvm::Instruction::And) == 1);
  llvm::Function &pair = *module->getFunction("pair");
  CHECK(countOpcode(pair, llvm::Instruction::Select) == 0);
  CHECK(countOpcode(pair, llvm::Instruction::And) == 1);
}
