//===- Progress.cpp - motec's phases on stderr, for long compiles ---------===//

#include "Progress.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <string>

namespace mote::tools {

namespace {

class TerminalProgress : public output::CompileProgress {
public:
  void setMode(ProgressMode mode) { mode_ = mode; }

  void phase(llvm::StringRef name, llvm::StringRef detail) override {
    if (mode_ == ProgressMode::Never ||
        (mode_ == ProgressMode::Auto && !llvm::sys::Process::StandardErrIsDisplayed()))
      return;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    // Quick commands stay quiet: the first phases show once one is slow.
    if (mode_ == ProgressMode::Auto && seconds < kQuietSeconds) {
      pending_ = name.str() + (detail.empty() ? "" : " (" + detail.str() + ")");
      return;
    }
    if (!pending_.empty())
      llvm::errs() << "motec: [" << llvm::format("%7.1f", seconds) << " s] (so far) " << pending_
                   << '\n';
    pending_.clear();
    llvm::errs() << "motec: [" << llvm::format("%7.1f", seconds) << " s] " << name;
    if (!detail.empty())
      llvm::errs() << " (" << detail << ")";
    llvm::errs() << '\n';
  }

private:
  static constexpr double kQuietSeconds = 3.0;
  ProgressMode mode_ = ProgressMode::Auto;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::string pending_; ///< the phase running when the command turned slow
};

TerminalProgress &instance() {
  static TerminalProgress progress;
  return progress;
}

} // namespace

output::CompileProgress &commandProgress() { return instance(); }

void setProgressMode(ProgressMode mode) { instance().setMode(mode); }

} // namespace mote::tools
