//===- npy.cc - NumPy .npy files, read strictly ---------------------------===//
#include "npy.h"

#include <algorithm>
#include <cstring>

#include "mote/abi.h"

namespace mote::npy {
namespace {

struct DtypeKind {
  const char *name; ///< without the byte-order character
  uint32_t type;
  size_t bytes;
};
// The fixed-size dtypes a Mote tensor can hold.
constexpr DtypeKind kKinds[] = {{"b1", MOTE_PRED, 1}, {"i1", MOTE_S8, 1},    {"u1", MOTE_U8, 1},
                                {"i2", MOTE_S16, 2},  {"u2", MOTE_U16, 2},   {"i4", MOTE_S32, 4},
                                {"u4", MOTE_U32, 4},  {"i8", MOTE_S64, 8},   {"u8", MOTE_U64, 8},
                                {"f2", MOTE_F16, 2},  {"f4", MOTE_F32, 4},   {"f8", MOTE_F64, 8},
                                {"c8", MOTE_C64, 8},  {"c16", MOTE_C128, 16}};

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
/// numpy.save pads headers to this: mmap-friendly and enough for any SIMD load.
constexpr size_t kHeaderAlignment = 64;

bool hostIsBigEndian() {
  const uint16_t probe = 1;
  uint8_t first;
  memcpy(&first, &probe, 1);
  return first == 0;
}

const DtypeKind *kindOf(uint32_t element_type) {
  for (const DtypeKind &kind : kKinds)
    if (kind.type == element_type)
      return &kind;
  return nullptr;
}

size_t elementBytes(uint32_t element_type) {
  const DtypeKind *kind = kindOf(element_type);
  return kind ? kind->bytes : 0;
}

void swapEach(uint8_t *data, size_t size, size_t unit) {
  for (size_t at = 0; at + unit <= size; at += unit)
    std::reverse(data + at, data + at + unit);
}

// Column-major to row-major (numpy writes Fortran-ordered arrays that way).
void fortranToRowMajor(const uint8_t *in, uint8_t *out, size_t count,
                       const std::vector<int64_t> &dims, size_t element) {
  size_t rank = dims.size();
  std::vector<int64_t> stride(rank, 1), index(rank, 0);
  for (size_t d = 1; d < rank; ++d)
    stride[d] = stride[d - 1] * dims[d - 1];
  for (size_t linear = 0; linear < count; ++linear) {
    int64_t from = 0;
    for (size_t d = 0; d < rank; ++d)
      from += index[d] * stride[d];
    memcpy(out + linear * element, in + size_t(from) * element, element);
    for (size_t d = rank; d-- > 0;) { // row-major increment
      if (++index[d] < dims[d])
        break;
      index[d] = 0;
    }
  }
}

std::string shapeText(const std::vector<int64_t> &dims) {
  std::string text;
  for (int64_t dim : dims)
    text += (text.empty() ? "" : ", ") + std::to_string(dim);
  return "(" + text + ")";
}

} // namespace

bool parseDtype(std::string_view descr, Dtype *out) {
  if (descr.size() < 2)
    return false;
  char order = descr.front();
  bool big_endian;
  if (order == '<' || order == '|')
    big_endian = false;
  else if (order == '>')
    big_endian = true;
  else if (order == '=')
    big_endian = hostIsBigEndian();
  else
    return false;
  descr.remove_prefix(1);
  for (const DtypeKind &kind : kKinds) {
    if (descr != kind.name)
      continue;
    // '|' means "byte order does not apply": only right for one-byte types.
    if (order == '|' && kind.bytes != 1)
      return false;
    *out = Dtype{kind.type, kind.bytes > 1 && big_endian};
    return true;
  }
  return false;
}

const char *dtypeName(uint32_t element_type) {
  if (element_type == MOTE_BF16)
    return "f4";
  if (element_type == MOTE_S4 || element_type == MOTE_S2)
    return "i1";
  if (element_type == MOTE_U4 || element_type == MOTE_U2)
    return "u1";
  const DtypeKind *kind = kindOf(element_type);
  return kind ? kind->name : "?";
}

std::string dtypeFor(uint32_t element_type) {
  std::string name = dtypeName(element_type);
  if (name == "?")
    return "";
  bool one_byte = name == "b1" || name == "i1" || name == "u1";
  return (one_byte ? "|" : hostIsBigEndian() ? ">" : "<") + name;
}

uint16_t bfloat16FromFloat(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep the sign, force quiet
    return uint16_t((bits >> 16) | 0x0040u);
  uint32_t rounding_bias = 0x7fffu + ((bits >> 16) & 1u);
  return uint16_t((bits + rounding_bias) >> 16);
}

bool decode(const uint8_t *bytes, size_t size, Array *out, std::string *error) {
  if (size < kMagicSize + 4 || memcmp(bytes, kMagic, kMagicSize) != 0) {
    *error = "not a .npy file (bad magic; expected \\x93NUMPY)";
    return false;
  }
  unsigned major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0) {
    *error = "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor) +
             " (expected 1.0, 2.0 or 3.0)";
    return false;
  }
  size_t length_bytes = major == 1 ? 2 : 4;
  if (size < 8 + length_bytes) {
    *error = "truncated .npy header";
    return false;
  }
  uint64_t header_length = 0;
  for (size_t i = 0; i < length_bytes; ++i)
    header_length |= uint64_t(bytes[8 + i]) << (8 * i);
  if (header_length > size - 8 - length_bytes) {
    *error = "truncated .npy header (it declares " + std::to_string(header_length) +
             " bytes, the file has " + std::to_string(size - 8 - length_bytes) + ")";
    return false;
  }
  size_t data_offset = 8 + length_bytes + size_t(header_length);
  Header header;
  std::string_view dict(reinterpret_cast<const char *>(bytes) + 8 + length_bytes,
                        size_t(header_length));
  if (!parseHeader(dict, &header, error))
    return false;

