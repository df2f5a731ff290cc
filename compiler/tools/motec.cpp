//===- motec.cpp - The Mote compiler's command-line driver ----------------===//
///
/// \file
/// Parses the command line and hands over to a subcommand in lib/.
///
//===----------------------------------------------------------------------===//

#include "lib/Commands.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"

#ifndef MOTE_VERSION
#define MOTE_VERSION "unknown"
#endif

using namespace llvm;
using namespace mote::tools;

namespace {

cl::OptionCategory motecCategory("motec options");

cl::SubCommand checkCommand("check", "Parse and verify an HLO module; print a summary of it");
cl::SubCommand evalCommand("eval", "Run an HLO module with the reference evaluator; print the "
                                   "result and optionally write it to .npy files");
cl::SubCommand printCommand("print", "Parse and verify an HLO module; print it back as HLO text");
cl::SubCommand compileCommand("compile", "Compile an HLO module for one target into an object file "
                                         "and a C/C++ header (or assembly, LLVM IR), or for one "
                                         "or more targets into a .mote package");
cl::SubCommand runSubcommand("run", "Compile an HLO module for a target, run it natively or under "
                                    "QEMU, and print the result as eval does");
cl::SubCommand reportCommand("report", "Report a module's ops, memory plan (arena against its "
                                       "lower bound), constants and per-target code size");
cl::SubCommand targetsCommand("targets", "List the supported targets, CPUs, features and runners");

cl::opt<std::string> modulePath(cl::Positional, cl::Required, cl::desc("<model.hlo | ->"),
                                cl::sub(checkCommand), cl::sub(evalCommand), cl::sub(printCommand),
                                cl::sub(compileCommand), cl::sub(runSubcommand),
                                cl::sub(reportCommand), cl::cat(motecCategory));

cl::list<std::string>
    inputPaths("input",
               cl::desc("A .npy file for the next entry parameter (-i for short; give one per "
                        "parameter, in order; bf16 parameters read float32)"),
               cl::value_desc("file.npy"), cl::sub(evalCommand), cl::sub(runSubcommand),
               cl::cat(motecCategory));
cl::alias inputAlias("i", cl::desc("Alias for --input"), cl::aliasopt(inputPaths),
                     cl::cat(motecCategory));
cl::list<std::string>
    outputPaths("output",
                cl::desc("Write the next array of the result (-o for short; flattened tuple "
                         "order) to this .npy file; give one per array"),
                cl::value_desc("file.npy"), cl::sub(evalCommand), cl::sub(runSubcommand),
                cl::cat(motecCategory));
cl::alias outputAlias("o", cl::desc("Alias for --output"), cl::aliasopt(outputPaths),
                      cl::cat(motecCategory));
cl::opt<uint64_t> seed("seed",
                       cl::desc("Seed for the inputs generated when no --input is given: floats "
                                "uniform in [-1,1), integers uniform in [0,8), pred random"),
                       cl::init(kDefaultInputSeed), cl::sub(evalCommand), cl::sub(runSubcommand),
                       cl::cat(motecCategory));
cl::opt<bool> printFull("print-full",
                        cl::desc("Print every element of the result (large arrays are "
                                 "summarised by default)"),
                        cl::sub(evalCommand), cl::sub(runSubcommand), cl::cat(motecCategory));
cl::opt<std::string> saveInputs("save-inputs",
                              cl::desc("Also write the arguments (given or generated) to "
                                       "<dir>/input<N>.npy, one per array in flattened tuple "
                                       "order, as mote-run takes them"),
                              cl::value_desc("dir"), cl::sub(evalCommand), cl::cat(motecCategory));
cl::opt<uint64_t> maxWhileIterations("max-while-iterations",
                                     cl::desc("Fail when a while loop runs longer than this"),
                                     cl::init(uint64_t(1) << 31), cl::sub(evalCommand),
                                     cl::cat(motecCategory));

cl::opt<std::string> targetTriples("target",
                                   cl::desc("Target triple(s), comma-separated (default: this "
                                            "machine's; see 'motec targets'). eval computes dot "
                                            "and convolution sums as code for this target does"),
                                   cl::value_desc("triple"), cl::sub(evalCommand),
                                   cl::sub(compileCommand), cl::sub(runSubcommand),
                                   cl::sub(reportCommand), cl::cat(motecCategory));
cl::opt<std::string> targetCpu("cpu", cl::desc("Target CPU (default: the target's default)"),
                               cl::value_desc("cpu"), cl::sub(evalCommand), cl::sub(compileCommand),
                               cl::sub(runSubcommand), cl::sub(reportCommand),
                               cl::cat(motecCategory));
cl::opt<std::string> targetFeatures("features",
                                    cl::desc("CPU features added to the target's defaults, "
                                             "LLVM-style: +v,-c"),
                                    cl::value_desc("+f,-g"), cl::sub(evalCommand),
                                    cl::sub(compileCommand), cl::sub(runSubcommand),
                                    cl::sub(reportCommand), cl::cat(motecCategory));
cl::opt<bool> fusion("fusion",
                     cl::desc("Fuse producers into the consumers that read them (default on; "
                              "--fusion=false stores every value, for comparison)"),
                     cl::init(true), cl::sub(compileCommand), cl::sub(runSubcommand),
                     cl::sub(reportCommand), cl::cat(motecCategory));
cl::opt<bool> nativeHalfSums(
    "native-half-sums",
    cl::desc("Sum f16 dots and convolutions in f16 where the target multiplies and adds f16 "
             "vectors (AArch64 +fullfp16, Cortex-M55 Helium): faster, not bit-exact with eval, "
             "within K * 2^-11 * sum|a*b| of the exact sum of K products (default off: f32 sums, "
             "rounded once)"),
    cl::init(false), cl::sub(compileCommand), cl::sub(runSubcommand), cl::sub(reportCommand),
    cl::cat(motecCategory));
cl::opt<bool> reportJson("json", cl::desc("Print the report as JSON"), cl::sub(reportCommand),
                         cl::cat(motecCategory));
cl::opt<std::string> compileOutput("o",
                                   cl::desc("Output: <path>.mote writes a package (one code "
                                            "object per --target); any other <path> writes "
                                            "<path>.o and <path>.h; with --emit, exactly <path> "
                                            "('-' for standard output, except packages)"),
                                   cl::value_desc("path"), cl::sub(compileCommand),
                                   cl::cat(motecCategory));
cl::opt<std::string> symbolName("name",
                                cl::desc("Symbol prefix: <name>_entry, <name>_model, class <name> "
                                         "(default: from the HloModule name)"),
                                cl::value_desc("identifier"), cl::sub(compileCommand),
                                cl::cat(motecCategory));
cl::opt<std::string> emitKind("emit",
                              cl::desc("Emit one kind of output instead of object + header: "
                                       "obj, asm, llvm, hlo (after the passes), header or "
                                       "package"),
                              cl::value_desc("kind"), cl::sub(compileCommand),
                              cl::cat(motecCategory));
cl::opt<unsigned> runTimeout("timeout",
                             cl::desc("Stop the compiled model after this many seconds (0: no "
                                      "limit)"),
                             cl::init(600), cl::sub(runSubcommand), cl::cat(motecCategory));
cl::opt<std::string> keepTemps("keep-temps",
                               cl::desc("Keep the driver, object and raw input/output files in "
                                        "this directory"),
                               cl::value_desc("dir"), cl::sub(runSubcommand),
                               cl::cat(motecCategory));

cl::extrahelp exitCodeHelp(R"(
EXIT CODES:
  0  success
  1  invalid input: bad HLO, bad .npy file, inputs that do not fit the parameters,
     or an evaluation that fails on the given values (e.g. a runaway while loop)
  2  bad command line (unknown command or option, missing file argument)
  3  valid input that Mote does not support (multi-device ops, elided constants,
     unsupported element types, ops code generation lacks), or a missing cross
     compiler or emulator for 'motec run' (the message names the Debian package)
  4  internal error (a bug in Mote, or generated code that failed when run)
)");

constexpr StringRef kCommands = "check, eval, print, compile, run, report, targets";

void printVersion(raw_ostream &os) { os << "motec " << MOTE_VERSION << '\n'; }

/// Catches mistakes LLVM's parser reports poorly (a misspelt subcommand reads
/// as a stray positional argument). Returns false after printing the error.
bool checkCommandName(int argc, const char **argv) {
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg.starts_with("-"))
      continue; // top-level flags such as --help and --version come first
    if (arg == "check" || arg == "eval" || arg == "print" || arg == "compile" || arg == "run" ||
        arg == "report" || arg == "targets")
      return true;
    errs() << "motec: error: unknown command '" << arg << "' (expected one of " << kCommands
           << "; see 'motec --help')\n";
    return false;
  }
  return true;
}

