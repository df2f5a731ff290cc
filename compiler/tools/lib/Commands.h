//===- Commands.h - The motec subcommands -----------------------*- C++ -*-===//
///
/// \file
/// Each subcommand is a function from its options to an ExitCode, writing
/// results to `out` and diagnostics to `errs`, so tests can run them without a
/// process. motec.cpp only parses the command line.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_COMMANDS_H
#define MOTE_TOOLS_COMMANDS_H

#include "ExitCodes.h"
#include "InputGenerator.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mote::tools {

/// `motec check model.hlo`: parse, verify, print a summary.
struct CheckOptions {
  std::string modulePath;
};
ExitCode runCheck(const CheckOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &errs);

/// `motec print model.hlo`: parse, verify, print the module as HLO text.
struct PrintOptions {
  std::string modulePath;
};
ExitCode runPrint(const PrintOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &errs);

/// `motec eval model.hlo [--input a.npy]... [--output r.npy]...`.
struct EvalOptions {
  std::string modulePath;
  std::vector<std::string> inputPaths;  ///< one per entry parameter, or none
  std::vector<std::string> outputPaths; ///< one per result leaf, or none
  uint64_t seed = kDefaultInputSeed;    ///< for generated inputs
  bool printFull = false;
  uint64_t maxWhileIterations = uint64_t(1) << 31;
};
ExitCode runEval(const EvalOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &errs);

} // namespace mote::tools

#endif // MOTE_TOOLS_COMMANDS_H
