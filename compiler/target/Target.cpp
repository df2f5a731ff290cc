//===- Target.cpp - Resolving a target and its TargetMachine --------------===//

#include "target/Target.h"

#include "mote/cpu_features.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/CodeGen/TargetLowering.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>
#include <unistd.h>

namespace mote::target {

namespace {

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

void initializeLlvmTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

std::string joined(llvm::ArrayRef<llvm::StringRef> items) {
  std::string text;
  for (llvm::StringRef item : items) {
    if (!text.empty())
      text += ", ";
    text += item.str();
  }
  return text;
}

/// "+a,b,-c" as {"+a", "+b", "-c"}: a bare name means enable.
llvm::SmallVector<std::string, 8> splitFeatures(llvm::StringRef features) {
  llvm::SmallVector<llvm::StringRef, 8> parts;
  features.split(parts, ',', -1, /*KeepEmpty=*/false);
  llvm::SmallVector<std::string, 8> result;
  for (llvm::StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue;
    if (part.front() != '+' && part.front() != '-')
      result.push_back("+" + part.str());
    else
      result.push_back(part.str());
  }
  return result;
}

/// Defaults first, then the user's choices; a user's "+x"/"-x" replaces the
/// default for x, so "-c" removes a default "+c".
std::string mergeFeatures(llvm::StringRef defaults, llvm::StringRef user) {
  llvm::SmallVector<std::string, 16> merged = splitFeatures(defaults);
  for (const std::string &feature : splitFeatures(user)) {
    llvm::StringRef name = llvm::StringRef(feature).drop_front();
    llvm::erase_if(merged, [&](const std::string &existing) {
      return llvm::StringRef(existing).drop_front() == name;
    });
    merged.push_back(feature);
  }
  std::string text;
  for (const std::string &feature : merged) {
    if (!text.empty())
      text += ',';
    text += feature;
  }
  return text;
}

/// LLVM warns on stderr about a feature it does not know; motec reports its
/// own error instead, so the probe runs with stderr pointed at /dev/null.
class QuietStderr {
public:
  QuietStderr() {
    llvm::errs().flush();
    saved_ = dup(STDERR_FILENO);
    int null = -1;
    if (saved_ >= 0 &&
        !llvm::sys::fs::openFileForWrite("/dev/null", null, llvm::sys::fs::CD_OpenExisting)) {
      dup2(null, STDERR_FILENO);
      close(null);
    }
  }
  ~QuietStderr() {
    llvm::errs().flush();
    if (saved_ >= 0) {
      dup2(saved_, STDERR_FILENO);
      close(saved_);
    }
  }

private:
  int saved_ = -1;
};

const llvm::Target *lookupLlvmTarget(llvm::StringRef triple, std::string &message) {
  initializeLlvmTargets();
  return llvm::TargetRegistry::lookupTarget(triple.str(), message);
}

std::unique_ptr<llvm::MCSubtargetInfo> subtargetInfo(const llvm::Target &target,
                                                     llvm::StringRef triple, llvm::StringRef cpu,
                                                     llvm::StringRef features) {
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      target.createMCSubtargetInfo(triple.str(), cpu, features));
}

/// Whether LLVM's target knows `name`: enabling and disabling a known feature
/// always differ in its own bit, an unknown one is ignored both ways.
bool isKnownFeature(const llvm::Target &target, llvm::StringRef triple, llvm::StringRef cpu,
                    llvm::StringRef name) {
  QuietStderr quiet;
  auto enabled = subtargetInfo(target, triple, cpu, ("+" + name).str());
  auto disabled = subtargetInfo(target, triple, cpu, ("-" + name).str());
  return enabled && disabled && enabled->getFeatureBits() != disabled->getFeatureBits();
}

llvm::Expected<std::pair<std::string, std::string>> hostCpuAndFeatures() {
  std::string features;
  llvm::StringMap<bool> hostFeatures;
  if (llvm::sys::getHostCPUFeatures(hostFeatures)) {
    // Sorted so the spelling is the same from run to run.
    std::vector<std::string> names;
    for (const auto &entry : hostFeatures)
      names.push_back((entry.getValue() ? "+" : "-") + entry.getKey().str());
    llvm::sort(names);
    for (const std::string &name : names)
      features += (features.empty() ? "" : ",") + name;
  }
  return std::make_pair(llvm::sys::getHostCPUName().str(), features);
}

} // namespace

