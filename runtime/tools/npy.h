//===- npy.h - NumPy .npy arrays for mote-run -------------------------------===//
//
// Reads and writes the .npy files mote-run exchanges with users, following
// motec's conventions so the two tools agree on every file: versions 1.0 to
// 3.0, little- or big-endian data, C or Fortran order (read back as
// row-major), bool normalised to 0/1, and bf16 carried as float32 (rounded
// to nearest even on the way in, widened exactly on the way out).
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_RUNTIME_TOOLS_NPY_H
#define MOTE_RUNTIME_TOOLS_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace mote::run {

/// A row-major array as read from a .npy file, in host byte order.
struct NpyArray {
  uint32_t element_type = 0; ///< mote_element_type (never MOTE_BF16)
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};

/// The .npy dtype name of `element_type` ("f4", "i8", ...; bf16 is "f4"),
/// or "?" when it has none.
const char *npyTypeName(uint32_t element_type);

/// Parses `bytes` as a .npy file. On failure returns false and sets `error`
/// to a message (without the file name).
bool decodeNpy(const std::vector<uint8_t> &bytes, NpyArray *out, std::string *error);

/// Encodes a row-major array as .npy: `element_type` is the model's; bf16
/// data (2 bytes an element) is widened to float32.
std::vector<uint8_t> encodeNpy(uint32_t element_type, const int64_t *dims, uint32_t rank,
                               const uint8_t *data, size_t size);

/// bf16 from float32 the way motec rounds (nearest even, NaN kept quiet).
uint16_t bfloat16FromFloat(float value);

/// Reads or writes a whole file; false with `error` set on failure.
bool readFile(const char *path, std::vector<uint8_t> *out, std::string *error);
bool writeFile(const char *path, const std::vector<uint8_t> &bytes, std::string *error);

} // namespace mote::run

#endif // MOTE_RUNTIME_TOOLS_NPY_H
