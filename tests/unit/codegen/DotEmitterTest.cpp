//===- DotEmitterTest.cpp - Which dots are tiled, and with what vectors ---===//
//
// Bit-exactness of the tiled dot is checked against the evaluator by the
// differential case dot_tiled.hlo on every target; here: which dots take
// the tiled path, that the target's vector width reaches the kernel, and
// that multiplies and adds fuse exactly when the contraction arithmetic says.
//
//===----------------------------------------------------------------------===//

#include "codegen/ContractionKernel.h"
#include "codegen/FunctionEmitter.h"
#include "codegen/IrEmitter.h"

#include "hlo/Loader.h"
#include "passes/BufferAssignment.h"
#include "passes/Schedule.h"
#include "target/Target.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

using namespace mote;

namespace {

std::unique_ptr<hlo::Module> load(const std::string &text) {
  auto module = hlo::loadModuleText(text, "test.hlo");
  REQUIRE(static_cast<bool>(module));
  return std::move(*module);
}

/// `dot` (HLO text of the instruction named d over parameters a and b) in a
/// module of its own.
std::unique_ptr<hlo::Module> dotModule(const std::string &a, const std::string &b,
                                       const std::string &dot) {
  return load("HloModule m\nENTRY main {\n  a = " + a + " parameter(0)\n  b = " + b +
              " parameter(1)\n  ROOT d = " + dot + "\n}\n");
}

bool tiled(const hlo::Module &module) {
  return codegen::isTiledDot(*module.entry()->root(), nullptr);
}

/// The optimisable LLVM IR of `module` for `triple` (with `features`), or
/// for the triple's baseline when `withSpec` is false.
std::string emitIr(const hlo::Module &module, llvm::StringRef triple, llvm::StringRef cpu,
                   llvm::StringRef features, bool withSpec, bool targetArithmetic = false) {
  auto spec = target::resolveTarget(triple, cpu, features);
  REQUIRE(static_cast<bool>(spec));
  auto machine = target::createTargetMachine(*spec);
  REQUIRE(static_cast<bool>(machine));
  passes::Schedule schedule = passes::scheduleModule(module);
  passes::BufferAssignmentOptions options;
  auto assignment = passes::assignBuffers(module, schedule, options);
  REQUIRE(static_cast<bool>(assignment));
  llvm::LLVMContext context;
  llvm::Module ir("m", context);
  ir.setTargetTriple((*machine)->getTargetTriple().str());
  ir.setDataLayout((*machine)->createDataLayout());
  eval::ContractionArithmetic contraction;
  if (targetArithmetic)
    contraction = codegen::contractionArithmetic(*spec);
  llvm::Error error = codegen::emitEntryFunction(module, schedule, *assignment, "m", ir,
                                                 withSpec ? &*spec : nullptr, contraction);
  REQUIRE(!error);
  CHECK(!llvm::verifyModule(ir, &llvm::errs()));
  std::string text;
  llvm::raw_string_ostream os(text);
  ir.print(os, nullptr);
  return os.str();
}

bool contains(const std::string &text, const char *needle) {
  return text.find(needle) != std::string::npos;
}

} // namespace

TEST_CASE("f32 and f64 dots of any dimension arrangement are tiled") {
  CHECK(
      tiled(*dotModule("f32[4,5]", "f32[5,6]",
                       "f32[4,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}")));
  CHECK(
      tiled(*dotModule("f64[5,4]", "f64[6,5]",
                       "f64[4,6] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}")));
  CHECK(tiled(*dotModule("f32[3,2,5]", "f32[5,2]",
                         "f32[2,3] dot(a, b), lhs_batch_dims={1}, lhs_contracting_dims={2}, "
                         "rhs_batch_dims={1}, rhs_contracting_dims={0}")));
  CHECK(tiled(*dotModule("f32[7,5]", "f32[5]",
                         "f32[7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}")));
}

TEST_CASE("integer dots of 8, 16 and 32 bits in any mix are tiled") {
  CHECK(
      tiled(*dotModule("s32[4,5]", "s32[5,6]",
                       "s32[4,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}")));
  CHECK(
      tiled(*dotModule("s8[4,5]", "s8[5,6]",
                       "s32[4,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}")));
  CHECK(
      tiled(*dotModule("u8[4,5]", "s8[5,6]",
                       "s32[4,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}")));
  CHECK(
      tiled(*dotModule("s16[4,5]", "s16[5,6]",
                       "s32[4,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}")));
}

