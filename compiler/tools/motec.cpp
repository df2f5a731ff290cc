//===- motec.cpp - The Mote compiler's command-line driver ----------------===//
///
/// \file
/// Parses the command line and hands over to a subcommand in lib/.
///
//===----------------------------------------------------------------------===//

#include "lib/Commands.h"
#include "lib/ModuleFile.h"
#include "lib/Progress.h"

#include "eval/Evaluator.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <new>
#include <unistd.h>

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

cl::opt<std::string> modulePath(cl::Positional, cl::Required,
                                cl::desc("<model.hlo | model.mlir | ->"), cl::sub(checkCommand),
                                cl::sub(evalCommand), cl::sub(printCommand),
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
                                cl::value_desc("dir"), cl::sub(evalCommand),
                                cl::cat(motecCategory));
cl::opt<uint64_t> maxWhileIterations("max-while-iterations",
                                     cl::desc("Fail when a while loop runs longer than this"),
                                     cl::init(uint64_t(1) << 31), cl::sub(evalCommand),
                                     cl::cat(motecCategory));
cl::opt<uint64_t> maxLoopInstructions(
    "max-loop-instructions",
    cl::desc("Fail when a while loop has evaluated more instructions than this (its condition "
             "and body, nested loops included; a runaway loop of scalar steps stops within "
             "seconds)"),
    cl::init(mote::eval::EvaluatorOptions().maxLoopInstructions), cl::sub(evalCommand),
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
             "vectors (AArch64 +fullfp16, Cortex-M55 Helium), and bf16 ones by bfdot (AArch64 "
             "+bf16): faster, not bit-exact with eval, within K * 2^-11 (bf16: K * 2^-23) * "
             "sum|a*b| of the exact sum of K products (default off: f32 fused multiply-adds, "
             "rounded once)"),
    cl::init(false), cl::sub(compileCommand), cl::sub(runSubcommand), cl::sub(reportCommand),
    cl::cat(motecCategory));
cl::list<std::string>
    paramsPaths("params",
                cl::desc("Bind entry parameters to the arrays of this .npz, .safetensors or "
                         ".npy file (keys: parameter names or numbers; may repeat): they "
                         "become constants, the rest stay inputs in order"),
                cl::value_desc("weights.npz"), cl::sub(evalCommand), cl::sub(compileCommand),
                cl::sub(runSubcommand), cl::sub(reportCommand), cl::cat(motecCategory));
cl::opt<std::string>
    outputList("outputs",
               cl::desc("Keep only these elements of the result tuple, in this order (default: "
                        "all but those that return a bound parameter unchanged)"),
               cl::value_desc("0,3"), cl::sub(evalCommand), cl::sub(compileCommand),
               cl::sub(runSubcommand), cl::sub(reportCommand), cl::cat(motecCategory));
cl::opt<bool> showProgress("progress",
                           cl::desc("Name each phase on stderr once the command runs for a few "
                                    "seconds (default: when stderr is a terminal)"),
                           cl::sub(compileCommand), cl::sub(runSubcommand), cl::sub(reportCommand),
                           cl::cat(motecCategory));
cl::opt<bool> reportJson("json", cl::desc("Print the report as JSON"), cl::sub(reportCommand),
                         cl::cat(motecCategory));
cl::opt<std::string> graphPath("graph",
                               cl::desc("Draw the computation after the passes: fusions as "
                                        "boxes, dots and convolutions highlighted, edges with "
                                        "shapes and bytes (.svg or .png with Graphviz's dot; "
                                        ".dot writes the graph text)"),
                               cl::value_desc("file.svg"), cl::sub(reportCommand),
                               cl::cat(motecCategory));
cl::opt<std::string> memoryPath("memory",
                                cl::desc("Draw the memory plan as SVG: one bar per arena buffer "
                                         "at its offset over the steps it is live, the lower "
                                         "bound marked"),
                                cl::value_desc("file.svg"), cl::sub(reportCommand),
                                cl::cat(motecCategory));
cl::opt<std::string> compileOutput("o",
                                   cl::desc("Output: <path>.mote writes a package (one code "
                                            "object per --target); any other <path> writes "
                                            "<path>.o and <path>.h; with --emit, exactly <path> "
                                            "('-' for standard output, except packages)"),
                                   cl::value_desc("path"), cl::sub(compileCommand),
                                   cl::cat(motecCategory));