ExitCode runCommand() {
  if (checkCommand)
    return runCheck({modulePath}, outs(), errs());
  if (printCommand)
    return runPrint({modulePath}, outs(), errs());
  if (targetsCommand)
    return runTargets(outs());
  TargetOptions target{targetTriples, targetCpu, targetFeatures, fusion, nativeHalfSums};
  if (compileCommand) {
    CompileCommandOptions options;
    options.modulePath = modulePath;
    options.target = target;
    options.name = symbolName;
    options.outputPath = compileOutput;
    options.emit = emitKind;
    return runCompile(options, outs(), errs());
  }
  if (reportCommand) {
    ReportOptions options;
    options.modulePath = modulePath;
    options.target = target;
    options.json = reportJson;
    return runReport(options, outs(), errs());
  }
  if (runSubcommand) {
    RunOptions options;
    options.modulePath = modulePath;
    options.target = target;
    options.inputPaths = inputPaths;
    options.outputPaths = outputPaths;
    options.seed = seed;
    options.printFull = printFull;
    options.timeoutSeconds = runTimeout;
    options.keepDir = keepTemps;
    return runRun(options, outs(), errs());
  }
  EvalOptions options;
  options.modulePath = modulePath;
  options.inputPaths = inputPaths;
  options.outputPaths = outputPaths;
  options.seed = seed;
  options.printFull = printFull;
  options.maxWhileIterations = maxWhileIterations;
  options.saveInputsDir = saveInputs;
  options.target = target;
  return runEval(options, outs(), errs());
}

} // namespace

