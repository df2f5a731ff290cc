//===- WeightsFile.h - Named arrays from .npz and .safetensors --*- C++ -*-===//
///
/// \file
/// The two files frameworks save trained weights in, read as named arrays:
///  - .npz (numpy.savez, savez_compressed): a zip archive of .npy members,
///    stored or deflated; the key is the member name without `.npy`. NumPy
///    has no bfloat16: arrays saved through ml_dtypes have dtype `V2` (two
///    raw bytes) and are read as bf16.
///  - .safetensors: an 8-byte little-endian header length, a JSON header
///    {"key": {"dtype": "F32", "shape": [..], "data_offsets": [b, e]}, ...,
///    "__metadata__": {...}} and the data, offsets relative to its start.
/// Both are treated as hostile: every size and offset is checked.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_WEIGHTSFILE_H
#define MOTE_TOOLS_WEIGHTSFILE_H

#include "hlo/Literal.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mote::tools {

struct NamedArray {
  std::string key;
  hlo::Literal value;
};

/// Arrays of an .npz file, in archive order. Errors start with `path`.
llvm::Expected<std::vector<NamedArray>> readNpzFile(llvm::StringRef path);

/// Arrays of a .safetensors file, in data order.
llvm::Expected<std::vector<NamedArray>> readSafetensorsFile(llvm::StringRef path);

/// Either, by the file's extension (.npz, .safetensors; .npy is one array
/// keyed by the file's stem).
llvm::Expected<std::vector<NamedArray>> readWeightsFile(llvm::StringRef path);

} // namespace mote::tools

#endif // MOTE_TOOLS_WEIGHTSFILE_H
