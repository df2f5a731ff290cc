//===- npy.cc - NumPy .npy arrays for mote-run ------------------------------===//

#include "npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "mote/mote.h"

namespace mote::run {
namespace {

struct DtypeName {
  const char *name;
  uint32_t type;
};
// The dtypes mote-run reads; bf16 has none of its own (it travels as f4).
constexpr DtypeName kDtypes[] = {
    {"b1", MOTE_PRED}, {"i1", MOTE_S8},  {"u1", MOTE_U8},  {"i2", MOTE_S16},  {"u2", MOTE_U16},
    {"i4", MOTE_S32},  {"u4", MOTE_U32}, {"i8", MOTE_S64}, {"u8", MOTE_U64},  {"f2", MOTE_F16},
    {"f4", MOTE_F32},  {"f8", MOTE_F64}, {"c8", MOTE_C64}, {"c16", MOTE_C128}};

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kHeaderAlignment = 64; // what numpy.save and motec pad to

// The value text after `'key':` in a header dict, or nullptr.
const char *findKey(const std::string &dict, const char *key) {
  std::string quoted = std::string("'") + key + "'";
  size_t at = dict.find(quoted);
  if (at == std::string::npos)
    at = dict.find(std::string("\"") + key + "\"");
  if (at == std::string::npos)
    return nullptr;
  at = dict.find(':', at + quoted.size());
  if (at == std::string::npos)
    return nullptr;
  const char *p = dict.c_str() + at + 1;
  while (*p == ' ')
    ++p;
  return p;
}

bool parseShape(const char *p, std::vector<int64_t> *dims) {
  if (*p != '(')
    return false;
  ++p;
  for (;;) {
    while (*p == ' ' || *p == ',')
      ++p;
    if (*p == ')')
      return true;
    if (*p < '0' || *p > '9')
      return false;
    int64_t value = 0;
    while (*p >= '0' && *p <= '9') {
      if (value > (INT64_MAX - 9) / 10)
        return false;
      value = value * 10 + (*p++ - '0');
    }
    dims->push_back(value);
  }
}

void swapEach(uint8_t *data, size_t size, size_t unit) {
  for (size_t at = 0; at + unit <= size; at += unit)
    std::reverse(data + at, data + at + unit);
}

// Column-major to row-major (numpy writes Fortran-ordered arrays that way).
std::vector<uint8_t> fortranToRowMajor(const std::vector<uint8_t> &in,
                                       const std::vector<int64_t> &dims, size_t element) {
  size_t rank = dims.size(), count = element ? in.size() / element : 0;
  std::vector<int64_t> stride(rank, 1), index(rank, 0);
  for (size_t d = 1; d < rank; ++d)
    stride[d] = stride[d - 1] * dims[d - 1];
  std::vector<uint8_t> out(in.size());
  for (size_t linear = 0; linear < count; ++linear) {
    int64_t from = 0;
    for (size_t d = 0; d < rank; ++d)
      from += index[d] * stride[d];
    memcpy(out.data() + linear * element, in.data() + from * element, element);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < dims[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

float floatFromBits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

} // namespace

const char *npyTypeName(uint32_t element_type) {
  if (element_type == MOTE_BF16)
    return "f4";
  // Sub-byte integers travel one a byte, as motec eval writes them.
  if (element_type == MOTE_S4 || element_type == MOTE_S2)
    return "i1";
  if (element_type == MOTE_U4 || element_type == MOTE_U2)
    return "u1";
  for (const DtypeName &d : kDtypes)
    if (d.type == element_type)
      return d.name;
  return "?";
}

uint16_t bfloat16FromFloat(float value) {
  uint32_t b;
  memcpy(&b, &value, sizeof b);
  if ((b & 0x7fffffffu) > 0x7f800000u) // NaN: keep the sign, force quiet
    return uint16_t((b >> 16) | 0x0040u);
  uint32_t rounding_bias = 0x7fffu + ((b >> 16) & 1u);
  return uint16_t((b + rounding_bias) >> 16);
}

bool decodeNpy(const std::vector<uint8_t> &bytes, NpyArray *out, std::string *error) {
  if (bytes.size() < kMagicSize + 4 || memcmp(bytes.data(), kMagic, kMagicSize) != 0) {
    *error = "not a .npy file (bad magic)";
    return false;
  }
  unsigned major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0) {
    *error = "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor);
    return false;
  }
  size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) {
    *error = "truncated .npy header";
    return false;
  }
  size_t header_length = 0;
  for (size_t i = 0; i < length_bytes; ++i)
    header_length |= size_t(bytes[8 + i]) << (8 * i);
  size_t data_offset = 8 + length_bytes + header_length;
  if (data_offset > bytes.size()) {
    *error = "truncated .npy header";
    return false;
  }
  std::string dict(bytes.begin() + 8 + length_bytes, bytes.begin() + data_offset);

  const char *descr = findKey(dict, "descr");
  const char *fortran = findKey(dict, "fortran_order");
  const char *shape = findKey(dict, "shape");
  if (!descr || !fortran || !shape || (*descr != '\'' && *descr != '"')) {
    *error = "malformed .npy header";
    return false;
  }
  std::string type(descr + 1, strcspn(descr + 1, "'\""));
  bool big_endian = !type.empty() && type[0] == '>';
  std::string name = type.size() > 1 ? type.substr(1) : "";
  out->element_type = 0;
  for (const DtypeName &d : kDtypes)
    if (name == d.name)
      out->element_type = d.type;
  if (!out->element_type ||
      (type[0] != '<' && type[0] != '>' && type[0] != '|' && type[0] != '=')) {
    *error = "unsupported dtype '" + type + "'";
    return false;
  }
  out->dims.clear();
  if (!parseShape(shape, &out->dims)) {
    *error = "malformed .npy shape";
    return false;
  }
  size_t element = mote_element_size(out->element_type);
  size_t available = bytes.size() - data_offset;
  // Counts past what the file can hold are mismatches, not overflows; a
  // zero dimension anywhere makes an empty array.
  uint64_t count = 1;
  bool tooMany = false;
  for (int64_t dim : out->dims) {
    if (dim == 0) {
      count = 0;
      tooMany = false;
      break;
    }
    if (count > UINT64_MAX / uint64_t(dim))
      tooMany = true;
    else
      count *= uint64_t(dim);
  }
  if (tooMany || (element != 0 && count > available / element) || count * element != available) {
    *error = "data size mismatch: the header declares " + type + " with " +
             std::to_string(out->dims.size()) + " dims but the file holds " +
             std::to_string(available) + " data bytes";
    return false;
  }
  out->data.assign(bytes.begin() + data_offset, bytes.end());
  if (strncmp(fortran, "True", 4) == 0)
    out->data = fortranToRowMajor(out->data, out->dims, element);
  if (big_endian && element > 1) // complex numbers swap each part
    swapEach(out->data.data(), out->data.size(),
             out->element_type == MOTE_C64 || out->element_type == MOTE_C128 ? element / 2
                                                                             : element);
  if (out->element_type == MOTE_PRED) // a bool must hold exactly 0 or 1
    for (uint8_t &byte : out->data)
      byte = byte != 0;
  return true;
}

std::vector<uint8_t> encodeNpy(uint32_t element_type, const int64_t *dims, uint32_t rank,
                               const uint8_t *data, size_t size) {
  const char *order = mote_element_size(element_type) == 1 && element_type != MOTE_BF16 ? "|" : "<";
  std::string dict = std::string("{'descr': '") + order + npyTypeName(element_type) +
                     "', 'fortran_order': False, 'shape': (";
  for (uint32_t d = 0; d < rank; ++d)
    dict += std::to_string(dims[d]) + (rank == 1 ? "," : d + 1 < rank ? ", " : "");
  dict += "), }";
  size_t unpadded = kMagicSize + 4 + dict.size() + 1;
  size_t total = (unpadded + kHeaderAlignment - 1) / kHeaderAlignment * kHeaderAlignment;
  size_t header_length = total - kMagicSize - 4; // version 1.0: fits while dims are few
  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  out.push_back(1);
  out.push_back(0);
  out.push_back(uint8_t(header_length & 0xff));
  out.push_back(uint8_t(header_length >> 8));
  out.insert(out.end(), dict.begin(), dict.end());
  out.resize(total - 1, ' ');
  out.push_back('\n');
  if (element_type == MOTE_BF16) {
    for (size_t at = 0; at + 2 <= size; at += 2) {
      uint16_t half;
      memcpy(&half, data + at, 2);
      float wide = floatFromBits(uint32_t(half) << 16);
      const uint8_t *p = reinterpret_cast<const uint8_t *>(&wide);
      out.insert(out.end(), p, p + 4);
    }
  } else {
    out.insert(out.end(), data, data + size);
  }
  return out;
}

bool readFile(const char *path, std::vector<uint8_t> *out, std::string *error) {
  FILE *file = fopen(path, "rb");
  if (!file) {
    *error = std::string("cannot read: ") + strerror(errno);
    return false;
  }
  out->clear();
  uint8_t chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, file)) > 0)
    out->insert(out->end(), chunk, chunk + got);
  bool ok = !ferror(file);
  fclose(file);
  if (!ok)
    *error = "cannot read";
  return ok;
}

bool writeFile(const char *path, const std::vector<uint8_t> &bytes, std::string *error) {
  FILE *file = fopen(path, "wb");
  if (!file) {
    *error = std::string("cannot write: ") + strerror(errno);
    return false;
  }
  bool ok = fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  ok = fclose(file) == 0 && ok;
  if (!ok)
    *error = "cannot write";
  return ok;
}

} // namespace mote::run
