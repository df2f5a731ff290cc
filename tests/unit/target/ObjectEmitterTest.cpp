//===- ObjectEmitterTest.cpp - Optimising and emitting LLVM modules -------===//

#include "output/ObjectEmitter.h"
#include "target/Target.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <doctest/doctest.h>

using namespace mote;

namespace {

/// c[i] = a[i] + b[i] for i < n: a loop every target's vectoriser handles.
constexpr const char *kVectorAdd = R"(
define void @vadd(ptr noalias %a, ptr noalias %b, ptr noalias %c, i64 %n) {
entry:
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %done, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %pb = getelementptr inbounds float, ptr %b, i64 %i
  %pc = getelementptr inbounds float, ptr %c, i64 %i
  %x = load float, ptr %pa
  %y = load float, ptr %pb
  %s = fadd float %x, %y
  store float %s, ptr %pc
  %next = add nuw i64 %i, 1
  %end = icmp eq i64 %next, %n
  br i1 %end, label %done, label %loop
done:
  ret void
}
)";

struct Compiled {
  std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
};

Compiled parseFor(llvm::StringRef triple, llvm::StringRef cpu, llvm::StringRef features) {
  Compiled compiled;
  auto spec = target::resolveTarget(triple, cpu, features);
  REQUIRE(bool(spec));
  auto machine = target::createTargetMachine(*spec);
  REQUIRE(bool(machine));
  compiled.machine = std::move(*machine);
  llvm::SMDiagnostic diagnostic;
  compiled.module = llvm::parseAssemblyString(kVectorAdd, diagnostic, *compiled.context);
  REQUIRE(compiled.module);
  return compiled;
}

std::string emit(Compiled &compiled, output::EmitKind kind) {
  auto bytes = output::emitModule(*compiled.module, *compiled.machine, kind);
  REQUIRE_MESSAGE(bool(bytes), llvm::toString(bytes.takeError()));
  return *bytes;
}

} // namespace

TEST_CASE("objects are ELF for the requested architecture and define the function") {
  struct Case {
    const char *triple;
    llvm::Triple::ArchType arch;
  } cases[] = {{"x86_64-linux-gnu", llvm::Triple::x86_64},
               {"aarch64-linux-gnu", llvm::Triple::aarch64},
               {"aarch64-linux-android", llvm::Triple::aarch64},
               {"riscv64-linux-gnu", llvm::Triple::riscv64},
               {"thumbv7em-none-eabihf", llvm::Triple::thumb},
               {"thumbv8.1m.main-none-eabihf", llvm::Triple::thumb},
               {"riscv32-unknown-elf", llvm::Triple::riscv32}};
  for (const Case &c : cases) {
    CAPTURE(c.triple);
    Compiled compiled = parseFor(c.triple, "", "");
    output::optimizeModule(*compiled.module, *compiled.machine);
    std::string bytes = emit(compiled, output::EmitKind::Object);
    REQUIRE(bytes.size() > 4);
    CHECK(bytes.substr(0, 4) == "\x7f"
                                "ELF");
    auto object =
        llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(bytes, "model.o"));
    REQUIRE(bool(object));
    // ELF says "arm" for Thumb code; the machine is what the linker checks.
    llvm::Triple::ArchType arch = (*object)->getArch();
    CHECK((arch == c.arch || (c.arch == llvm::Triple::thumb && arch == llvm::Triple::arm)));
    bool found = false;
    for (const llvm::object::SymbolRef &symbol : (*object)->symbols()) {
      auto name = symbol.getName();
      if (name && *name == "vadd")
        found = true;
      else if (!name)
        llvm::consumeError(name.takeError());
    }
    CHECK(found);
  }
}

TEST_CASE("the O3 pipeline vectorises for NEON, RVV, SSE and AVX2") {
  struct Case {
    const char *triple, *cpu, *features, *vectorAdd;
  } cases[] = {{"aarch64-linux-gnu", "", "", "fadd\tv"},
               {"riscv64-linux-gnu", "", "+v", "vfadd.vv"},
               {"x86_64-linux-gnu", "", "", "addps\t%xmm"},
               {"x86_64-linux-gnu", "x86-64-v3", "", "vaddps\t(%r"},
               {"thumbv8.1m.main-none-eabihf", "", "", "vadd.f32\tq"}};
  for (const Case &c : cases) {
    CAPTURE(c.triple);
    CAPTURE(c.features);
    Compiled compiled = parseFor(c.triple, c.cpu, c.features);
    std::string before = emit(compiled, output::EmitKind::Assembly);
    CHECK(before.find(c.vectorAdd) == std::string::npos);
    output::optimizeModule(*compiled.module, *compiled.machine);
    std::string after = emit(compiled, output::EmitKind::Assembly);
    CHECK(after.find(c.vectorAdd) != std::string::npos);
  }
}

TEST_CASE("LLVM IR text carries the target's triple and data layout") {
  Compiled compiled = parseFor("riscv64-linux-gnu", "", "");
  std::string text = emit(compiled, output::EmitKind::LlvmIr);
  CHECK(text.find("define void @vadd(") != std::string::npos);
  CHECK(text.find("target triple = \"riscv64-unknown-linux-gnu\"") != std::string::npos);
  CHECK(text.find("target datalayout = \"e-m:e-p:64:64") != std::string::npos);
}

TEST_CASE("invalid IR is an error, not a crash") {
  Compiled compiled = parseFor("x86_64-linux-gnu", "", "");
  // A block without a terminator.
  llvm::Function *function = compiled.module->getFunction("vadd");
  REQUIRE(function);
  function->getEntryBlock().getTerminator()->eraseFromParent();
  auto bytes = output::emitModule(*compiled.module, *compiled.machine, output::EmitKind::Object);
  REQUIRE_FALSE(bool(bytes));
  CHECK(llvm::toString(bytes.takeError()).find("generated LLVM IR is invalid") !=
        std::string::npos);
}
