//===- Progress.h - motec's phases on stderr, for long compiles -*- C++ -*-===//
///
/// \file
/// What a person waiting on a long compile sees: once a command has run for
/// a few seconds, each phase as it starts, with the time so far
///   motec: [  12.4 s] code generation
/// on standard error, and only when that is a terminal (or --progress asks
/// for it), so scripts and tests see nothing.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_PROGRESS_H
#define MOTE_TOOLS_PROGRESS_H

#include "output/CompileProgress.h"

namespace mote::tools {

/// Whether phases are shown: the default follows stderr being a terminal.
enum class ProgressMode { Auto, Always, Never };

/// The command's progress listener (one per process: motec runs one command).
output::CompileProgress &commandProgress();
void setProgressMode(ProgressMode mode);

} // namespace mote::tools

#endif // MOTE_TOOLS_PROGRESS_H
