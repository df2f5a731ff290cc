//===- RunModel.cpp - Run a model object on its target --------------------===//

#include "RunModel.h"

#include "Toolchain.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include "RunDriverSources.inc"

namespace mote::tools {

llvm::StringRef runDriverSource() { return kRunDriverSource; }
llvm::StringRef abiHeaderSource() { return kAbiHeaderSource; }

namespace {

/// The work directory; removed on destruction unless the user keeps it.
class WorkDir {
public:
  llvm::Error create(llvm::StringRef keep) {
    if (!keep.empty()) {
      path_ = keep;
      if (std::error_code error = llvm::sys::fs::create_directories(path_))
        return toolError(ExitInvalidInput, "cannot create '" + keep + "': " + error.message());
      llvm::sys::fs::make_absolute(path_);
      return llvm::Error::success();
    }
    if (std::error_code error = llvm::sys::fs::createUniqueDirectory("mote-run", path_))
      return toolError(ExitInternalError,
                       "cannot create a temporary directory: " + error.message());
    remove_ = true;
    return llvm::Error::success();
  }
  ~WorkDir() {
    if (remove_)
      llvm::sys::fs::remove_directories(path_);
  }
  std::string file(const llvm::Twine &name) const {
    llvm::SmallString<256> result(path_);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }
  llvm::StringRef path() const { return path_; }

private:
  llvm::SmallString<256> path_;
  bool remove_ = false;
};

llvm::Error writeFile(const std::string &path, llvm::StringRef bytes) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (!error) {
    os << bytes;
    os.close();
    if (os.has_error())
      error = os.error();
  }
  if (error)
    return toolError(ExitInternalError, "cannot write '" + path + "': " + error.message());
  return llvm::Error::success();
}

std::string readText(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().rtrim().str() : std::string();
}

std::string commandText(llvm::ArrayRef<std::string> command) {
  std::string text;
  for (const std::string &part : command)
    text += (text.empty() ? "" : " ") + part;
  return text;
}

/// Runs `command`, its output in `logPrefix`.out/.err. Returns the exit
/// status, or an error when it cannot start, crashes or times out.
llvm::Expected<int> execute(llvm::ArrayRef<std::string> command, const std::string &logPrefix,
                            unsigned timeoutSeconds, llvm::StringRef what) {
  std::vector<llvm::StringRef> argv(command.begin(), command.end());
  std::string out = logPrefix + ".out", err = logPrefix + ".err";
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(out),
                                                llvm::StringRef(err)};
  std::string message;
  bool failedToStart = false;
  int status = llvm::sys::ExecuteAndWait(command.front(), argv, std::nullopt, redirects,
                                         timeoutSeconds, 0, &message, &failedToStart);
  if (failedToStart || status == -1)
    return toolError(ExitInternalError, "cannot start " + what + ": " + message);
  if (status == -2) {
    // A crash, or the time limit (ExecuteAndWait kills the child then).
    std::string log = readText(err);
    bool timedOut = llvm::StringRef(message).contains_insensitive("timed out");
    std::string reason =
        timedOut ? "did not finish within " + std::to_string(timeoutSeconds) + " s (see --timeout)"
                 : "crashed (" + message + ")";
    return toolError(ExitInternalError, what + " " + reason + ": " + commandText(command) +
                                            (log.empty() ? "" : "\n" + log));
  }
  return status;
}

