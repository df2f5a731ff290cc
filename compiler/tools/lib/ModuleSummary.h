//===- ModuleSummary.h - One-screen description of a module -----*- C++ -*-===//
#ifndef MOTE_TOOLS_MODULESUMMARY_H
#define MOTE_TOOLS_MODULESUMMARY_H

#include "hlo/Module.h"

#include "llvm/Support/raw_ostream.h"

namespace mote::tools {

/// What `motec check` prints for a valid module: name, computation and
/// instruction counts, the most used opcodes, the entry's parameters and
/// results (flattened, named, with shapes), constants (and how many were
/// elided from the dump), and whether the evaluator can run it.
void printModuleSummary(const hlo::Module &module, llvm::raw_ostream &os);

} // namespace mote::tools

#endif // MOTE_TOOLS_MODULESUMMARY_H
