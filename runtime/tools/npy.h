//===- npy.h - NumPy .npy files, read strictly ------------------------------===//
//
// The one implementation of NumPy's .npy format that motec and mote-run share
// (motec wraps it in compiler/tools/lib/Npy.h), so the two tools accept and
// write exactly the same files. It needs only the C++ standard library.
//
// Reading is strict: versions 1.0, 2.0 and 3.0; a header dict with exactly
// the keys 'descr', 'fortran_order' and 'shape' in the Python literal syntax
// numpy.save writes (quoted strings, True/False, a tuple of non-negative
// integers), followed by nothing but spaces and newlines; a dtype of one of
// the fixed-size kinds below in a byte order that fits it; and data of
// exactly the size the shape says. Arrays come back row-major (Fortran order
// is transposed) in host byte order, bools as 0 or 1.
//
// Writing follows numpy.save: version 1.0 (2.0 once the header passes
// 64 KiB), the header padded with spaces so the data starts 64-byte aligned.
// NumPy has no bf16, so bf16 arrays are written widened to float32 (exact),
// and the sub-byte integers one element a byte as int8/uint8.
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_RUNTIME_TOOLS_NPY_H
#define MOTE_RUNTIME_TOOLS_NPY_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mote::npy {

/// A dtype string such as "<f4" or "|b1": its element type (a
/// mote_element_type, never MOTE_BF16 or a sub-byte type) and whether its
/// bytes are big-endian.
struct Dtype {
  uint32_t element_type = 0;
  bool big_endian = false;
};

/// Parses `descr`; false for dtypes Mote cannot represent (structured,
/// strings, objects, datetimes) and for '|' on a type wider than a byte.
bool parseDtype(std::string_view descr, Dtype *out);

/// The .npy dtype name of `element_type` ("f4", "i8", ...; "f4" for bf16,
/// "i1"/"u1" for the sub-byte integers), or "?" when it has none.
const char *dtypeName(uint32_t element_type);

/// The dtype string an array of `element_type` is written with ("<f4" for
/// bf16, "|b1" for pred); empty when it has none.
std::string dtypeFor(uint32_t element_type);

/// The dict of a .npy header.
struct Header {
  std::string descr; ///< e.g. "<f4", "|b1"
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

/// Parses the dict text (the header without magic and length). False with
/// `error` set ("bad .npy header: ...") for anything numpy.save would not
/// have written: missing or unknown keys, other value syntax, trailing text.
bool parseHeader(std::string_view text, Header *out, std::string *error);

/// The dict text numpy.save writes for `header`, without padding or newline.
std::string formatHeader(const Header &header);

/// A row-major array in host byte order.
struct Array {
  uint32_t element_type = 0; ///< mote_element_type, as the file's dtype says
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};

/// Parses a whole .npy file. False with `error` set to a message that does
/// not name the file.
bool decode(const uint8_t *bytes, size_t size, Array *out, std::string *error);

/// Encodes a row-major array of `element_type` (any mote_element_type with a
/// dtype: bf16 data is widened to float32, sub-byte integers are written as
/// int8/uint8 bytes). `data` holds `size` bytes in host byte order.
std::vector<uint8_t> encode(uint32_t element_type, const int64_t *dims, size_t rank,
                            const void *data, size_t size);

/// bf16 from float32, rounded to nearest even (NaNs stay NaN, quiet).
uint16_t bfloat16FromFloat(float value);

} // namespace mote::npy

#endif // MOTE_RUNTIME_TOOLS_NPY_H
