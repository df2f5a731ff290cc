//===- RunInputs.h - The entry arguments motec run passes -------*- C++ -*-===//
///
/// \file
/// The arguments of a run, exactly as `motec eval` makes them (so the two
/// commands' outputs can be diffed): one .npy file per entry parameter, bound
/// and checked by InputBinding, or seeded generated values when none is given.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_RUNINPUTS_H
#define MOTE_TOOLS_RUNINPUTS_H

#include "EntrySignature.h"
#include "ExitCodes.h"

#include "hlo/Computation.h"
#include "hlo/Literal.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <variant>
#include <vector>

namespace mote::tools {

/// One Literal per entry parameter, or the exit code after printing what went
/// wrong (and the note about generated inputs) to `errs`.
std::variant<std::vector<hlo::Literal>, ExitCode>
prepareEntryArguments(const hlo::Computation &entry, llvm::ArrayRef<std::string> inputPaths,
                      uint64_t seed, llvm::raw_ostream &errs);

/// Prints `result` as eval and run do (summarised unless `printFull`) and
/// writes its array leaves to `outputPaths`, in flattened order.
ExitCode printAndWriteResult(const hlo::Literal &result, llvm::ArrayRef<NamedLeaf> names,
                             llvm::ArrayRef<std::string> outputPaths, bool printFull,
                             llvm::raw_ostream &out, llvm::raw_ostream &errs);

/// The array leaves of `literal` in flattened tuple order.
void collectArrayLeaves(const hlo::Literal &literal, std::vector<const hlo::Literal *> &leaves);

} // namespace mote::tools

#endif // MOTE_TOOLS_RUNINPUTS_H
