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
#include "ParameterBinding.h"

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

/// The target flags `motec compile`, `run`, `report` and `eval` share.
struct TargetOptions {
  std::string triples; ///< comma-separated; empty means the build machine's
  std::string cpu;
  std::string features;
  bool fusion = true; ///< fuse producers into consumers (off to compare)
  bool nativeHalfSums = false; ///< f16 dots sum in f16 where the target can
};

/// `motec eval model.hlo [--input a.npy]... [--output r.npy]... [--target=T]`.
struct EvalOptions {
  std::string modulePath;
  InterfaceFlags interface;             ///< --params, --outputs
  std::vector<std::string> inputPaths;  ///< one per entry parameter, or none
  std::vector<std::string> outputPaths; ///< one per result leaf, or none
  uint64_t seed = kDefaultInputSeed;    ///< for generated inputs
  bool printFull = false;
  uint64_t maxWhileIterations = uint64_t(1) << 31;
  uint64_t maxLoopInstructions = uint64_t(1) << 28; ///< EvaluatorOptions::maxLoopInstructions
  std::string saveInputsDir;                        ///< if set, arguments go to <dir>/input<N>.npy
  /// One target (none: the build machine's, as for `motec run`): dots and
  /// convolutions sum the way code compiled for it does.
  TargetOptions target;
};
ExitCode runEval(const EvalOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &errs);

/// `motec compile model.hlo --target=T -o out [--emit=obj|asm|llvm|hlo|header]`.
/// Without --emit it writes out.o and out.h; with it, the one kind of output
/// to `out` exactly ("-" or no -o: standard output, except for objects).
struct CompileCommandOptions {
  std::string modulePath;
  InterfaceFlags interface; ///< --params, --outputs
  TargetOptions target;
  std::string name;       ///< symbol prefix; empty: from the module's name
  std::string outputPath; ///< required without --emit
  std::string emit;       ///< "", "obj", "asm", "llvm", "hlo", "header" or "package"
  /// Packages only: write the weights to this file instead of the package.
  std::string weightsFile;
};
ExitCode runCompile(const CompileCommandOptions &options, llvm::raw_ostream &out,
                    llvm::raw_ostream &errs);

/// `motec report model.hlo [--target=T] [--json] [--graph=g.svg]
/// [--memory=m.svg]`: ops, the memory plan, constants, per-target object
/// sizes, and pictures of the graph and the plan (ReportPictures.h).
struct ReportOptions {
  std::string modulePath;
  InterfaceFlags interface; ///< --params, --outputs
  TargetOptions target;     ///< empty triples: no per-target sizes
  bool json = false;
  std::string graphPath;  ///< the computation after the passes (.svg, .png or .dot)
  std::string memoryPath; ///< the memory plan (.svg)
};
ExitCode runReport(const ReportOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &errs);

/// `motec run model.hlo --target=T [--input a.npy]... [--output r.npy]...`:
/// compiles, links with the run driver, runs natively or under QEMU, and
/// prints the result exactly as `motec eval` does.
struct RunOptions {
  std::string modulePath;
  InterfaceFlags interface; ///< --params, --outputs
  TargetOptions target;
  std::vector<std::string> inputPaths;
  std::vector<std::string> outputPaths;
  uint64_t seed = kDefaultInputSeed;
  bool printFull = false;
  unsigned timeoutSeconds = 600;
  std::string keepDir; ///< keep the work files here
};
ExitCode runRun(const RunOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &errs);

/// `motec targets`: the triples, CPUs, default features and runners, and
/// whether this machine has the tools to run each.
ExitCode runTargets(llvm::raw_ostream &out);

} // namespace mote::tools

#endif // MOTE_TOOLS_COMMANDS_H