  Dtype dtype;
  if (!parseDtype(header.descr, &dtype)) {
    *error = "unsupported dtype '" + header.descr +
             "' (expected one of f2 f4 f8 b1 i1 u1 i2 u2 i4 u4 i8 u8 c8 c16)";
    return false;
  }
  size_t element = elementBytes(dtype.element_type);
  size_t available = size - data_offset;
  // The element count, stopping as soon as it exceeds what the data holds
  // (so it cannot overflow); a zero dimension anywhere makes it 0.
  bool empty = std::find(header.shape.begin(), header.shape.end(), 0) != header.shape.end();
  uint64_t count = empty ? 0 : 1;
  bool too_many = false;
  for (int64_t dim : header.shape) {
    if (empty)
      break;
    if (count > available / element / uint64_t(dim)) {
      too_many = true;
      break;
    }
    count *= uint64_t(dim);
  }
  if (too_many || count * element != available) {
    *error = "data size mismatch: the header declares " + header.descr + " with shape " +
             shapeText(header.shape) + " but the file holds " + std::to_string(available) +
             " data bytes";
    return false;
  }

  out->element_type = dtype.element_type;
  out->dims = header.shape;
  out->data.resize(available);
  const uint8_t *data = bytes + data_offset;
  if (header.fortran_order)
    fortranToRowMajor(data, out->data.data(), size_t(count), header.shape, element);
  else if (available)
    memcpy(out->data.data(), data, available);
  if (dtype.big_endian != hostIsBigEndian() && element > 1) // complex: each part
    swapEach(out->data.data(), available,
             dtype.element_type == MOTE_C64 || dtype.element_type == MOTE_C128 ? element / 2
                                                                               : element);
  if (dtype.element_type == MOTE_PRED) // a bool must hold exactly 0 or 1
    for (uint8_t &byte : out->data)
      byte = byte != 0;
  return true;
}

std::vector<uint8_t> encode(uint32_t element_type, const int64_t *dims, size_t rank,
                            const void *data, size_t size) {
  Header header;
  header.descr = dtypeFor(element_type);
  header.shape.assign(dims, dims + rank);
  std::string dict = formatHeader(header);

  // magic + version + length + dict + '\n', padded with spaces to the
  // alignment; a 4-byte length (version 2.0) once 2 bytes cannot hold it.
  size_t length_bytes = 2;
  size_t unpadded = kMagicSize + 2 + length_bytes + dict.size() + 1;
  size_t total = (unpadded + kHeaderAlignment - 1) / kHeaderAlignment * kHeaderAlignment;
  if (total - kMagicSize - 2 - length_bytes > 0xffff) {
    length_bytes = 4;
    unpadded += 2;
    total = (unpadded + kHeaderAlignment - 1) / kHeaderAlignment * kHeaderAlignment;
  }
  size_t header_length = total - kMagicSize - 2 - length_bytes;

  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  out.push_back(length_bytes == 2 ? 1 : 2);
  out.push_back(0);
  for (size_t i = 0; i < length_bytes; ++i)
    out.push_back(uint8_t((header_length >> (8 * i)) & 0xff));
  out.insert(out.end(), dict.begin(), dict.end());
  out.resize(total - 1, ' ');
  out.push_back('\n');

  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  if (element_type == MOTE_BF16) {
    out.reserve(out.size() + size * 2);
    for (size_t at = 0; at + 2 <= size; at += 2) {
      uint16_t half;
      memcpy(&half, bytes + at, 2);
      uint32_t wide = uint32_t(half) << 16;
      uint8_t wide_bytes[4];
      memcpy(wide_bytes, &wide, 4);
      out.insert(out.end(), wide_bytes, wide_bytes + 4);
    }
  } else if (size) {
    out.insert(out.end(), bytes, bytes + size);
  }
  return out;
}

} // namespace mote::npy
