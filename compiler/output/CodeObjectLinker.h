//===- CodeObjectLinker.h - A model object to a loadable code object -*- C++ -*-===//
///
/// \file
/// Turns the relocatable object of one compiled model into the code object a
/// package carries: a position-independent ELF shared object with no imports,
/// linked in-process with LLD together with a freestanding memcpy/memset (and
/// compiler builtins from the target's libgcc when the code needs them), so
/// the runtime's loader only has relative relocations to apply.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_OUTPUT_CODEOBJECTLINKER_H
#define MOTE_OUTPUT_CODEOBJECTLINKER_H

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <string>
#include <vector>

namespace mote::output {

struct CodeObject {
  std::string elf;
  uint64_t descriptorOffset = 0; ///< image address of <name>_model
  uint64_t entryOffset = 0;      ///< image address of <name>_entry, Thumb bit clear
};

struct CodeObjectInputs {
  llvm::StringRef object;                    ///< the model's relocatable ELF object
  llvm::StringRef symbolPrefix;              ///< <prefix>_model, <prefix>_entry
  const llvm::Module *modelModule = nullptr; ///< for the triple and target-abi flag
  llvm::TargetMachine *machine = nullptr;
  /// Archives searched for routines the code calls (e.g. the target's libgcc.a
  /// for soft-float routines); may be empty.
  std::vector<std::string> archives;
};

/// Links `inputs` into a code object. Fails with LLD's messages when the
/// code refers to anything the inputs do not define.
llvm::Expected<CodeObject> linkCodeObject(const CodeObjectInputs &inputs);

} // namespace mote::output

#endif // MOTE_OUTPUT_CODEOBJECTLINKER_H
