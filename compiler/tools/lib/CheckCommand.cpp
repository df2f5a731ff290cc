//===- CheckCommand.cpp - motec check -------------------------------------===//

#include "Commands.h"
#include "ModuleFile.h"
#include "ModuleSummary.h"

namespace mote::tools {

ExitCode runCheck(const CheckOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &errs) {
  ExitCode failure;
  auto module = loadModuleReportingErrors(options.modulePath, errs, &failure);
  if (!module)
    return failure;
  printModuleSummary(*module, out);
  return ExitOk;
}

} // namespace mote::tools
