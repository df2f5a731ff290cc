//===- PrintCommand.cpp - motec print -------------------------------------===//

#include "Commands.h"
#include "ModuleFile.h"

#include "hlo/Printer.h"

namespace mote::tools {

ExitCode runPrint(const PrintOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &errs) {
  ExitCode failure;
  auto module = loadModuleReportingErrors(options.modulePath, errs, &failure);
  if (!module)
    return failure;
  hlo::printModule(*module, out);
  return ExitOk;
}

} // namespace mote::tools
