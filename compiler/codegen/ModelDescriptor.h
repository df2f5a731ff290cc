//===- ModelDescriptor.h - The mote_model_desc of a compiled model -*- C++ -*-===//
#ifndef MOTE_CODEGEN_MODELDESCRIPTOR_H
#define MOTE_CODEGEN_MODELDESCRIPTOR_H

#include "codegen/ModelSignature.h"

#include "llvm/IR/Module.h"

#include <string>

namespace mote::codegen {

/// The bytes of the mote_model_desc for `signature` (include/mote/abi.h),
/// little-endian, self-contained: every offset points inside the blob.
std::string encodeModelDescriptor(const ModelSignature &signature);

/// Adds the descriptor to `module` as the read-only global `<name>_model`.
void emitModelDescriptor(const ModelSignature &signature, llvm::Module &module);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_MODELDESCRIPTOR_H
