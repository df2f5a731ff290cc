//===- CheckVerdicts.h - The check.* results of StableHLO test files -*- C++ -*-===//
///
/// \file
/// A StableHLO test file's `check.*` assertions come out of the front end as
/// pred[] result leaves after the entry's own results. eval and run take
/// them off the result, say which failed (at the check's line), and report
/// only the entry's own results; a failed check makes the command fail.
/// Test files that compute from `@inputs()` get its values as arguments.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_CHECKVERDICTS_H
#define MOTE_TOOLS_CHECKVERDICTS_H

#include "EntrySignature.h"
#include "ModuleFile.h"

#include "hlo/Literal.h"

#include "llvm/Support/raw_ostream.h"

#include <variant>
#include <vector>

namespace mote::tools {

/// The entry's result leaves without the check verdicts.
std::vector<NamedLeaf> ownResultLeaves(const LoadedModule &loaded);

/// `result` without its check verdicts, each failed check printed to `errs`
/// as a located error; `passed` is false if any failed.
hlo::Literal takeCheckVerdicts(hlo::Literal result, const LoadedModule &loaded, bool &passed,
                               llvm::raw_ostream &errs);

/// The entry's arguments: from `inputPaths`, else from evaluating the lifted
/// `@inputs()` when there is one, else generated from `seed`. Errors are
/// printed and their exit code returned.
std::variant<std::vector<hlo::Literal>, ExitCode>
prepareArguments(const LoadedModule &loaded, llvm::ArrayRef<std::string> inputPaths, uint64_t seed,
                 llvm::raw_ostream &errs);

} // namespace mote::tools

#endif // MOTE_TOOLS_CHECKVERDICTS_H
