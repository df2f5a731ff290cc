//===- Npy.h - NumPy .npy files as Literals ---------------------*- C++ -*-===//
///
/// \file
/// Reads and writes NumPy's .npy format (versions 1.0, 2.0 and 3.0).
///
/// dtypes: <f2 <f4 <f8 |b1 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 <c8 <c16, in either
/// byte order ('>' data is swapped on load). Fortran-ordered arrays are
/// transposed into the row-major order a Literal keeps. NumPy has no bf16, so
/// bf16 values are written widened to float32 (exact); reading a float32 file
/// for a bf16 parameter is InputBinding's job. Sub-byte integers (s2, s4, u2,
/// u4) are written one element a byte as int8/uint8.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_NPY_H
#define MOTE_TOOLS_NPY_H

#include "hlo/Literal.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace mote::tools {

/// The element type a dtype string such as "<f4" or "|b1" holds, and whether
/// its bytes are big-endian. std::nullopt for dtypes Mote cannot represent.
struct NpyDtype {
  hlo::PrimitiveType type;
  bool bigEndian;
};
std::optional<NpyDtype> parseNpyDtype(llvm::StringRef descr);

/// The dtype string a Literal of `type` is written with ("<f4" for bf16);
/// std::nullopt for types .npy cannot hold (f8, tuple, token).
std::optional<std::string> npyDtypeFor(hlo::PrimitiveType type);

/// Decodes a whole .npy file held in memory. `name` prefixes error messages.
llvm::Expected<hlo::Literal> decodeNpy(llvm::StringRef bytes, llvm::StringRef name = "<npy>");

/// Encodes an array Literal as .npy version 1.0 (2.0 when the header needs
/// more than 64 KiB), the header padded so the data starts 64-byte aligned.
llvm::Expected<std::string> encodeNpy(const hlo::Literal &literal);

llvm::Expected<hlo::Literal> readNpyFile(llvm::StringRef path);
llvm::Error writeNpyFile(const hlo::Literal &literal, llvm::StringRef path);

} // namespace mote::tools

#endif // MOTE_TOOLS_NPY_H
