//===- TargetTest.cpp - Triples, CPUs, features, TargetMachines -----------===//

#include "target/Target.h"

#include "llvm/MC/MCSubtargetInfo.h"

#include <doctest/doctest.h>

using namespace mote;
using namespace mote::target;

namespace {

std::string errorText(llvm::Error error) { return llvm::toString(std::move(error)); }

} // namespace

TEST_CASE("every documented triple is supported, in order, with sane tool choices") {
  std::vector<std::string> triples;
  for (const TargetInfo &info : supportedTargets())
    triples.push_back(info.triple.str());
  CHECK(triples == std::vector<std::string>{"x86_64-linux-gnu", "aarch64-linux-gnu",
                                            "aarch64-linux-android", "riscv64-linux-gnu",
                                            "thumbv7em-none-eabihf", "thumbv8.1m.main-none-eabihf",
                                            "riscv32-unknown-elf"});
  for (const TargetInfo &info : supportedTargets()) {
    CAPTURE(info.triple.str());
    CHECK(llvm::is_contained(info.cpus, info.defaultCpu));
    // Anything that runs needs a C compiler to link the driver, and an emulator unless native.
    if (info.runner != RunnerKind::None)
      CHECK(!info.cCompiler.empty());
    CHECK(info.emulator.empty() ==
          (info.runner == RunnerKind::Native || info.runner == RunnerKind::None));
    CHECK(info.bareMetal == (info.runner == RunnerKind::QemuSystem));
  }
  CHECK(findTarget("aarch64-linux-gnu")->runner == RunnerKind::QemuUser);
  CHECK(findTarget("aarch64-linux-android")->runner == RunnerKind::None);
  CHECK(findTarget("mips-linux-gnu") == nullptr);
  CHECK(hostTriple() == "x86_64-linux-gnu");
}

TEST_CASE("each triple resolves with its defaults and gets a TargetMachine") {
  for (const TargetInfo &info : supportedTargets()) {
    CAPTURE(info.triple.str());
    auto spec = resolveTarget(info.triple, "", "");
    REQUIRE_MESSAGE(bool(spec), errorText(spec.takeError()));
    CHECK(spec->cpu == info.defaultCpu.str());
    CHECK(spec->features == info.defaultFeatures.str());
    for (llvm::StringRef cpu : info.cpus) {
      if (cpu == "native")
        continue;
      auto other = resolveTarget(info.triple, cpu, "");
      REQUIRE_MESSAGE(bool(other), errorText(other.takeError()));
      auto machine = createTargetMachine(*other);
      REQUIRE_MESSAGE(bool(machine), errorText(machine.takeError()));
      CHECK((*machine)->getTargetCPU() == cpu);
    }
  }
}

TEST_CASE("target machines: relocation model, float ABI and RISC-V ABI names") {
  auto linux64 = resolveTarget("aarch64-linux-gnu", "", "");
  REQUIRE(bool(linux64));
  auto machine = createTargetMachine(*linux64);
  REQUIRE(bool(machine));
  CHECK((*machine)->getRelocationModel() == llvm::Reloc::PIC_);

  auto m4 = resolveTarget("thumbv7em-none-eabihf", "cortex-m4", "");
  REQUIRE(bool(m4));
  auto m4Machine = createTargetMachine(*m4);
  REQUIRE(bool(m4Machine));
  CHECK((*m4Machine)->Options.FloatABIType == llvm::FloatABI::Hard);
  CHECK((*m4Machine)->getRelocationModel() == llvm::Reloc::ROPI);
  CHECK((*m4Machine)->getTargetTriple().getEnvironment() == llvm::Triple::EABIHF);

  auto rv64 = resolveTarget("riscv64-linux-gnu", "", "");
  REQUIRE(bool(rv64));
  CHECK(abiName(*rv64) == "lp64d");
  auto rv64Machine = createTargetMachine(*rv64);
  REQUIRE(bool(rv64Machine));
  CHECK((*rv64Machine)->Options.MCOptions.ABIName == "lp64d");

  auto rv32 = resolveTarget("riscv32-unknown-elf", "", "");
  REQUIRE(bool(rv32));
  CHECK(abiName(*rv32) == "ilp32");
  auto rv32f = resolveTarget("riscv32-unknown-elf", "", "+f");
  REQUIRE(bool(rv32f));
  CHECK(abiName(*rv32f) == "ilp32f");
  CHECK(abiName(*linux64).empty());
}

