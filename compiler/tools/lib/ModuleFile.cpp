//===- ModuleFile.cpp - Load an HLO file for a command --------------------===//

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

std::unique_ptr<hlo::Module> loadModuleReportingErrors(llvm::StringRef path,
                                                       llvm::raw_ostream &errs) {
  auto buffer = readModuleText(path);
  if (!buffer) {
    errs << "error: " << llvm::toString(buffer.takeError()) << '\n';
    return nullptr;
  }
  auto sourceManager = std::make_shared<llvm::SourceMgr>();
  unsigned bufferId = sourceManager->AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  auto module = hlo::parseModule(sourceManager, bufferId);
  if (!module) {
    hlo::printError(module.takeError(), sourceManager.get(), errs);
    return nullptr;
  }
  if (llvm::Error error = hlo::verifyModule(**module)) {
    hlo::printError(std::move(error), sourceManager.get(), errs);
    return nullptr;
  }
  return std::move(*module);
}

} // namespace mote::tools