llvm::Error buildDriver(const Toolchain &toolchain, const RunRequest &request, const WorkDir &dir,
                        const std::string &program) {
  if (llvm::Error error = writeFile(dir.file("model.o"), request.object))
    return error;
  if (llvm::Error error = writeFile(dir.file("run_driver.c"), runDriverSource()))
    return error;
  llvm::sys::fs::create_directories(dir.file("mote"));
  if (llvm::Error error = writeFile(dir.file("mote/abi.h"), abiHeaderSource()))
    return error;
  std::vector<std::string> command = {toolchain.compiler};
  command.insert(command.end(), toolchain.compileFlags.begin(), toolchain.compileFlags.end());
  command.push_back("-I" + dir.path().str());
  command.push_back("-DMOTE_MODEL_PREFIX=" + request.symbolPrefix);
  std::string quoted;
  for (char c : dir.path()) {
    if (c == '"' || c == '\\')
      quoted += '\\';
    quoted += c;
  }
  command.push_back("-DMOTE_RUN_DIR=\"" + quoted + "\"");
  command.push_back(dir.file("run_driver.c"));
  command.push_back(dir.file("model.o"));
  command.push_back("-o");
  command.push_back(program);
  command.insert(command.end(), toolchain.linkFlags.begin(), toolchain.linkFlags.end());
  auto status = execute(command, dir.file("build"), 300, "the C compiler");
  if (!status)
    return status.takeError();
  if (*status != 0)
    return toolError(ExitInternalError, "linking the run driver for " + request.target.triple +
                                            " failed: " + commandText(command) + "\n" +
                                            readText(dir.file("build.err")));
  return llvm::Error::success();
}

llvm::StringRef driverFailure(int status) {
  switch (status) {
  case 1:
    return "could not read its inputs or write its results";
  case 2:
    return "found a model descriptor with the wrong magic or ABI version";
  case 3:
    return "the model's entry function returned an error status";
  case 4:
    return "ran out of memory";
  default:
    return "failed";
  }
}

} // namespace

llvm::Expected<std::vector<std::vector<uint8_t>>> runModelObject(const RunRequest &request) {
  auto toolchain = findToolchain(request.target);
  if (!toolchain)
    return toolchain.takeError();
  WorkDir dir;
  if (llvm::Error error = dir.create(request.keepDir))
    return std::move(error);
  std::string program = dir.file(toolchain->bareMetal ? "driver.elf" : "driver");
  if (llvm::Error error = buildDriver(*toolchain, request, dir, program))
    return std::move(error);

  for (size_t i = 0; i < request.arguments.size(); ++i) {
    const std::vector<uint8_t> &bytes = request.arguments[i];
    llvm::StringRef text(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    if (llvm::Error error = writeFile(dir.file("arg" + llvm::Twine(i) + ".bin"), text))
      return std::move(error);
  }
  for (size_t i = 0; i < request.resultBytes.size(); ++i)
    llvm::sys::fs::remove(dir.file("result" + llvm::Twine(i) + ".bin"));

  std::vector<std::string> command = toolchain->runCommand(program, dir.path());
  auto status = execute(command, dir.file("run"), request.timeoutSeconds, "the model");
  if (!status)
    return status.takeError();
  if (*status != 0) {
    std::string log = readText(dir.file("run.err"));
    std::string out = readText(dir.file("run.out"));
    return toolError(ExitInternalError,
                     "the run driver " + driverFailure(*status) + " (exit status " +
                         llvm::Twine(*status) + "): " + commandText(command) +
                         (log.empty() ? "" : "\n" + log) + (out.empty() ? "" : "\n" + out));
  }

  std::vector<std::vector<uint8_t>> results;
  for (size_t i = 0; i < request.resultBytes.size(); ++i) {
    std::string path = dir.file("result" + llvm::Twine(i) + ".bin");
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return toolError(ExitInternalError, "the run driver wrote no result " + llvm::Twine(i) +
                                              ": " + buffer.getError().message());
    llvm::StringRef bytes = (*buffer)->getBuffer();
    if (bytes.size() != request.resultBytes[i])
      return toolError(ExitInternalError, "result " + llvm::Twine(i) + " has " +
                                              llvm::Twine(bytes.size()) + " bytes, expected " +
                                              llvm::Twine(request.resultBytes[i]));
    results.emplace_back(bytes.bytes_begin(), bytes.bytes_end());
  }
  return results;
}

} // namespace mote::tools