TEST_CASE("features: defaults merged, user choices override, bare names enable") {
  auto rvv = resolveTarget("riscv64-linux-gnu", "", "+v");
  REQUIRE(bool(rvv));
  CHECK(rvv->features == "+m,+a,+f,+d,+c,+v");
  CHECK(hasFeature(*rvv, "v"));
  CHECK(hasFeature(*rvv, "+d"));

  auto noCompressed = resolveTarget("riscv64-linux-gnu", "", "-c");
  REQUIRE(bool(noCompressed));
  CHECK(noCompressed->features == "+m,+a,+f,+d,-c");
  CHECK_FALSE(hasFeature(*noCompressed, "c"));

  auto bare = resolveTarget("aarch64-linux-gnu", "", "dotprod, +fullfp16");
  REQUIRE(bool(bare));
  CHECK(bare->features == "+neon,+dotprod,+fullfp16");

  // Features a CPU implies count too.
  auto v3 = resolveTarget("x86_64-linux-gnu", "x86-64-v3", "");
  REQUIRE(bool(v3));
  CHECK(hasFeature(*v3, "avx2"));
  auto base = resolveTarget("x86_64-linux-gnu", "", "");
  REQUIRE(bool(base));
  CHECK_FALSE(hasFeature(*base, "avx2"));
  CHECK_FALSE(hasFeature(*base, "no-such-feature"));
}

TEST_CASE("bad triples, CPUs and features are errors naming what is supported") {
  auto triple = resolveTarget("mips-linux-gnu", "", "");
  REQUIRE_FALSE(bool(triple));
  std::string message = errorText(triple.takeError());
  CHECK(message.find("unsupported target 'mips-linux-gnu'") != std::string::npos);
  CHECK(message.find("riscv32-unknown-elf") != std::string::npos);

  auto cpu = resolveTarget("thumbv7em-none-eabihf", "cortex-a53", "");
  REQUIRE_FALSE(bool(cpu));
  message = errorText(cpu.takeError());
  CHECK(message.find("unsupported CPU 'cortex-a53'") != std::string::npos);
  CHECK(message.find("cortex-m4, cortex-m7") != std::string::npos);

  auto feature = resolveTarget("aarch64-linux-gnu", "", "+avx2");
  REQUIRE_FALSE(bool(feature));
  CHECK(errorText(feature.takeError()).find("unknown CPU feature 'avx2'") != std::string::npos);

  // native only means something for the machine motec runs on.
  auto native = resolveTarget("aarch64-linux-gnu", "native", "");
  REQUIRE_FALSE(bool(native));
  llvm::consumeError(native.takeError());
}

TEST_CASE("native resolves to the host CPU") {
  auto native = resolveTarget("x86_64-linux-gnu", "native", "");
  REQUIRE_MESSAGE(bool(native), errorText(native.takeError()));
  CHECK(native->cpu != "native");
  CHECK(native->features.find("+sse2") != std::string::npos);
  CHECK(bool(createTargetMachine(*native)));
}

TEST_CASE("preferred alignment follows the widest vector register, never below 16") {
  auto alignmentOf = [](llvm::StringRef triple, llvm::StringRef cpu, llvm::StringRef features) {
    auto spec = resolveTarget(triple, cpu, features);
    REQUIRE(bool(spec));
    return preferredAlignment(*spec);
  };
  CHECK(alignmentOf("x86_64-linux-gnu", "x86-64", "") == 16);
  CHECK(alignmentOf("x86_64-linux-gnu", "x86-64-v3", "") == 32);
  CHECK(alignmentOf("x86_64-linux-gnu", "x86-64", "+avx2") == 32);
  CHECK(alignmentOf("x86_64-linux-gnu", "x86-64-v4", "") == 64);
  CHECK(alignmentOf("aarch64-linux-gnu", "", "") == 16);
  CHECK(alignmentOf("riscv64-linux-gnu", "", "+v") == 16);
  CHECK(alignmentOf("thumbv7em-none-eabihf", "", "") == 16);
  CHECK(alignmentOf("riscv32-unknown-elf", "", "") == 16);
}