llvm::Expected<TargetSpec> resolveTarget(llvm::StringRef triple, llvm::StringRef cpu,
                                         llvm::StringRef features) {
  const TargetInfo *info = findTarget(triple);
  if (!info) {
    std::vector<llvm::StringRef> triples;
    for (const TargetInfo &candidate : supportedTargets())
      triples.push_back(candidate.triple);
    return error("unsupported target '" + triple + "' (supported: " + joined(triples) + ")");
  }
  TargetSpec spec;
  spec.info = info;
  spec.triple = info->triple.str();
  spec.cpu = cpu.empty() ? info->defaultCpu.str() : cpu.str();
  if (!llvm::is_contained(info->cpus, llvm::StringRef(spec.cpu)))
    return error("unsupported CPU '" + spec.cpu + "' for " + spec.triple +
                 " (supported: " + joined(info->cpus) + ")");
  std::string defaults = info->defaultFeatures.str();
  if (spec.cpu == "native") {
    if (spec.triple != hostTriple())
      return error("--cpu=native is only for the build machine's triple (" + hostTriple() + ")");
    auto host = hostCpuAndFeatures();
    if (!host)
      return host.takeError();
    spec.cpu = host->first;
    defaults = host->second;
  }
  if (features == "host") {
    // The build machine's features with the target's CPU (--cpu=native also
    // takes its CPU's scheduling model).
    if (spec.triple != hostTriple())
      return error("--features=host is only for the build machine's triple (" + hostTriple() + ")");
    auto host = hostCpuAndFeatures();
    if (!host)
      return host.takeError();
    features = "";
    defaults = mergeFeatures(defaults, host->second);
  }
  spec.features = mergeFeatures(defaults, features);

  std::string message;
  const llvm::Target *target = lookupLlvmTarget(spec.triple, message);
  if (!target)
    return error("LLVM has no backend for " + spec.triple + ": " + message);
  {
    QuietStderr quiet;
    auto probe = subtargetInfo(*target, spec.triple, spec.cpu, "");
    if (!probe || !probe->isCPUStringValid(spec.cpu))
      return error("LLVM does not know CPU '" + spec.cpu + "' for " + spec.triple);
  }
  for (const std::string &feature : splitFeatures(spec.features)) {
    llvm::StringRef name = llvm::StringRef(feature).drop_front();
    if (!isKnownFeature(*target, spec.triple, spec.cpu, name))
      return error(
          "unknown CPU feature '" + name + "' for " + spec.triple +
          " (LLVM's names, as in clang's -mattr; e.g. '" +
          (info->defaultFeatures.empty() ? llvm::StringRef("+feature") : info->defaultFeatures) +
          "')");
  }
  return spec;
}

bool hasFeature(const TargetSpec &spec, llvm::StringRef feature) {
  feature.consume_front("+");
  std::string message;
  const llvm::Target *target = lookupLlvmTarget(spec.triple, message);
  if (!target || !isKnownFeature(*target, spec.triple, spec.cpu, feature))
    return false;
  auto info = subtargetInfo(*target, spec.triple, spec.cpu, spec.features);
  return info && info->checkFeatures(("+" + feature).str());
}

unsigned riscvVectorBits(const TargetSpec &spec) {
  if (!llvm::Triple(spec.triple).isRISCV() || !hasFeature(spec, "v"))
    return 0;
  for (unsigned bits : {1024u, 512u, 256u})
    if (hasFeature(spec, ("zvl" + llvm::Twine(bits) + "b").str()))
      return bits;
  return 128;
}

bool hasFusedMultiplyAdd(const TargetSpec &spec, unsigned bits) {
  auto machine = createTargetMachine(spec);
  if (!machine) {
    llvm::consumeError(machine.takeError());
    return false;
  }
  // The subtarget of a function without attributes is the machine's own.
  llvm::LLVMContext context;
  llvm::Module module("fma-probe", context);
  llvm::Function *probe =
      llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(context), false),
                             llvm::GlobalValue::ExternalLinkage, "probe", module);
  const llvm::TargetLowering *lowering = (*machine)->getSubtargetImpl(*probe)->getTargetLowering();
  return lowering &&
         lowering->isOperationLegal(llvm::ISD::FMA, bits == 64 ? llvm::MVT::f64 : llvm::MVT::f32);
}

bool hasHalfConversions(const TargetSpec &spec) {
  llvm::Triple triple(spec.triple);
  if (triple.isX86())
    return hasFeature(spec, "f16c");
  return triple.isAArch64() && hasFeature(spec, "fp-armv8");
}

bool hasHalfArithmetic(const TargetSpec &spec) {
  return llvm::Triple(spec.triple).isAArch64() && hasFeature(spec, "fullfp16");
}

bool convertsHalfElementwise(const TargetSpec &spec) {
  return hasHalfArithmetic(spec) || (llvm::Triple(spec.triple).isX86() && hasHalfConversions(spec));
}

