//===- RunModel.h - Run a model object on its target ------------*- C++ -*-===//
///
/// \file
/// Links a model's object with the run driver (compiler/tools/driver) using
/// the target's C compiler, runs it natively or under QEMU, and returns the
/// result bytes. Everything happens in a fresh temporary directory.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_RUNMODEL_H
#define MOTE_TOOLS_RUNMODEL_H

#include "target/Target.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mote::tools {

/// The driver's C source and the ABI header it includes, as built into motec.
llvm::StringRef runDriverSource();
llvm::StringRef abiHeaderSource();

struct RunRequest {
  target::TargetSpec target;
  /// <prefix>_entry and <prefix>_model are the object's symbols.
  std::string symbolPrefix;
  /// An ELF object for `target`.
  std::string object;
  /// Each argument's bytes in its compiled layout, in flattened order.
  std::vector<std::vector<uint8_t>> arguments;
  /// Expected byte size of each result.
  std::vector<uint64_t> resultBytes;
  /// The run (not the build) is stopped after this long; 0 means no limit.
  unsigned timeoutSeconds = 600;
  /// Keep the work files in this directory (created if needed) instead of
  /// a temporary one that is removed afterwards.
  std::string keepDir;
};

/// The result bytes in their compiled layouts, or a ToolError (missing
/// tools: ExitUnsupported; a failed build or run: ExitInternalError).
llvm::Expected<std::vector<std::vector<uint8_t>>> runModelObject(const RunRequest &request);

} // namespace mote::tools

#endif // MOTE_TOOLS_RUNMODEL_H
