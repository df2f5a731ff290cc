//===- MathTestHarness.cpp - JIT and ULP measurement for the math tests ---===//

#include "MathTestHarness.h"

#include "output/BackendWorkarounds.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <doctest/doctest.h>

#include <cstdlib>

using namespace llvm;

namespace mote::test {

namespace {

orc::JITTargetMachineBuilder hostBuilder(HostCpu cpu) {
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  auto detected = orc::JITTargetMachineBuilder::detectHost();
  if (!detected) {
    consumeError(detected.takeError());
    return orc::JITTargetMachineBuilder(Triple(sys::getProcessTriple()));
  }
  if (cpu == HostCpu::Native)
    return std::move(*detected);
  orc::JITTargetMachineBuilder plain(detected->getTargetTriple());
  plain.setCPU("x86-64");
  return plain;
}

Type *elemType(LLVMContext &ctx, Elem e) {
  switch (e) {
  case Elem::F32:
    return Type::getFloatTy(ctx);
  case Elem::F64:
    return Type::getDoubleTy(ctx);
  case Elem::I16:
    return Type::getInt16Ty(ctx);
  case Elem::None:
    break;
  }
  return nullptr;
}

} // namespace

MathJit::MathJit(HostCpu cpu) {
  auto builder = hostBuilder(cpu);
  auto machine = builder.createTargetMachine();
  REQUIRE_MESSAGE(bool(machine), toString(machine.takeError()));
  tm = std::move(*machine);
  auto created = orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(builder)).create();
  REQUIRE_MESSAGE(bool(created), toString(created.takeError()));
  jit = std::move(*created);
}

MathJit::~MathJit() = default;

std::string findForbiddenCalls(const Module &m) {
  std::string problems;
  raw_string_ostream os(problems);
  auto allowed = [](Intrinsic::ID id) {
    switch (id) {
    case Intrinsic::sqrt:
    case Intrinsic::fabs:
    case Intrinsic::copysign:
    case Intrinsic::fmuladd:
    case Intrinsic::ctlz:
    // Integer min/max/abs: compare and select at worst.
    case Intrinsic::umin:
    case Intrinsic::umax:
    case Intrinsic::smin:
    case Intrinsic::smax:
    case Intrinsic::abs:
    // One instruction: bf16's NaN quieting on AVX-512 (output/NanFixups.cpp).
    case Intrinsic::x86_avx512_mask_fixupimm_ps_128:
    case Intrinsic::x86_avx512_mask_fixupimm_ps_256:
    case Intrinsic::x86_avx512_mask_fixupimm_ps_512:
    // Inserted by the optimizer, never lowered to code.
    case Intrinsic::assume:
    case Intrinsic::lifetime_start:
    case Intrinsic::lifetime_end:
      return true;
    default:
      return false;
    }
  };
  for (const Function &f : m) {
    if (f.isDeclaration() && !(f.isIntrinsic() && allowed(f.getIntrinsicID())))
      os << "declaration of " << f.getName() << "\n";
    for (const BasicBlock &bb : f)
      for (const Instruction &inst : bb)
        if (const auto *call = dyn_cast<CallBase>(&inst)) {
          const Function *callee = call->getCalledFunction();
          if (!callee || !callee->isIntrinsic() || !allowed(callee->getIntrinsicID()))
            os << "call in " << f.getName() << ": " << inst << "\n";
        }
  }
  return os.str();
}

void optimizeModule(Module &m, TargetMachine &tm) {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(OptimizationLevel::O2).run(m, mam);
  // The x86 rewrites motec makes last (output/BackendWorkarounds.h), so a
  // kernel is the instructions compiled models run on this host.
  output::selectBf16RoundingWithMasks(m, tm);
  output::quietBf16NansWithFixups(m, tm);
  output::narrowHighHalvesWithPermutes(m, tm);
}

