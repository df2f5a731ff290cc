//===- SignatureBuilder.h - A model signature from an entry computation -*- C++ -*-===//
#ifndef MOTE_CODEGEN_SIGNATUREBUILDER_H
#define MOTE_CODEGEN_SIGNATUREBUILDER_H

#include "codegen/ModelSignature.h"

#include "hlo/Module.h"

#include "llvm/Support/Error.h"

namespace mote::codegen {

/// The caller-visible arguments and results of `module`'s entry computation,
/// with the layouts of `entry_computation_layout` when the module has one.
/// Call before passes change the entry's parameters. Fails (located) on
/// element types code generation cannot pass across the ABI.
llvm::Expected<ModelSignature> buildSignature(const hlo::Module &module, llvm::StringRef name);

/// A C identifier made from `text` (invalid characters become '_').
std::string toIdentifier(llvm::StringRef text);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_SIGNATUREBUILDER_H
