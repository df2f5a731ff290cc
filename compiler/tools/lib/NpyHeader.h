//===- NpyHeader.h - The dictionary in a .npy file's header -----*- C++ -*-===//
///
/// \file
/// A .npy header is a Python dict literal such as
///   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
/// This reads the subset NumPy writes (string, bool and int-tuple values) and
/// writes it back the way numpy.save does.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_NPYHEADER_H
#define MOTE_TOOLS_NPYHEADER_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mote::tools {

struct NpyHeader {
  std::string descr; ///< e.g. "<f4", "|b1"
  bool fortranOrder = false;
  llvm::SmallVector<int64_t, 4> shape;
};

/// Parses the dict text (without magic and length). All three keys are
/// required; unknown keys and structured dtypes are errors.
llvm::Expected<NpyHeader> parseNpyHeaderDict(llvm::StringRef text);

/// The dict text numpy.save writes, without padding or newline.
std::string formatNpyHeaderDict(const NpyHeader &header);

} // namespace mote::tools

#endif // MOTE_TOOLS_NPYHEADER_H