KernelFn MathJit::compile(const std::string &name, Elem in0, Elem in1, Elem out, unsigned lanes,
                          const MathEmit &emit) {
  auto ctx = std::make_unique<LLVMContext>();
  auto mod = std::make_unique<Module>(name, *ctx);
  mod->setDataLayout(tm->createDataLayout());
  mod->setTargetTriple(tm->getTargetTriple().str());
  auto *ptr = PointerType::getUnqual(*ctx);
  auto *i64 = Type::getInt64Ty(*ctx);
  auto *fnTy = FunctionType::get(Type::getVoidTy(*ctx), {ptr, ptr, ptr, i64}, false);
  auto *fn = Function::Create(fnTy, Function::ExternalLinkage, name, *mod);
  auto *entry = BasicBlock::Create(*ctx, "entry", fn);
  auto *loop = BasicBlock::Create(*ctx, "loop", fn);
  auto *exit = BasicBlock::Create(*ctx, "exit", fn);
  IRBuilder<> b(entry);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  PHINode *i = b.CreatePHI(i64, 2);
  i->addIncoming(b.getInt64(0), entry);
  auto vecOf = [&](Elem e) -> Type * {
    Type *t = elemType(*ctx, e);
    return lanes == 1 ? t : FixedVectorType::get(t, lanes);
  };
  auto load = [&](Value *base, Elem e) -> Value * {
    if (e == Elem::None)
      return nullptr;
    Type *et = elemType(*ctx, e);
    Value *p = b.CreateGEP(et, base, i);
    return b.CreateAlignedLoad(vecOf(e), p, Align(et->getPrimitiveSizeInBits() / 8));
  };
  Value *a = load(fn->getArg(0), in0);
  Value *c = load(fn->getArg(1), in1);
  Value *r = emit(b, a, c);
  Type *outElem = elemType(*ctx, out);
  CHECK(r->getType() == vecOf(out));
  b.CreateAlignedStore(r, b.CreateGEP(outElem, fn->getArg(2), i),
                       Align(outElem->getPrimitiveSizeInBits() / 8));
  Value *next = b.CreateAdd(i, b.getInt64(lanes));
  i->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpULT(next, fn->getArg(3)), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();

  std::string verifyErrors;
  raw_string_ostream vos(verifyErrors);
  if (verifyModule(*mod, &vos)) {
    FAIL_CHECK("invalid IR for " << name << ": " << vos.str());
    return nullptr;
  }
  std::string before = findForbiddenCalls(*mod);
  CHECK_MESSAGE(before.empty(), name << " emits calls: " << before);
  optimizeModule(*mod, *tm);
  std::string after = findForbiddenCalls(*mod);
  CHECK_MESSAGE(after.empty(), name << " calls something after O2: " << after);
  if (!before.empty() || !after.empty())
    return nullptr;

  if (Error err = jit->addIRModule(orc::ThreadSafeModule(std::move(mod), std::move(ctx)))) {
    FAIL_CHECK(toString(std::move(err)));
    return nullptr;
  }
  auto sym = jit->lookup(name);
  if (!sym) {
    FAIL_CHECK(toString(sym.takeError()));
    return nullptr;
  }
  return sym->toPtr<KernelFn>();
}

size_t sweepSize() {
  if (const char *env = std::getenv("MOTE_MATH_SAMPLES"))
    if (long long n = std::atoll(env); n > 0)
      return size_t(n);
  return size_t(1) << 20;
}

std::vector<float> denseF32Sample(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  uint64_t stride = (uint64_t(1) << 32) / n;
  std::vector<float> xs(n);
  for (size_t k = 0; k < n; ++k) {
    uint32_t bits = uint32_t(k * stride + (stride > 1 ? rng() % stride : 0));
    std::memcpy(&xs[k], &bits, 4);
  }
  return xs;
}

std::vector<double> mixedF64Sample(size_t n, double lo, double hi, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uni(lo, hi);
  std::vector<double> xs(n);
  for (size_t k = 0; k < n; ++k) {
    if (k % 2) {
      xs[k] = uni(rng);
    } else {
      uint64_t bits = rng();
      std::memcpy(&xs[k], &bits, 8);
    }
  }
  return xs;
}

} // namespace mote::test
