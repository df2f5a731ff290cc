//===- ComputationEdit.h - Small edits passes make to computations -*- C++ -*-===//
///
/// \file
/// The edits every pass needs and the IR does not offer: redirecting uses,
/// restoring definition order after appending instructions, fresh names, and
/// which computations run with buffers rather than as scalar code.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_PASSES_COMPUTATIONEDIT_H
#define MOTE_PASSES_COMPUTATIONEDIT_H

#include "hlo/Module.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <memory>
#include <string>
#include <vector>

namespace mote::passes {

/// Points every operand use of `from` in `computation`, and the root if it is
/// `from`, at `to`.
void replaceAllUses(hlo::Computation &computation, const hlo::Instruction *from,
                    hlo::Instruction *to);

/// Reorders `computation`'s instructions so that operands come before their
/// users, keeping the existing order wherever it is already valid. Passes
/// append new instructions and call this; instruction addresses stay valid.
void restoreDefinitionOrder(hlo::Computation &computation);

/// Hands out instruction names not yet used anywhere in a module.
class NameTable {
public:
  explicit NameTable(const hlo::Module &module);
  /// `base` itself when free, else `base.N` for the smallest free N.
  std::string unique(llvm::StringRef base);

private:
  llvm::StringSet<> used_;
};

/// A new instruction of `opcode` with `shape` and `operands`.
std::unique_ptr<hlo::Instruction> makeInstruction(hlo::Opcode opcode, std::string name,
                                                  hlo::Shape shape,
                                                  llvm::ArrayRef<hlo::Instruction *> operands);

/// Whether `user`'s called computation number `index` runs as scalar code
/// (to_apply of reduce, map, sort, scatter, ..., and the computation of a
/// fusion, emitted elementally), as opposed to a computation with buffers of
/// its own (while condition/body, conditional branch, call).
bool callsAsScalarCode(const hlo::Instruction &user, size_t index);

/// The computations that run with buffers, callers before callees: the
/// entry, and what while, conditional and call reach from it.
std::vector<const hlo::Computation *> bufferComputations(const hlo::Module &module);

/// Whether running `instruction` reads or advances the module's hidden random
/// state: rng, rng-get-and-update-state, or an instruction whose called
/// computations reach one. The evaluator runs such instructions once each,
/// in definition order, and compiled code must do the same to draw the same
/// numbers.
bool usesRandomState(const hlo::Instruction &instruction);

/// Same dimensions, element types and physical layouts (an absent layout is
/// row-major), recursively.
bool identicalShapes(const hlo::Shape &a, const hlo::Shape &b);

/// Bytes an array value takes in memory (storage bytes per element).
uint64_t arrayBytes(const hlo::Shape &shape);

/// Dimensions of `shape` in physical order, major to minor.
llvm::SmallVector<int64_t, 4> majorToMinor(const hlo::Shape &shape);

} // namespace mote::passes

#endif // MOTE_PASSES_COMPUTATIONEDIT_H