cl::opt<std::string>
    weightsFile("weights-file",
                cl::desc("With -o <path>.mote: write the weights to this file, which the "
                         "runtime maps and uses in place, instead of into the package"),
                cl::value_desc("model.weights"), cl::sub(compileCommand), cl::cat(motecCategory));
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
                              cl::sub(printCommand), cl::cat(motecCategory));
cl::opt<bool> liftInputs(
    "lift-inputs",
    cl::desc("StableHLO test files: pass what @inputs() returns as entry parameters (their "
             "values are the default inputs), so compiled code computes instead of folding "
             "constants"),
    cl::sub(evalCommand), cl::sub(compileCommand), cl::sub(runSubcommand), cl::sub(reportCommand),
    cl::sub(printCommand), cl::sub(checkCommand), cl::cat(motecCategory));
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

/// Each subcommand with the lines its --help opens with.
struct Command {
  StringRef name;
  cl::SubCommand *sub;
  StringRef usage;
};
const Command kCommandTable[] = {
    {"check", &checkCommand, "motec check model.hlo"},
    {"eval", &evalCommand, "motec eval model.hlo [--input x.npy]... [--output y.npy]..."},
    {"print", &printCommand, "motec print model.hlo"},
    {"compile", &compileCommand,
     "motec compile model.hlo --target=T -o out        (out.o + out.h)\n"
     "  motec compile model.hlo --target=T1,T2 -o model.mote"},
    {"run", &runSubcommand,
     "motec run model.hlo --target=T [--input x.npy]... [--output y.npy]..."},
    {"report", &reportCommand,
     "motec report model.hlo [--target=T] [--json] [--graph=model.svg] [--memory=plan.svg]"},
    {"targets", &targetsCommand, "motec targets"},
};

constexpr StringRef kCommands = "check, eval, print, compile, run, report, targets";

/// Runs when an allocation fails (the evaluator's values, a huge module):
/// a clear message and ExitUnsupported instead of std::bad_alloc's abort,
/// which would read as a crash. It writes with write(2): memory is gone.
void outOfMemory() {
  static const char kMessage[] =
      "motec: error: out of memory: the module needs more memory than this machine gives "
      "(see README, Limits)\n";
  ssize_t ignored = write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  (void)ignored;
  _Exit(ExitUnsupported);
}

void printVersion(raw_ostream &os) { os << "motec " << MOTE_VERSION << '\n'; }

/// The subcommand named on the command line, if any.
const Command *findCommand(int argc, const char **argv) {
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg.starts_with("-"))
      continue;
    for (const Command &command : kCommandTable)
      if (arg == command.name)
        return &command;
    return nullptr;
  }
  return nullptr;
}

/// Catches mistakes LLVM's parser reports poorly (a misspelt subcommand reads
/// as a stray positional argument). Returns false after printing the error.
bool checkCommandName(int argc, const char **argv) {
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg.starts_with("-"))
      continue; // top-level flags such as --help and --version come first
    if (findCommand(argc, argv))
      return true;
    errs() << "motec: error: unknown command '" << arg << "' (expected one of " << kCommands
           << "; see 'motec --help')\n";
    return false;
  }
  return true;
}

