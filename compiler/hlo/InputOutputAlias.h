//===- InputOutputAlias.h - A module's donated buffers ----------*- C++ -*-===//
///
/// \file
/// The `input_output_alias` header attribute, typed. Each entry says that
/// one leaf of the entry result may live in (may-alias) or must live in
/// (must-alias) the memory of one leaf of an entry parameter: the caller
/// donates that argument's buffer, as JAX does for a training step's
/// parameters (`donate_argnums`) or a decode step's KV cache:
///
///   input_output_alias={ {0}: (17, {}, may-alias), {1, 2}: (3, {0}, must-alias) }
///
/// reads "result leaf {0} may share parameter 17's memory; result {1, 2}
/// must share leaf {0} of parameter 3". The kind may be omitted (may-alias).
/// Indices are shape indices (tuple positions, outermost first; {} for an
/// array), as XLA prints them.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_INPUTOUTPUTALIAS_H
#define MOTE_HLO_INPUTOUTPUTALIAS_H

#include "hlo/Module.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mote::hlo {

using ShapeIndex = llvm::SmallVector<int64_t, 2>;

struct AliasEntry {
  ShapeIndex output;     ///< leaf of the entry result
  int64_t parameter = 0; ///< entry parameter number
  ShapeIndex parameterIndex;
  bool mustAlias = false;
};

/// Parses the attribute's value (the text after `input_output_alias=`).
llvm::Expected<std::vector<AliasEntry>> parseInputOutputAlias(llvm::StringRef text);

/// The attribute's value as XLA prints it.
std::string formatInputOutputAlias(llvm::ArrayRef<AliasEntry> entries);

/// The module's entries (none when it has no such attribute), or an error
/// saying what is wrong with the text.
llvm::Expected<std::vector<AliasEntry>> inputOutputAlias(const Module &module);

/// Replaces the module's attribute (removes it when `entries` is empty).
void setInputOutputAlias(Module &module, llvm::ArrayRef<AliasEntry> entries);

/// The position of the leaf at `index` of `shape` among its leaves in
/// flattened order (Shape::collectLeaves), or -1 when `index` does not name
/// a leaf of `shape`.
int64_t flatLeafIndex(const Shape &shape, llvm::ArrayRef<int64_t> index);

} // namespace mote::hlo

#endif // MOTE_HLO_INPUTOUTPUTALIAS_H
