//===- CompileCommand.cpp - motec compile ---------------------------------===//

#include "Commands.h"
#include "ModuleFile.h"
#include "RunCompile.h"

#include "output/HeaderWriter.h"
#include "output/ObjectEmitter.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"

#include <optional>

namespace mote::tools {

namespace {

enum class Emit { ObjectAndHeader, Object, Assembly, LlvmIr, Header };

std::optional<Emit> parseEmit(llvm::StringRef text) {
  return llvm::StringSwitch<std::optional<Emit>>(text)
      .Case("", Emit::ObjectAndHeader)
      .Case("obj", Emit::Object)
      .Case("asm", Emit::Assembly)
      .Case("llvm", Emit::LlvmIr)
      .Case("header", Emit::Header)
      .Default(std::nullopt);
}

/// Writes `bytes` to `path` ("-" is `out`). Prints the error and returns false.
bool writeOutput(llvm::StringRef path, llvm::StringRef bytes, llvm::raw_ostream &out,
                 llvm::raw_ostream &errs) {
  if (path == "-") {
    out << bytes;
    return true;
  }
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
  if (!error) {
    os << bytes;
    os.close();
    if (os.has_error())
      error = os.error();
  }
  if (error) {
    errs << "error: cannot write '" << path << "': " << error.message() << '\n';
    os.clear_error();
    return false;
  }
  return true;
}

} // namespace

ExitCode runCompile(const CompileCommandOptions &options, llvm::raw_ostream &out,
                    llvm::raw_ostream &errs) {
  std::optional<Emit> emit = parseEmit(options.emit);
  if (!emit) {
    errs << "error: unknown --emit=" << options.emit << " (expected obj, asm, llvm or header)\n";
    return ExitBadCommandLine;
  }
  llvm::StringRef outputPath = options.outputPath;
  if (outputPath.ends_with(".mote")) {
    errs << "error: .mote package output is not supported yet; give -o without .mote for an "
            "object and header\n";
    return ExitUnsupported;
  }
  if (outputPath.empty()) {
    if (*emit == Emit::ObjectAndHeader || *emit == Emit::Object) {
      errs << "error: no output file: give -o <path>\n";
      return ExitBadCommandLine;
    }
    outputPath = "-";
  }
  if (*emit == Emit::Object && outputPath == "-") {
    errs << "error: an object file cannot go to standard output; give -o <path>\n";
    return ExitBadCommandLine;
  }

  auto resolved = resolveTargetOptions(options.target, errs);
  if (auto *code = std::get_if<ExitCode>(&resolved))
    return *code;
  auto &specs = std::get<std::vector<target::TargetSpec>>(resolved);
  if (specs.size() != 1) {
    errs << "error: " << specs.size()
         << " targets need a .mote package (not supported yet); an object is for one target\n";
    return ExitBadCommandLine;
  }

  auto module = loadModuleReportingErrors(options.modulePath, errs);
  if (!module)
    return ExitInvalidInput;
  auto compiled = compileForTarget(*module, specs.front(), options.name, errs);
  if (auto *code = std::get_if<ExitCode>(&compiled))
    return *code;
  auto &model = std::get<output::CompiledModel>(compiled);

  if (*emit == Emit::Header)
    return writeOutput(outputPath, output::writeHeader(model.signature), out, errs)
               ? ExitOk
               : ExitInvalidInput;
  output::EmitKind kind = *emit == Emit::Assembly ? output::EmitKind::Assembly
                          : *emit == Emit::LlvmIr ? output::EmitKind::LlvmIr
                                                  : output::EmitKind::Object;
  auto bytes = output::emitModule(*model.module, *model.machine, kind);
  if (!bytes) {
    errs << "error: " << llvm::toString(bytes.takeError()) << '\n';
    return ExitInternalError;
  }
  if (*emit != Emit::ObjectAndHeader)
    return writeOutput(outputPath, *bytes, out, errs) ? ExitOk : ExitInvalidInput;

  // out -> out.o + out.h (a trailing .o is the object's own name).
  std::string base = outputPath.str();
  if (llvm::StringRef(base).ends_with(".o"))
    base.resize(base.size() - 2);
  if (!writeOutput(base + ".o", *bytes, out, errs) ||
      !writeOutput(base + ".h", output::writeHeader(model.signature), out, errs))
    return ExitInvalidInput;
  return ExitOk;
}

} // namespace mote::tools
