//===- CompileProgress.h - Phases of a long compile, as they start -*- C++ -*-===//
///
/// \file
/// A large model (billions of weights, tens of thousands of instructions)
/// takes minutes to compile. The compile names each phase as it starts, so
/// a person watching sees where the time goes; what they see (and whether
/// anything at all) is the listener's business.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_OUTPUT_COMPILEPROGRESS_H
#define MOTE_OUTPUT_COMPILEPROGRESS_H

#include "llvm/ADT/StringRef.h"

namespace mote::output {

class CompileProgress {
public:
  virtual ~CompileProgress() = default;
  /// `name` starts ("passes", "code generation", ...); `detail` says how
  /// much of it there is ("1234 functions"), or is empty.
  virtual void phase(llvm::StringRef name, llvm::StringRef detail = "") = 0;
};

} // namespace mote::output

#endif // MOTE_OUTPUT_COMPILEPROGRESS_H