/// An option the subcommand does not have: LLVM would suggest whatever
/// option is nearest in spelling (--print-options for --target), so say
/// which subcommands have it, or which option of this one was meant.
/// Returns false after printing the error.
bool checkOptionsBelong(const Command &command, int argc, const char **argv) {
  auto &own = cl::getRegisteredOptions(*command.sub);
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (!arg.starts_with("-") || arg == "-" || arg == "--")
      continue;
    StringRef name = arg.ltrim('-').split('=').first;
    if (auto found = own.find(name); found != own.end()) {
      // "--features -c" gives the value as the next argument.
      if (!arg.contains('=') && found->second->getValueExpectedFlag() == cl::ValueRequired)
        ++i;
      continue;
    }
    if (cl::getRegisteredOptions(cl::SubCommand::getTopLevel()).count(name))
      continue;
    std::string others;
    for (const Command &other : kCommandTable)
      if (&other != &command && cl::getRegisteredOptions(*other.sub).count(name))
        others += (others.empty() ? "" : ", ") + other.name.str();
    errs() << "motec " << command.name << ": error: ";
    if (!others.empty()) {
      errs() << "--" << name << " is not an option of '" << command.name << "' (it is of " << others
             << ")";
    } else {
      StringRef nearest;
      unsigned best = 3;
      for (const auto &entry : own) {
        if (entry.second->getOptionHiddenFlag() != cl::NotHidden)
          continue;
        unsigned distance = name.edit_distance(entry.getKey(), true, best);
        if (distance < best) {
          best = distance;
          nearest = entry.getKey();
        }
      }
      errs() << "unknown option '" << arg.split('=').first << "'";
      if (!nearest.empty())
        errs() << "; did you mean '--" << nearest << "'?";
    }
    errs() << " (see 'motec " << command.name << " --help')\n";
    return false;
  }
  return true;
}

ExitCode runCommand() {
  setModuleLoadOptions({liftInputs});
  if (checkCommand)
    return runCheck({modulePath}, outs(), errs());
  if (printCommand) {
    // print shows the module as HLO, whichever form the file was in.
    if (!emitKind.empty() && emitKind != "hlo") {
      errs() << "motec: error: print emits only --emit=hlo\n";
      return ExitBadCommandLine;
    }
    return runPrint({modulePath}, outs(), errs());
  }
  if (targetsCommand)
    return runTargets(outs());
  if (showProgress.getNumOccurrences())
    setProgressMode(showProgress ? ProgressMode::Always : ProgressMode::Never);
  TargetOptions target{targetTriples, targetCpu, targetFeatures, fusion, nativeHalfSums};
  InterfaceFlags interface { paramsPaths, outputList };
  if (compileCommand) {
    CompileCommandOptions options;
    options.modulePath = modulePath;
    options.interface = interface;
    options.target = target;
    options.name = symbolName;
    options.outputPath = compileOutput;
    options.emit = emitKind;
    options.weightsFile = weightsFile;
    return runCompile(options, outs(), errs());
  }
  if (reportCommand) {
    ReportOptions options;
    options.modulePath = modulePath;
    options.interface = interface;
    options.target = target;
    options.json = reportJson;
    options.graphPath = graphPath;
    options.memoryPath = memoryPath;
    return runReport(options, outs(), errs());
  }
  if (runSubcommand) {
    RunOptions options;
    options.modulePath = modulePath;
    options.interface = interface;
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
  options.interface = interface;
  options.inputPaths = inputPaths;
  options.outputPaths = outputPaths;
  options.seed = seed;
  options.printFull = printFull;
  options.maxWhileIterations = maxWhileIterations;
  options.maxLoopInstructions = maxLoopInstructions;
  options.saveInputsDir = saveInputs;
  options.target = target;
  return runEval(options, outs(), errs());
}

} // namespace

int main(int argc, const char **argv) {
  std::set_new_handler(outOfMemory);
  cl::SetVersionPrinter(printVersion);
  for (cl::SubCommand *sub :
       {&cl::SubCommand::getTopLevel(), &checkCommand, &evalCommand, &printCommand, &compileCommand,
        &runSubcommand, &reportCommand, &targetsCommand})
    cl::HideUnrelatedOptions(motecCategory, *sub);
  if (!checkCommandName(argc, argv))
    return ExitBadCommandLine;
  // The overview --help opens with: all commands, or the one command's.
  const Command *command = findCommand(argc, argv);
  if (command && !checkOptionsBelong(*command, argc, argv))
    return ExitBadCommandLine;
  std::string overview = "motec: the Mote compiler for XLA HLO and StableHLO models\n\n";
  if (command) // LLVM prints the command's description after this
    overview = command->usage.str() + "\n";
  else
    for (const Command &each : kCommandTable)
      overview += "  " + each.usage.str() + "\n";
  std::string parseErrors;
  raw_string_ostream parseErrorStream(parseErrors);
  if (!cl::ParseCommandLineOptions(argc, argv, overview, &parseErrorStream)) {
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