bool hasHalfMultiplyAdd(const TargetSpec &spec) {
  llvm::Triple triple(spec.triple);
  if (triple.isAArch64())
    return hasFeature(spec, "fullfp16");
  return (triple.isARM() || triple.isThumb()) && hasFeature(spec, "mve.fp");
}

bool hasBf16DotProduct(const TargetSpec &spec) {
  return llvm::Triple(spec.triple).isAArch64() && hasFeature(spec, "bf16");
}

llvm::StringRef abiName(const TargetSpec &spec) {
  llvm::Triple triple(spec.triple);
  if (triple.isRISCV64())
    return hasFeature(spec, "d") ? "lp64d" : hasFeature(spec, "f") ? "lp64f" : "lp64";
  if (triple.isRISCV32())
    return hasFeature(spec, "d") ? "ilp32d" : hasFeature(spec, "f") ? "ilp32f" : "ilp32";
  return "";
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> createTargetMachine(const TargetSpec &spec) {
  std::string message;
  const llvm::Target *target = lookupLlvmTarget(spec.triple, message);
  if (!target)
    return error("LLVM has no backend for " + spec.triple + ": " + message);
  llvm::Triple triple(llvm::Triple::normalize(spec.triple));
  llvm::TargetOptions options;
  options.MCOptions.ABIName = abiName(spec).str();
  if (llvm::StringRef(spec.triple).ends_with("eabihf"))
    options.FloatABIType = llvm::FloatABI::Hard; // else GNU ld refuses to link with hard-float code
  // Linux code is PIC (the cross GCCs link PIE by default). On a
  // microcontroller, ROPI keeps code and constants PC-relative without a
  // GOT; RV32 medany addressing is PC-relative already.
  llvm::Reloc::Model reloc = llvm::Reloc::PIC_;
  std::optional<llvm::CodeModel::Model> codeModel;
  if (spec.info && spec.info->bareMetal) {
    reloc = triple.isARM() || triple.isThumb() ? llvm::Reloc::ROPI : llvm::Reloc::Static;
    if (triple.isRISCV())
      codeModel = llvm::CodeModel::Medium;
  }
  // "thumbv7em-none-eabihf" names no OS; normalised, LLVM reads eabihf as
  // the environment (the AAPCS-VFP rules hang on it).
  std::unique_ptr<llvm::TargetMachine> machine(
      target->createTargetMachine(triple.str(), spec.cpu, spec.features, options, reloc, codeModel,
                                  llvm::CodeGenOpt::Aggressive));
  if (!machine)
    return error("LLVM cannot create a target machine for " + spec.triple + " (cpu " + spec.cpu +
                 ")");
  return machine;
}

void setLevelTuning(const TargetSpec &spec, llvm::Module &module) {
  if (!llvm::Triple(spec.triple).isX86() || !llvm::StringRef(spec.cpu).starts_with("x86-64-v"))
    return;
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      function.addFnAttr("tune-cpu", "x86-64");
}

std::string requiredFeatures(const TargetSpec &spec) {
  llvm::Triple triple(spec.triple);
  const char *detectable = nullptr;
  if (triple.getArch() == llvm::Triple::x86_64)
    detectable = MOTE_CPU_FEATURES_X86_64;
  else if (triple.isAArch64())
    detectable = MOTE_CPU_FEATURES_AARCH64;
  else if (triple.isRISCV64())
    detectable = MOTE_CPU_FEATURES_RISCV64;
  std::string required;
  auto append = [&](llvm::StringRef feature) {
    required += (required.empty() ? "" : ",") + feature.str();
  };
  if (!detectable || (spec.info && spec.info->bareMetal)) {
    for (const std::string &feature : splitFeatures(spec.features))
      if (llvm::StringRef(feature).starts_with("+"))
        append(feature);
    return required;
  }
  llvm::SmallVector<llvm::StringRef, 24> names;
  llvm::StringRef(detectable).split(names, ',');
  for (llvm::StringRef name : names)
    if (hasFeature(spec, name))
      append(("+" + name).str());
  return required;
}

unsigned preferredAlignment(const TargetSpec &spec) {
  llvm::Triple triple(spec.triple);
  unsigned alignment = 16; // SSE, NEON, MVE, RVV at VLEN 128; the floor for MCUs too
  if (triple.isX86()) {
    if (hasFeature(spec, "avx512f"))
      alignment = 64;
    else if (hasFeature(spec, "avx2") || hasFeature(spec, "avx"))
      alignment = 32;
  }
  return alignment;
}

} // namespace mote::target
