//===- Locations.h - MLIR `loc(...)` for diagnostics ------------*- C++ -*-===//
///
/// \file
/// MLIR files carry the source program's locations (JAX writes
/// `loc("x.py":12:3)`, names and call sites around it, often through `#loc`
/// aliases defined at the end of the file). Errors keep pointing into the
/// .mlir text; these add the program's own file:line:col when there is one.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_STABLEHLO_LOCATIONS_H
#define MOTE_STABLEHLO_LOCATIONS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace mote::stablehlo {

/// The first `file:line:col` that `location` (the text inside `loc(...)`, or
/// `#name` of an alias) leads to, following aliases; empty if none.
std::string sourceFileLocation(llvm::StringRef location,
                               const std::vector<std::pair<std::string, std::string>> &aliases);

/// `error` with " (from file:line:col)" added to its message when `location`
/// names a source file; other errors unchanged.
llvm::Error withSourceLocation(llvm::Error error, llvm::StringRef location,
                               const std::vector<std::pair<std::string, std::string>> &aliases);

} // namespace mote::stablehlo

#endif // MOTE_STABLEHLO_LOCATIONS_H
