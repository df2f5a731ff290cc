//===- ObjectEmitter.h - LLVM module to object, assembly or IR --*- C++ -*-===//
#ifndef MOTE_OUTPUT_OBJECTEMITTER_H
#define MOTE_OUTPUT_OBJECTEMITTER_H

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <string>

namespace mote::output {

enum class EmitKind { Object, Assembly, LlvmIr };

/// Runs LLVM's optimisation pipeline (new pass manager, O2 or O3 per
/// `optLevel`) on `module` for `machine`.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine, unsigned optLevel = 3);

/// The bytes of `module` as an ELF object, assembly text, or LLVM IR text.
llvm::Expected<std::string> emitModule(llvm::Module &module, llvm::TargetMachine &machine,
                                       EmitKind kind);

} // namespace mote::output

#endif // MOTE_OUTPUT_OBJECTEMITTER_H
