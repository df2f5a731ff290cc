//===- CompileCommand.cpp - motec compile ---------------------------------===//

#include "Commands.h"
#include "ModuleFile.h"
#include "Progress.h"
#include "RunCompile.h"

#include "Toolchain.h"

#include "hlo/Printer.h"
#include "output/HeaderWriter.h"
#include "output/ObjectEmitter.h"
#include "output/PackageWriter.h"
#include "passes/Passes.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <optional>

namespace mote::tools {

namespace {

enum class Emit { ObjectAndHeader, Object, Assembly, LlvmIr, Header, Package, Hlo };

std::optional<Emit> parseEmit(llvm::StringRef text) {
  return llvm::StringSwitch<std::optional<Emit>>(text)
      .Case("", Emit::ObjectAndHeader)
      .Case("obj", Emit::Object)
      .Case("asm", Emit::Assembly)
      .Case("llvm", Emit::LlvmIr)
      .Case("header", Emit::Header)
      .Case("package", Emit::Package)
      .Case("hlo", Emit::Hlo)
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

/// The target's libgcc.a, asked of its C compiler, or "" when there is none:
/// code objects take soft-float and division helpers from it. A missing
/// compiler is not an error here; the link names what is then undefined.
std::string findLibgcc(const target::TargetSpec &spec) {
  auto toolchain = findToolchain(spec);
  if (!toolchain) {
    llvm::consumeError(toolchain.takeError());
    return "";
  }
  llvm::SmallString<128> outputPath;
  if (llvm::sys::fs::createTemporaryFile("mote-libgcc", "txt", outputPath))
    return "";
  std::vector<llvm::StringRef> args = {toolchain->compiler};
  for (const std::string &flag : toolchain->compileFlags)
    args.push_back(flag);
  args.push_back("-print-libgcc-file-name");
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(outputPath),
                                                llvm::StringRef("")};
  int status = llvm::sys::ExecuteAndWait(toolchain->compiler, args, std::nullopt, redirects, 30);
  auto text = llvm::MemoryBuffer::getFile(outputPath);
  llvm::sys::fs::remove(outputPath);
  if (status != 0 || !text)
    return "";
  std::string path = (*text)->getBuffer().trim().str();
  return llvm::sys::fs::exists(path) ? path : "";
}

/// `path` as seen from the folder of `package`: its file name when both
/// are in one folder, else `path` made absolute.
std::string relativeTo(llvm::StringRef path, llvm::StringRef package) {
  llvm::SmallString<256> file(path), folder(llvm::sys::path::parent_path(package));
  llvm::sys::fs::make_absolute(file);
  llvm::sys::fs::make_absolute(folder);
  if (llvm::sys::path::parent_path(file) == folder)
    return llvm::sys::path::filename(file).str();
  return file.str().str();
}

/// What a package carries code for: each target as given, or, when neither
/// --cpu nor --features is, each of its package levels (TargetInfo) whose
/// code the loader can tell apart from the levels below it: a level whose
/// added features the runtime cannot detect would run on machines without
/// them, so it is left out, with a note.
std::vector<target::TargetSpec> packageSpecs(const CompileCommandOptions &options,
                                             const std::vector<target::TargetSpec> &specs,
                                             llvm::raw_ostream &errs) {
  if (!options.target.cpu.empty() || !options.target.features.empty())
    return specs;
  std::vector<target::TargetSpec> result;
  for (const target::TargetSpec &spec : specs) {
    const auto &levels = spec.info->packageLevels;
    if (levels.empty()) {
      result.push_back(spec);
      continue;
    }
    std::vector<std::string> recorded;
    for (const target::FeatureLevel &level : levels) {
      auto resolved = target::resolveTarget(spec.triple, level.cpu, level.features);
      if (!resolved) {
        llvm::consumeError(resolved.takeError());
        continue;
      }
      std::string required = target::requiredFeatures(*resolved);
      llvm::SmallVector<llvm::StringRef, 4> added, have;
      level.features.split(added, ',', -1, false);
      llvm::StringRef(required).split(have, ',', -1, false);
      std::string undetectable;
      for (llvm::StringRef feature : added)
        if (!llvm::is_contained(have, feature))
          undetectable += (undetectable.empty() ? "" : ",") + feature.drop_front().str();
      if (!undetectable.empty()) {
        errs << "note: no " << level.features << " code for " << spec.triple
             << ": the runtime cannot detect " << undetectable << "\n";
        continue;
      }
      if (llvm::is_contained(recorded, required))
        continue;
      recorded.push_back(required);
      result.push_back(std::move(*resolved));
    }
  }
  return result;
}

/// `motec compile ... -o model.mote`: one code object per target (and, by
/// default, per feature level: packageSpecs) in one package; code objects
/// whose weights are the same bytes share one copy of them.
ExitCode writePackageOutput(const CompileCommandOptions &options,
                            const std::vector<target::TargetSpec> &targets,
                            llvm::StringRef outputPath, llvm::raw_ostream &out,
                            llvm::raw_ostream &errs) {
  if (outputPath == "-") {
    errs << "error: a package cannot go to standard output; give -o <path>.mote\n";
    return ExitBadCommandLine;
  }
  output::PackageContents contents;
  // The weights blobs refer to the modules' constants: both live to the end.
  std::vector<std::unique_ptr<hlo::Module>> modules;
  std::vector<std::unique_ptr<codegen::WeightsBlob>> blobs;
  std::vector<target::TargetSpec> specs = packageSpecs(options, targets, errs);
  for (const target::TargetSpec &spec : specs) {
    // Panels are cut to each feature level's tiles: with several levels of
    // one triple, weights read in place keep a single copy for all of them.
    const bool rhsPanels = llvm::count_if(specs, [&](const target::TargetSpec &other) {
                             return other.triple == spec.triple;
                           }) == 1;
    // Compiling changes the module in place: each target starts from the file.
    LoadedModule loaded = loadModelWithInterface(options.modulePath, options.interface, errs);
    if (!loaded.module)
      return loaded.failure;
    modules.push_back(std::move(loaded.module));
    hlo::Module *module = modules.back().get();
    auto compiled = compileForTarget(*module, spec, options.name, errs, options.target,
                                     /*weightsOutsideCode=*/true, rhsPanels);
    if (auto *code = std::get_if<ExitCode>(&compiled))
      return *code;
    auto &model = std::get<output::CompiledModel>(compiled);
    blobs.push_back(std::move(model.weights));
    commandProgress().phase("object code", spec.triple);
    auto object = output::emitModule(*model.module, *model.machine, output::EmitKind::Object);
    if (!object) {
      errs << "error: " << llvm::toString(object.takeError()) << '\n';
      return ExitInternalError;
    }
    output::CodeObjectInputs inputs;
    inputs.object = *object;
    inputs.symbolPrefix = model.signature.name;
    inputs.modelModule = model.module.get();
    inputs.machine = model.machine.get();
    if (std::string libgcc = findLibgcc(spec); !libgcc.empty())
      inputs.archives.push_back(libgcc);
    commandProgress().phase("link", spec.triple);
    auto code = output::linkCodeObject(inputs);
    if (!code) {
      errs << "error: " << spec.triple << ": " << llvm::toString(code.takeError()) << '\n';
      return ExitUnsupported;
    }
    if (contents.codes.empty()) {
      contents.modelName = model.signature.name;
      contents.signature = model.signature;
    }
    // The package's memory plan covers every target's scratch needs.
    contents.signature.scratchSize =
        std::max(contents.signature.scratchSize, model.signature.scratchSize);
    contents.signature.scratchAlignment =
        std::max(contents.signature.scratchAlignment, model.signature.scratchAlignment);
    contents.codes.push_back(
        {spec.triple, spec.cpu, model.signature.features, std::move(*code), blobs.back().get()});
  }
  // The format's offsets are 32-bit: code objects (constants included) and
  // the tables around them must fit in 2 GiB, which the signature's few
  // tensors leave ample room for within the margin below.
  constexpr uint64_t kMaxPackageBytes = 0x7fffffffu, kTableMargin = uint64_t(16) << 20;
  uint64_t codeBytes = 0;
  for (const output::PackageCode &code : contents.codes)
    codeBytes += code.code.elf.size();
  if (codeBytes > kMaxPackageBytes - kTableMargin) {
    errs << "error: the package's code objects take " << codeBytes
         << " bytes; a package holds at most 2 GiB (its offsets are 32-bit): compile fewer "
            "targets into one package\n";
    return ExitUnsupported;
  }
  commandProgress().phase("write package", "");
  if (options.weightsFile.empty())
    return writeOutput(outputPath, output::writePackage(contents), out, errs) ? ExitOk
                                                                              : ExitInvalidInput;
  // The package names its weights file relative to its own folder.
  contents.weightsFile = relativeTo(options.weightsFile, outputPath);
  std::error_code error;
  llvm::raw_fd_ostream weights(options.weightsFile, error, llvm::sys::fs::OF_None);
  if (error) {
    errs << "error: cannot write '" << options.weightsFile << "': " << error.message() << '\n';
    return ExitInvalidInput;
  }
  std::string package = output::writePackage(contents, &weights);
  weights.close();
  if (weights.has_error()) {
    errs << "error: cannot write '" << options.weightsFile << "': " << weights.error().message()
         << '\n';
    weights.clear_error();
    return ExitInvalidInput;
  }
  return writeOutput(outputPath, package, out, errs) ? ExitOk : ExitInvalidInput;
}

} // namespace

ExitCode runCompile(const CompileCommandOptions &options, llvm::raw_ostream &out,
                    llvm::raw_ostream &errs) {
  std::optional<Emit> emit = parseEmit(options.emit);
  if (!emit) {
    errs << "error: unknown --emit=" << options.emit
         << " (expected obj, asm, llvm, hlo, header or package)\n";
    return ExitBadCommandLine;
  }
  llvm::StringRef outputPath = options.outputPath;
  // The output kind follows -o's extension unless --emit says otherwise.
  if (*emit == Emit::ObjectAndHeader && outputPath.ends_with(".mote"))
    emit = Emit::Package;
  if (*emit == Emit::Package && outputPath.empty()) {
    errs << "error: no output file: give -o <path>.mote\n";
    return ExitBadCommandLine;
  }
  if (!options.weightsFile.empty() && *emit != Emit::Package) {
    errs << "error: --weights-file is for packages: give -o <path>.mote\n";
    return ExitBadCommandLine;
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
  if (*emit == Emit::Package)
    return writePackageOutput(options, specs, outputPath, out, errs);
  if (specs.size() != 1) {
    errs << "error: " << specs.size()
         << " targets need a package (-o <path>.mote); an object is for one target\n";
    return ExitBadCommandLine;
  }

  LoadedModule loaded = loadModelWithInterface(options.modulePath, options.interface, errs);
  if (!loaded.module)
    return loaded.failure;
  std::unique_ptr<hlo::Module> &module = loaded.module;
  auto compiled = compileForTarget(*module, specs.front(), options.name, errs, options.target);
  if (auto *code = std::get_if<ExitCode>(&compiled))
    return *code;
  auto &model = std::get<output::CompiledModel>(compiled);

  // The module as code generation saw it: after the pass pipeline, which
  // compiling ran on it in place. Layout normalisation left the entry
  // holding the caller's bytes in physical order; the printed layout says so,
  // so the text reads back as the same module.
  if (*emit == Emit::Hlo) {
    if (std::optional<hlo::ProgramShape> layout = module->entryComputationLayout()) {
      for (hlo::Shape &parameter : layout->parameters)
        parameter = passes::physicalShape(parameter);
      layout->result = passes::physicalShape(layout->result);
      module->setEntryComputationLayout(std::move(layout));
    }
    return writeOutput(outputPath, hlo::printModule(*module), out, errs) ? ExitOk
                                                                         : ExitInvalidInput;
  }
  if (*emit == Emit::Header)
    return writeOutput(outputPath, output::writeHeader(model.signature), out, errs)
               ? ExitOk
               : ExitInvalidInput;
  output::EmitKind kind = *emit == Emit::Assembly ? output::EmitKind::Assembly
                          : *emit == Emit::LlvmIr ? output::EmitKind::LlvmIr
                                                  : output::EmitKind::Object;
  commandProgress().phase("object code", "");
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
