//===- ObjectEmitter.cpp - LLVM module to object, assembly or IR ----------===//

#include "output/ObjectEmitter.h"

#include "output/BackendWorkarounds.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

namespace mote::output {

namespace {

llvm::OptimizationLevel optimizationLevel(unsigned optLevel) {
  switch (optLevel) {
  case 0:
    return llvm::OptimizationLevel::O0;
  case 1:
    return llvm::OptimizationLevel::O1;
  case 2:
    return llvm::OptimizationLevel::O2;
  default:
    return llvm::OptimizationLevel::O3;
  }
}

/// Generated code calls nothing outside itself (no libm, no memcpy symbol a
/// microcontroller image might lack), so the optimiser must not turn loops
/// into library calls it would then have to import.
std::unique_ptr<llvm::TargetLibraryInfoImpl> freestandingLibraryInfo(const llvm::Module &module) {
  auto info = std::make_unique<llvm::TargetLibraryInfoImpl>(llvm::Triple(module.getTargetTriple()));
  info->disableAllFunctions();
  return info;
}

} // namespace

void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine, unsigned optLevel) {
  if (module.getDataLayout().isDefault())
    module.setDataLayout(machine.createDataLayout());
  if (module.getTargetTriple().empty())
    module.setTargetTriple(machine.getTargetTriple().str());

  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel >= 2;
  tuning.SLPVectorization = optLevel >= 2;
  // Generated loop nests are many and regular: full unrolling blew machine
  // scheduling up quadratically (90 s for a 3-D CNN) for little speed. Hot
  // kernels get hand-tiled code instead.
  tuning.LoopUnrolling = false;
  llvm::PassBuilder builder(&machine, tuning);
  auto libraryInfo = freestandingLibraryInfo(module);
  functions.registerPass([&] { return llvm::TargetLibraryAnalysis(*libraryInfo); });
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);

  llvm::OptimizationLevel level = optimizationLevel(optLevel);
  llvm::ModulePassManager passes = level == llvm::OptimizationLevel::O0
                                       ? builder.buildO0DefaultPipeline(level)
                                       : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, modules);
  // Last, so that no later canonicalisation undoes it.
  legalizeMveFloatCompares(module, machine);
  widenHalfVectorArithmetic(module, machine);
  selectRoundingConversions(module, machine);
  selectBf16RoundingWithMasks(module, machine);
  quietBf16NansWithFixups(module, machine);
  narrowHighHalvesWithPermutes(module, machine);
}

llvm::Expected<std::string> emitModule(llvm::Module &module, llvm::TargetMachine &machine,
                                       EmitKind kind) {
  if (module.getDataLayout().isDefault())
    module.setDataLayout(machine.createDataLayout());
  if (module.getTargetTriple().empty())
    module.setTargetTriple(machine.getTargetTriple().str());
  std::string verifierMessage;
  llvm::raw_string_ostream verifierStream(verifierMessage);
  if (llvm::verifyModule(module, &verifierStream))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "generated LLVM IR is invalid: " + verifierStream.str());

  if (kind == EmitKind::LlvmIr) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os, nullptr);
    return std::move(os.str());
  }

  llvm::SmallString<0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager codegen;
  auto libraryInfo = freestandingLibraryInfo(module);
  codegen.add(new llvm::TargetLibraryInfoWrapperPass(*libraryInfo));
  llvm::CodeGenFileType fileType =
      kind == EmitKind::Object ? llvm::CGFT_ObjectFile : llvm::CGFT_AssemblyFile;
  if (machine.addPassesToEmitFile(codegen, os, nullptr, fileType))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "LLVM cannot emit %s for %s",
                                   kind == EmitKind::Object ? "objects" : "assembly",
                                   machine.getTargetTriple().str().c_str());
  codegen.run(module);
  return std::string(bytes.str());
}

} // namespace mote::output