TEST_CASE("half-precision dots are tiled, summing in f32") {
  for (const char *type : {"f16", "bf16"}) {
    std::string t = type;
    CHECK(tiled(
        *dotModule(t + "[4,5]", t + "[5,6]",
                   t + "[4,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}")));
    CHECK(tiled(
        *dotModule(t + "[4,5]", "f32[5,6]",
                   "f32[4,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}")));
  }
  // The operands widen as loaded (F16C's vcvtph2ps, a shift for bf16), the
  // sums are f32 vectors, and the result rounds once as stored.
  auto module =
      dotModule("bf16[16,32]", "f16[32,64]",
                "f16[16,64] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  std::string ir = emitIr(*module, "x86_64-linux-gnu", "haswell", "", true, true);
  CHECK(contains(ir, "fpext <8 x half>"));
  CHECK(contains(ir, "shl i32"));
  CHECK(contains(ir, "@llvm.fma.v8f32"));
  CHECK(contains(ir, "fptrunc <8 x float>"));
  // Without F16C the conversions are integer code (no library calls).
  std::string sse = emitIr(*module, "x86_64-linux-gnu", "x86-64", "", true, true);
  CHECK(!contains(sse, "half"));
}

TEST_CASE("other dots stay elemental") {
  std::string why;
  auto wide = dotModule("s64[4,5]", "s64[5,6]",
                        "s64[4,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  CHECK(!codegen::isTiledDot(*wide->entry()->root(), &why));
  CHECK(why == "only dots of f16, bf16 and f32 (summed in f32), of f64 and of integers are tiled");
  CHECK(
      !tiled(*dotModule("s8[4,5]", "f32[5,6]",
                        "f32[4,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}")));
  CHECK(
      !tiled(*dotModule("f32[4,5]", "f32[5,6]",
                        "f64[4,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}")));
  CHECK(
      !tiled(*dotModule("f16[4,5]", "f64[5,6]",
                        "f64[4,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}")));
  CHECK(!tiled(*dotModule("f32[5]", "f32[5]",
                          "f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}")));
  CHECK(
      !tiled(*dotModule("f32[4,5]{0,1}", "f32[5,6]",
                        "f32[4,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}")));
}

TEST_CASE("the tile uses the target's vectors; without fused arithmetic it never fuses") {
  auto module =
      dotModule("f32[16,32]", "f32[32,64]",
                "f32[16,64] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  // x86-64's baseline is SSE2; the spec's AVX-512 widens the vectors.
  std::string sse = emitIr(*module, "x86_64-linux-gnu", "skylake-avx512", "", false);
  CHECK(contains(sse, "fmul <4 x float>"));
  CHECK(!contains(sse, "<16 x float>"));
  std::string avx512 = emitIr(*module, "x86_64-linux-gnu", "skylake-avx512", "", true);
  CHECK(contains(avx512, "fmul <16 x float>"));
  CHECK(contains(avx512, "fadd <16 x float>"));
  // RISC-V vectors only with V; without it the tile is scalar.
  std::string scalar = emitIr(*module, "riscv64-linux-gnu", "", "", true);
  CHECK(contains(scalar, "fmul float"));
  CHECK(!contains(scalar, "x float>"));
  std::string rvv = emitIr(*module, "riscv64-linux-gnu", "", "+v", true);
  CHECK(contains(rvv, "fmul <4 x float>"));
  for (const std::string *text : {&sse, &avx512, &scalar, &rvv}) {
    CHECK(!contains(*text, "fmuladd"));
    CHECK(!contains(*text, "llvm.fma"));
    CHECK(!contains(*text, "contract"));
  }
}

TEST_CASE("with the target's arithmetic, tiles fuse where the target has the instruction") {
  auto module =
      dotModule("f32[16,32]", "f32[32,64]",
                "f32[16,64] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  std::string avx512 = emitIr(*module, "x86_64-linux-gnu", "skylake-avx512", "", true, true);
  CHECK(contains(avx512, "@llvm.fma.v16f32"));
  CHECK(!contains(avx512, "fmul <16 x float>"));
  std::string neon = emitIr(*module, "aarch64-linux-gnu", "", "", true, true);
  CHECK(contains(neon, "@llvm.fma.v4f32"));
  // Baseline x86-64 has no FMA: the same arithmetic request stays separate.
  std::string sse = emitIr(*module, "x86_64-linux-gnu", "", "", true, true);
  CHECK(!contains(sse, "llvm.fma"));
  CHECK(contains(sse, "fmul <4 x float>"));
}
