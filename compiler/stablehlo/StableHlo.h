//===- StableHlo.h - StableHLO MLIR text to Mote's HLO IR -------*- C++ -*-===//
///
/// \file
/// The StableHLO front end: reads the MLIR text JAX, PyTorch/XLA and
/// TensorFlow export (pretty or generic form) and builds the same HLO IR the
/// HLO text parser builds, so nothing below compiler/hlo knows it exists.
///
/// The model:
///   - A `func.func` is an HLO computation; its arguments are parameters and
///     its `return` is the root (a tuple when it returns several values). The
///     entry is `@main`, else the one public function, else the last one no
///     other function calls. `func.call` is an HLO `call` (the inliner folds
///     it); `stablehlo.composite` calls its decomposition.
///   - An SSA value is an HLO instruction; a value group with several results
///     (`%0:2`) is one instruction of tuple shape plus a get-tuple-element per
///     result that is used.
///   - A region is a computation of its own: reduce, sort, scatter, map and
///     window reductions take its block arguments as scalar parameters; a
///     while loop's regions take the loop values as one tuple; the branches
///     of if and case take one tuple. Values a region uses from outside
///     (MLIR regions may, HLO computations may not) travel as extra tuple
///     elements of while and conditional, and constants are copied in; any
///     other outside value in a scalar region is unsupported.
///   - Types map one to one (i32 -> s32, ui8 -> u8, complex<f32> -> c64,
///     !stablehlo.token -> token[], tuple<...> -> a tuple shape). A
///     quantized tensor is its storage integers; quantized ops become integer
///     HLO with explicit rescales (Quantized.cpp). CHLO ops become the HLO
///     ops of their decompositions (Chlo*.cpp).
///   - A `?` dimension is refined when the arguments pin it (a function is
///     converted per call with the static types it is called with); one
///     still unknown is unsupported (exit 3), as are ops that need several
///     devices (collectives, send/recv, infeed/outfeed).
///   - `check.*` ops and `check.expect_*` custom calls (the StableHLO test
///     suites' assertions) become HLO that computes one pred[] per check,
///     appended after the entry's results; the tools verify them.
///   - Every instruction is located at its MLIR operation, so errors point
///     into the .mlir file; a `loc(...)` naming a source file (JAX's) is
///     added as a note.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_STABLEHLO_STABLEHLO_H
#define MOTE_STABLEHLO_STABLEHLO_H

#include "hlo/Diagnostics.h"
#include "hlo/Module.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <string>
#include <vector>

namespace mote::stablehlo {

struct ConversionOptions {
  /// Name of the function to convert as the entry; empty: @main, else the
  /// public function, else the last function nothing calls.
  std::string entry;
  /// Test files compute `@main` from `@inputs()`, a function of constants:
  /// with this set, the values that call returns become entry parameters
  /// (so compiled code computes instead of folding constants), and
  /// ConvertedModule::inputs holds `@inputs` as a module of its own.
  bool liftInputs = false;
};

/// One `check.*` assertion: its result is a pred[] entry result leaf.
struct CheckDescription {
  std::string kind; ///< e.g. "check.expect_close"
  llvm::SMLoc location;
};

struct ConvertedModule {
  std::unique_ptr<hlo::Module> module;
  /// The last checks.size() leaves of the entry's result are these checks.
  std::vector<CheckDescription> checks;
  /// With ConversionOptions::liftInputs: the lifted `@inputs()` as an entry
  /// computation without parameters, whose results are the entry's arguments.
  std::unique_ptr<hlo::Module> inputs;
};

/// A located error for input that is valid StableHLO but not supported here
/// (multi-device ops, truly dynamic shapes, unknown custom calls): tools
/// exit with status 3 for it.
class UnsupportedError : public llvm::ErrorInfo<UnsupportedError, hlo::LocatedError> {
public:
  static char ID;
  UnsupportedError(llvm::SMLoc location, const llvm::Twine &message)
      : llvm::ErrorInfo<UnsupportedError, hlo::LocatedError>(location, message.str()) {}
};

/// Whether `text` is MLIR rather than HLO text: its first word is `module`,
/// `func.func`, a `#alias =`, `!alias =`, `"builtin.module"` or `{-#`.
bool looksLikeMlir(llvm::StringRef text);

/// Parses and converts buffer `bufferId` of `sourceManager`. The module keeps
/// the source manager for later diagnostics. It is not verified yet.
llvm::Expected<ConvertedModule> convertStableHlo(std::shared_ptr<llvm::SourceMgr> sourceManager,
                                                 unsigned bufferId,
                                                 const ConversionOptions &options = {});

/// Like convertStableHlo() for `text`, a part of one of `sourceManager`'s
/// buffers (a piece of splitInputFile()), so errors keep the file's lines.
llvm::Expected<ConvertedModule> convertStableHloText(std::shared_ptr<llvm::SourceMgr> sourceManager,
                                                     llvm::StringRef text,
                                                     const ConversionOptions &options = {});

/// The pieces of a file split at lines `// -----` (mlir-opt's
/// -split-input-file), as views into `text`.
std::vector<llvm::StringRef> splitInputFile(llvm::StringRef text);

} // namespace mote::stablehlo

#endif // MOTE_STABLEHLO_STABLEHLO_H