int main(int argc, const char **argv) {
  cl::SetVersionPrinter(printVersion);
  for (cl::SubCommand *sub :
       {&cl::SubCommand::getTopLevel(), &checkCommand, &evalCommand, &printCommand, &compileCommand,
        &runSubcommand, &reportCommand, &targetsCommand})
    cl::HideUnrelatedOptions(motecCategory, *sub);
  if (!checkCommandName(argc, argv))
    return ExitBadCommandLine;
  std::string parseErrors;
  raw_string_ostream parseErrorStream(parseErrors);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "motec: the Mote compiler for XLA HLO models\n\n"
                                   "  motec check model.hlo\n"
                                   "  motec eval model.hlo [--input x.npy]... [--output y.npy]...\n"
                                   "  motec print model.hlo\n"
                                   "  motec compile model.hlo --target=T -o out   (out.o + out.h)\n"
                                   "  motec run model.hlo --target=T [--input x.npy]... "
                                   "[--output y.npy]...\n"
                                   "  motec report model.hlo [--target=T] [--json]\n"
                                   "  motec targets\n",
                                   &parseErrorStream)) {
    errs() << parseErrors << "motec: see 'motec --help' or 'motec <command> --help'\n";
    return ExitBadCommandLine;
  }
  if (!checkCommand && !evalCommand && !printCommand && !compileCommand && !runSubcommand &&
      !reportCommand && !targetsCommand) {
    errs() << "motec: error: no command given (expected one of " << kCommands
           << "; see 'motec --help')\n";
    return ExitBadCommandLine;
  }

  // A crash anywhere below is a bug: report it as one instead of dying on a
  // signal. The command runs on a thread with a large stack because deeply
  // nested HLO (calls inside loops inside branches) recurses.
  CrashRecoveryContext::Enable();
  CrashRecoveryContext context;
  ExitCode code = ExitInternalError;
  constexpr unsigned kStackBytes = 256u << 20;
  if (!context.RunSafelyOnThread([&] { code = runCommand(); }, kStackBytes)) {
    outs().flush();
    errs() << "motec: internal error: the command crashed; please report this with the input "
              "that caused it\n";
    return ExitInternalError;
  }
  outs().flush();
  if (outs().has_error()) {
    outs().clear_error();
    errs() << "motec: error: cannot write the output\n";
    return ExitInvalidInput;
  }
  return code;
}
