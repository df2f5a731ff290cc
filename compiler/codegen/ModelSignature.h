//===- ModelSignature.h - What a compiled model takes and returns -*- C++ -*-===//
///
/// \file
/// The caller-visible interface of a compiled model: its arguments and results
/// as flat arrays (tuple leaves flattened), and its scratch needs. Code
/// generation emits it as the model descriptor (mote_model_desc in
/// include/mote/abi.h); the header writer turns it into typed accessors.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_MODELSIGNATURE_H
#define MOTE_CODEGEN_MODELSIGNATURE_H

#include "hlo/PrimitiveType.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mote::codegen {

struct TensorSignature {
  std::string name; ///< a C identifier, unique within args or results
  /// The name as its author wrote it, for accessors: JAX's
  /// metadata={op_name="pixels"}, else the HLO name without its ".N"
  /// instruction number, in lower case ("Arg_0.7" -> arg_0).
  std::string readableName;
  hlo::PrimitiveType elementType;
  llvm::SmallVector<int64_t, 4> dims;
  llvm::SmallVector<int64_t, 4> minorToMajor; ///< the compiled layout
  uint64_t byteSize = 0;
};

struct ModelSignature {
  std::string name; ///< the symbol prefix: <name>_entry, <name>_model
  std::string triple;
  std::string cpu;
  std::string features;
  std::vector<TensorSignature> args;
  std::vector<TensorSignature> results;
  uint64_t scratchSize = 0;
  uint32_t scratchAlignment = 16;
  /// Bytes the code reads through mote_call.weights (0: constants in the code).
  uint64_t weightsSize = 0;
  uint32_t weightsAlignment = 0;
  /// input_output_alias: result leaf `result` lives in the buffer of
  /// argument leaf `arg` (the caller passes one buffer for both).
  struct Alias {
    uint32_t result = 0, arg = 0;
    bool mustAlias = false;
  };
  std::vector<Alias> aliases;
};

/// ABI element-type code (mote_element_type) of `type`, 0 if it has none.
uint8_t abiElementType(hlo::PrimitiveType type);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_MODELSIGNATURE_H
