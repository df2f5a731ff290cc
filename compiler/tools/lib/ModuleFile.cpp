//===- ModuleFile.cpp - Load an HLO or StableHLO file for a command -------===//

#include "ModuleFile.h"

#include "hlo/Diagnostics.h"
#include "hlo/Parser.h"
#include "hlo/Verifier.h"

#include "file_io.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

namespace mote::tools {

namespace {

/// The largest HLO text motec reads (README, "Limits"): source locations
/// count bytes in 32 bits.
constexpr uint64_t kMaxModuleFileBytes = (uint64_t(1) << 31) - 1;

/// The file's text: a regular file (mapped, not copied) of at most
/// kMaxModuleFileBytes, or standard input read up to that limit. A FIFO or
/// device such as /dev/zero is refused before reading a byte.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readModuleText(llvm::StringRef path) {
  auto failure = [&](const llvm::Twine &problem) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot read '" + path + "': " + problem);
  };
  if (path == "-") {
    std::vector<uint8_t> bytes;
    std::string error;
    if (!io::readWholeFile("-", kMaxModuleFileBytes, &bytes, &error, /*allow_stdin=*/true))
      return failure(error);
    return llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(reinterpret_cast<const char *>(bytes.data()), bytes.size()), "<stdin>");
  }
  llvm::sys::fs::file_status status;
  if (std::error_code code = llvm::sys::fs::status(path, status))
    return failure(code.message());
  if (status.type() == llvm::sys::fs::file_type::directory_file)
    return failure("it is a directory");
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return failure("not a regular file");
  if (status.getSize() > kMaxModuleFileBytes)
    return failure("too large: " + io::describeBytes(status.getSize()) + ", more than the " +
                   io::describeBytes(kMaxModuleFileBytes) + " motec reads");
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return failure(buffer.getError().message());
  return std::move(*buffer);
}

} // namespace

static ModuleLoadOptions loadOptions;

void setModuleLoadOptions(const ModuleLoadOptions &options) { loadOptions = options; }

LoadedModule loadModuleFile(llvm::StringRef path, llvm::raw_ostream &errs) {
  LoadedModule loaded;
  loaded.failure = ExitInvalidInput;
  auto buffer = readModuleText(path);
  if (!buffer) {
    errs << "error: " << llvm::toString(buffer.takeError()) << '\n';
    return loaded;
  }
  // A package is the output of motec compile, not an input to it.
  if ((*buffer)->getBuffer().starts_with(llvm::StringRef("MOTEPKG\0", 8))) {
    errs << "error: '" << path
         << "' is a Mote package (.mote), not an HLO or StableHLO module; run it with "
            "mote-run, or give motec the model it was compiled from\n";
    return loaded;
  }
  bool isMlir = stablehlo::looksLikeMlir((*buffer)->getBuffer());
  auto sourceManager = std::make_shared<llvm::SourceMgr>();
  unsigned bufferId = sourceManager->AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  std::unique_ptr<hlo::Module> module;
  if (isMlir) {
    stablehlo::ConversionOptions options;
    options.liftInputs = loadOptions.liftInputs;
    auto converted = stablehlo::convertStableHlo(sourceManager, bufferId, options);
    if (!converted) {
      llvm::Error error = converted.takeError();
      if (error.isA<stablehlo::UnsupportedError>())
        loaded.failure = ExitUnsupported;
      hlo::printError(std::move(error), sourceManager.get(), errs);
      return loaded;
    }
    module = std::move(converted->module);
    loaded.checks = std::move(converted->checks);
    loaded.inputs = std::move(converted->inputs);
    if (loaded.inputs)
      if (llvm::Error error = hlo::verifyModule(*loaded.inputs)) {
        hlo::printError(std::move(error), sourceManager.get(), errs);
        return loaded;
      }
  } else {
    auto parsed = hlo::parseModule(sourceManager, bufferId);
    if (!parsed) {
      hlo::printError(parsed.takeError(), sourceManager.get(), errs);
      return loaded;
    }
    module = std::move(*parsed);
  }
  if (llvm::Error error = hlo::verifyModule(*module)) {
    hlo::printError(std::move(error), sourceManager.get(), errs);
    return loaded;
  }
  loaded.module = std::move(module);
  loaded.failure = ExitOk;
  return loaded;
}

std::unique_ptr<hlo::Module> loadModuleReportingErrors(llvm::StringRef path,
                                                       llvm::raw_ostream &errs, ExitCode *failure) {
  LoadedModule loaded = loadModuleFile(path, errs);
  if (failure)
    *failure = loaded.failure;
  return std::move(loaded.module);
}

} // namespace mote::tools
