//===- ParameterBinding.h - --params and --outputs for a command -*- C++ -*-===//
///
/// \file
/// A model exported by a framework is a function of its weights; deploying
/// it means fixing those. `--params weights.npz` (or .safetensors, or
/// several files) binds entry parameters to arrays: a key is the
/// parameter's name as the module spells it (`state_0__0_.1`, `Arg_2.3`,
/// with or without `%`) or its number (`"0"`, `"17"`). Each array must have
/// exactly the parameter's element type and dimensions; a key that names no
/// parameter, or a parameter bound twice, is an error. Unbound parameters
/// stay inputs, in their order. `--outputs 0,3` keeps those elements of the
/// result tuple; without it, results that only hand back a bound parameter
/// are dropped (motec report says so).
///
/// Both change the module's interface, so they run right after loading,
/// before anything reads the entry: compile, run, report and eval all see
/// the same bound module (passes/BindParameters.h does the rewriting).
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_PARAMETERBINDING_H
#define MOTE_TOOLS_PARAMETERBINDING_H

#include "ExitCodes.h"
#include "ModuleFile.h"

#include "hlo/Module.h"
#include "passes/BindParameters.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace mote::tools {

/// The command-line flags that change a model's interface.
struct InterfaceFlags {
  std::vector<std::string> paramsPaths; ///< --params, in order
  std::string outputs;                  ///< --outputs: "0,3"; empty keeps the default
};

/// `--outputs` text as result numbers, or an error.
llvm::Expected<std::optional<std::vector<int64_t>>> parseOutputList(llvm::StringRef text);

/// The arrays of `flags.paramsPaths` matched to `entry`'s parameters, or an
/// error naming the file, the key and the parameter.
llvm::Expected<std::vector<passes::BoundParameter>>
matchParameters(const hlo::Computation &entry, llvm::ArrayRef<std::string> paramsPaths);

/// Loads and verifies `path` (loadModuleFile), then binds and selects as
/// `flags` say, recording what changed in `changes` (may be null). On
/// failure prints the error and returns no module, with the exit code.
LoadedModule loadModelWithInterface(llvm::StringRef path, const InterfaceFlags &flags, llvm::raw_ostream &errs,
                       passes::InterfaceChanges *changes = nullptr);

/// What binding and output selection did, as `motec report` prints it
/// (nothing when they did nothing) and as its --json fields.
void printInterfaceChanges(const passes::InterfaceChanges &changes, llvm::raw_ostream &out);
void addInterfaceChanges(const passes::InterfaceChanges &changes, llvm::json::Object &report);

} // namespace mote::tools

#endif // MOTE_TOOLS_PARAMETERBINDING_H
