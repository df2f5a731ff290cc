//===- MathTargetsTest.cpp - Inline math compiles to call-free objects ----===//
//
// Every math function, scalar and vector, optimised at O2 and compiled for
// each supported target; the object must import nothing (no libm, no
// compiler-rt routines such as __extendhfsf2 or fmaf).
//
//===----------------------------------------------------------------------===//

#include "MathTestHarness.h"

#include "codegen/MathEmitter.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <doctest/doctest.h>

using namespace llvm;
using namespace mote::test;
namespace math = mote::codegen::math;

namespace {

struct TargetCase {
  const char *triple, *cpu, *features, *abi;
  bool hardFloat, withF64;
};

using Unary = Value *(*)(IRBuilderBase &, Value *);
using Binary = Value *(*)(IRBuilderBase &, Value *, Value *);

/// Adds `void name(const T *in0, const T *in1, R *out)` computing one value
/// of type `arg` (scalar or vector).
void addFunction(Module &m, const std::string &name, Type *arg, Type *argElem, Type *resElem,
                 const std::function<Value *(IRBuilderBase &, Value *, Value *)> &emit) {
  LLVMContext &ctx = m.getContext();
  auto *ptr = PointerType::getUnqual(ctx);
  auto *fn = Function::Create(FunctionType::get(Type::getVoidTy(ctx), {ptr, ptr, ptr}, false),
                              Function::ExternalLinkage, name, m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", fn));
  Align align(argElem->getPrimitiveSizeInBits() / 8);
  Value *x = b.CreateAlignedLoad(arg, fn->getArg(0), align);
  Value *y = b.CreateAlignedLoad(arg, fn->getArg(1), align);
  Value *r = emit(b, x, y);
  b.CreateAlignedStore(r, fn->getArg(2), Align(resElem->getPrimitiveSizeInBits() / 8));
  b.CreateRetVoid();
}

void addEverything(Module &m, bool withF64) {
  LLVMContext &ctx = m.getContext();
  const std::pair<const char *, Unary> unary[] = {
      {"exp", math::emitExp},     {"expm1", math::emitExpm1}, {"log", math::emitLog},
      {"log1p", math::emitLog1p}, {"tanh", math::emitTanh},   {"logistic", math::emitLogistic},
      {"erf", math::emitErf},     {"sin", math::emitSin},     {"cos", math::emitCos},
      {"tan", math::emitTan},     {"cbrt", math::emitCbrt},   {"rsqrt", math::emitRsqrt}};
  const std::pair<const char *, Binary> binary[] = {{"pow", math::emitPow},
                                                    {"atan2", math::emitAtan2}};
  std::vector<std::pair<Type *, unsigned>> floats = {{Type::getFloatTy(ctx), 4}};
  if (withF64)
    floats.push_back({Type::getDoubleTy(ctx), 2});
  for (auto [elem, lanes] : floats) {
    for (Type *t : {elem, (Type *)FixedVectorType::get(elem, lanes)}) {
      std::string suffix =
          (elem->isFloatTy() ? "_f32" : "_f64") + std::string(t->isVectorTy() ? "_v" : "_s");
      for (auto [name, f] : unary)
        addFunction(m, name + suffix, t, elem, elem,
                    [f = f](IRBuilderBase &b, Value *x, Value *) { return f(b, x); });
      for (auto [name, f] : binary)
        addFunction(m, name + suffix, t, elem, elem,
                    [f = f](IRBuilderBase &b, Value *x, Value *y) { return f(b, x, y); });
    }
  }
  Type *i16 = Type::getInt16Ty(ctx), *f32 = Type::getFloatTy(ctx), *f64 = Type::getDoubleTy(ctx);
  for (unsigned lanes : {1u, 8u}) {
    auto vec = [&](Type *t) -> Type * { return lanes == 1 ? t : FixedVectorType::get(t, lanes); };
    std::string s = "_" + std::to_string(lanes);
    addFunction(m, "f16_to_f32" + s, vec(i16), i16, f32,
                [](IRBuilderBase &b, Value *x, Value *) { return math::emitF16ToF32(b, x); });
    addFunction(m, "bf16_to_f32" + s, vec(i16), i16, f32,
                [](IRBuilderBase &b, Value *x, Value *) { return math::emitBF16ToF32(b, x); });
    addFunction(m, "f32_to_f16" + s, vec(f32), f32, i16,
                [](IRBuilderBase &b, Value *x, Value *) { return math::emitF32ToF16(b, x); });
    addFunction(m, "f32_to_bf16" + s, vec(f32), f32, i16,
                [](IRBuilderBase &b, Value *x, Value *) { return math::emitF32ToBF16(b, x); });
    // Pure integer code, so they are checked on the single-precision M4 too.
    addFunction(m, "f16_to_f64" + s, vec(i16), i16, f64,
                [](IRBuilderBase &b, Value *x, Value *) { return math::emitF16ToF64(b, x); });
    addFunction(m, "f64_to_f16" + s, vec(f64), f64, i16,
                [](IRBuilderBase &b, Value *x, Value *) { return math::emitF64ToF16(b, x); });
  }
}

std::vector<std::string> undefinedSymbols(const TargetCase &tc, std::string &error) {
  std::string lookupError;
  const Target *target = TargetRegistry::lookupTarget(tc.triple, lookupError);
  if (!target) {
    error = lookupError;
    return {};
  }
  TargetOptions options;
  options.MCOptions.ABIName = tc.abi;
  if (tc.hardFloat)
    options.FloatABIType = FloatABI::Hard;
  bool bareMetal = StringRef(tc.triple).contains("none");
  std::unique_ptr<TargetMachine> tm(target->createTargetMachine(
      tc.triple, tc.cpu, tc.features, options, bareMetal ? Reloc::Static : Reloc::PIC_));
  LLVMContext ctx;
  Module m("math_everything", ctx);
  m.setTargetTriple(tc.triple);
  m.setDataLayout(tm->createDataLayout());
  if (*tc.abi)
    m.addModuleFlag(Module::Error, "target-abi", MDString::get(ctx, tc.abi));
  addEverything(m, tc.withF64);
  std::string verifyErrors;
  raw_string_ostream vos(verifyErrors);
  if (verifyModule(m, &vos)) {
    error = vos.str();
    return {};
  }
  optimizeModule(m, *tm);
  if (std::string calls = findForbiddenCalls(m); !calls.empty()) {
    error = calls;
    return {};
  }
  SmallVector<char, 0> buffer;
  raw_svector_ostream os(buffer);
  legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, CGFT_ObjectFile)) {
    error = "target cannot emit objects";
    return {};
  }
  pm.run(m);
  auto obj = object::ObjectFile::createObjectFile(
      MemoryBufferRef(StringRef(buffer.data(), buffer.size()), "math.o"));
  if (!obj) {
    error = toString(obj.takeError());
    return {};
  }
  std::vector<std::string> undefined;
  for (const object::SymbolRef &sym : (*obj)->symbols()) {
    Expected<uint32_t> flags = sym.getFlags();
    Expected<StringRef> name = sym.getName();
    if (!flags || !name) {
      error = "unreadable symbol";
      consumeError(flags.takeError());
      consumeError(name.takeError());
      return {};
    }
    if ((*flags & object::SymbolRef::SF_Undefined) && !name->empty())
      undefined.push_back(name->str());
  }
  return undefined;
}

} // namespace

TEST_CASE("math compiles to objects without imports on every target") {
  InitializeAllTargetInfos();
  InitializeAllTargets();
  InitializeAllTargetMCs();
  InitializeAllAsmPrinters();
  const TargetCase cases[] = {
      {"aarch64-linux-gnu", "generic", "+neon", "", false, true},
      {"riscv64-linux-gnu", "generic-rv64", "+m,+a,+f,+d,+c", "lp64d", false, true},
      {"riscv64-linux-gnu", "generic-rv64", "+m,+a,+f,+d,+c,+v", "lp64d", false, true},
      {"thumbv7em-none-eabihf", "cortex-m4", "", "", true, false},
      {"x86_64-linux-gnu", "x86-64", "", "", false, true},
  };
  for (const TargetCase &tc : cases) {
    CAPTURE(tc.triple);
    CAPTURE(tc.features);
    std::string error;
    std::vector<std::string> undefined = undefinedSymbols(tc, error);
    CHECK_MESSAGE(error.empty(), error);
    std::string list;
    for (const std::string &s : undefined)
      list += s + " ";
    CHECK_MESSAGE(undefined.empty(), "undefined symbols: " << list);
  }
}
