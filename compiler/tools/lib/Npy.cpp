//===- Npy.cpp - NumPy .npy files as Literals -----------------------------===//

#include "Npy.h"

#include "NpyHeader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SwapByteOrder.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace mote::tools {

using hlo::Literal;
using hlo::PrimitiveType;

static constexpr llvm::StringLiteral kMagic("\x93NUMPY");
/// numpy.save pads headers to this; mmap-friendly and enough for any SIMD load.
static constexpr size_t kHeaderAlignment = 64;

static llvm::Error npyError(llvm::StringRef name, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), name + ": " + message);
}

std::optional<NpyDtype> parseNpyDtype(llvm::StringRef descr) {
  if (descr.size() < 2)
    return std::nullopt;
  char order = descr.front();
  bool bigEndian;
  if (order == '<' || order == '|')
    bigEndian = false;
  else if (order == '>')
    bigEndian = true;
  else if (order == '=')
    bigEndian = llvm::sys::IsBigEndianHost;
  else
    return std::nullopt;
  auto type = llvm::StringSwitch<std::optional<PrimitiveType>>(descr.drop_front())
                  .Case("b1", PrimitiveType::Pred)
                  .Case("i1", PrimitiveType::S8)
                  .Case("u1", PrimitiveType::U8)
                  .Case("i2", PrimitiveType::S16)
                  .Case("u2", PrimitiveType::U16)
                  .Case("i4", PrimitiveType::S32)
                  .Case("u4", PrimitiveType::U32)
                  .Case("i8", PrimitiveType::S64)
                  .Case("u8", PrimitiveType::U64)
                  .Case("f2", PrimitiveType::F16)
                  .Case("f4", PrimitiveType::F32)
                  .Case("f8", PrimitiveType::F64)
                  .Case("c8", PrimitiveType::C64)
                  .Case("c16", PrimitiveType::C128)
                  .Default(std::nullopt);
  if (!type)
    return std::nullopt;
  // '|' means "byte order does not apply": only right for one-byte types.
  if (order == '|' && hlo::storageBytes(*type) != 1)
    return std::nullopt;
  return NpyDtype{*type, hlo::storageBytes(*type) > 1 && bigEndian};
}

std::optional<std::string> npyDtypeFor(PrimitiveType type) {
  const char *order = llvm::sys::IsLittleEndianHost ? "<" : ">";
  switch (type) {
  case PrimitiveType::Pred:
    return std::string("|b1");
  case PrimitiveType::S2:
  case PrimitiveType::S4:
  case PrimitiveType::S8:
    return std::string("|i1");
  case PrimitiveType::U2:
  case PrimitiveType::U4:
  case PrimitiveType::U8:
    return std::string("|u1");
  case PrimitiveType::S16:
    return std::string(order) + "i2";
  case PrimitiveType::U16:
    return std::string(order) + "u2";
  case PrimitiveType::S32:
    return std::string(order) + "i4";
  case PrimitiveType::U32:
    return std::string(order) + "u4";
  case PrimitiveType::S64:
    return std::string(order) + "i8";
  case PrimitiveType::U64:
    return std::string(order) + "u8";
  case PrimitiveType::F16:
    return std::string(order) + "f2";
  case PrimitiveType::BF16:
  case PrimitiveType::F32:
    return std::string(order) + "f4";
  case PrimitiveType::F64:
    return std::string(order) + "f8";
  case PrimitiveType::C64:
    return std::string(order) + "c8";
  case PrimitiveType::C128:
    return std::string(order) + "c16";
  default:
    return std::nullopt;
  }
}

/// Reverses the bytes of each `unit`-byte scalar in `data` (complex numbers
/// swap each component, so `unit` is the component size).
static void swapBytes(llvm::MutableArrayRef<uint8_t> data, size_t unit) {
  for (size_t offset = 0; offset + unit <= data.size(); offset += unit)
    std::reverse(data.begin() + offset, data.begin() + offset + unit);
}

/// Reorders column-major elements into row-major order.
static void fortranToRowMajor(llvm::ArrayRef<uint8_t> source, llvm::MutableArrayRef<uint8_t> out,
                              llvm::ArrayRef<int64_t> dims, size_t elementBytes) {
  size_t rank = dims.size();
  llvm::SmallVector<int64_t, 4> stride(rank, 1), index(rank, 0);
  for (size_t d = 1; d < rank; ++d)
    stride[d] = stride[d - 1] * dims[d - 1];
  size_t count = out.size() / std::max<size_t>(elementBytes, 1);
  for (size_t linear = 0; linear < count; ++linear) {
    int64_t from = 0;
    for (size_t d = 0; d < rank; ++d)
      from += index[d] * stride[d];
    std::memcpy(out.data() + linear * elementBytes, source.data() + from * elementBytes,
                elementBytes);
    for (size_t d = rank; d-- > 0;) { // row-major increment
      if (++index[d] < dims[d])
        break;
      index[d] = 0;
    }
  }
}

static uint32_t readLittleEndian(llvm::StringRef bytes, size_t offset, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i)
    value |= uint32_t(uint8_t(bytes[offset + i])) << (8 * i);
  return value;
}

llvm::Expected<Literal> decodeNpy(llvm::StringRef bytes, llvm::StringRef name) {
  if (bytes.size() < kMagic.size() + 4 || !bytes.starts_with(kMagic))
    return npyError(name, "not a .npy file (bad magic; expected \\x93NUMPY)");
  unsigned major = uint8_t(bytes[6]), minor = uint8_t(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    return npyError(name, "unsupported .npy version " + llvm::Twine(major) + "." +
                              llvm::Twine(minor) + " (expected 1.0, 2.0 or 3.0)");
  size_t lengthBytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + lengthBytes)
    return npyError(name, "truncated .npy header");
  size_t headerLength = readLittleEndian(bytes, 8, lengthBytes);
  size_t dataOffset = 8 + lengthBytes + headerLength;
  if (dataOffset > bytes.size())
    return npyError(name, "truncated .npy header (it declares " + llvm::Twine(headerLength) +
                              " bytes, the file has " +
                              llvm::Twine(bytes.size() - 8 - lengthBytes) + ")");
  auto header = parseNpyHeaderDict(bytes.slice(8 + lengthBytes, dataOffset));
  if (!header)
    return npyError(name, llvm::toString(header.takeError()));

  std::optional<NpyDtype> dtype = parseNpyDtype(header->descr);
  if (!dtype)
    return npyError(name, "unsupported dtype '" + header->descr +
                              "' (expected one of f2 f4 f8 b1 i1 u1 i2 u2 i4 u4 i8 u8 c8 c16)");
  size_t elementBytes = hlo::storageBytes(dtype->type);
  llvm::StringRef data = bytes.drop_front(dataOffset);
  // Overflow-safe element count: stop as soon as it exceeds what the data holds.
  bool empty = llvm::is_contained(header->shape, 0);
  uint64_t count = empty ? 0 : 1;
  bool tooBig = false;
  for (int64_t dim : header->shape) {
    if (empty || tooBig)
      break;
    if (count > data.size() / static_cast<uint64_t>(dim))
      tooBig = true;
    else
      count *= static_cast<uint64_t>(dim);
  }
  if (tooBig || count * elementBytes != data.size()) {
    std::string dims;
    for (int64_t dim : header->shape)
      dims += (dims.empty() ? "" : ", ") + std::to_string(dim);
    return npyError(name, "data size mismatch: the header declares " + header->descr +
                              " with shape (" + dims + ") but the file holds " +
                              llvm::Twine(data.size()) + " data bytes");
  }

  Literal literal(hlo::Shape::array(dtype->type, header->shape));
  llvm::MutableArrayRef<uint8_t> out = literal.bytes();
  auto source =
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(data.data()), data.size());
  if (header->fortranOrder)
    fortranToRowMajor(source, out, header->shape, elementBytes);
  else if (!out.empty())
    std::memcpy(out.data(), source.data(), out.size());
  if (dtype->bigEndian != llvm::sys::IsBigEndianHost)
    swapBytes(out, hlo::isComplex(dtype->type) ? elementBytes / 2 : elementBytes);
  if (dtype->type == PrimitiveType::Pred) // a bool must hold exactly 0 or 1
    for (uint8_t &byte : out)
      byte = byte != 0;
  return literal;
}

llvm::Expected<std::string> encodeNpy(const Literal &literal) {
  const hlo::Shape &shape = literal.shape();
  if (!shape.isArray())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "a value of shape " + shape.toString(false) +
                                       " cannot be written as .npy (arrays only)");
  std::optional<std::string> descr = npyDtypeFor(shape.elementType());
  if (!descr)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "element type " + hlo::primitiveTypeName(shape.elementType()) +
                                       " has no .npy dtype");
  NpyHeader header;
  header.descr = *descr;
  header.shape.assign(shape.dims().begin(), shape.dims().end());
  std::string dict = formatNpyHeaderDict(header);

  // magic + version + length + dict + '\n', padded with spaces to the alignment.
  size_t lengthBytes = 2;
  size_t unpadded = kMagic.size() + 2 + lengthBytes + dict.size() + 1;
  size_t total = (unpadded + kHeaderAlignment - 1) / kHeaderAlignment * kHeaderAlignment;
  if (total - kMagic.size() - 2 - lengthBytes > 0xffff) {
    lengthBytes = 4;
    unpadded += 2;
    total = (unpadded + kHeaderAlignment - 1) / kHeaderAlignment * kHeaderAlignment;
  }
  size_t headerLength = total - kMagic.size() - 2 - lengthBytes;

  std::string out(kMagic);
  out += char(lengthBytes == 2 ? 1 : 2);
  out += char(0);
  for (size_t i = 0; i < lengthBytes; ++i)
    out += char((headerLength >> (8 * i)) & 0xff);
  out += dict;
  out.append(total - out.size() - 1, ' ');
  out += '\n';

  if (shape.elementType() == PrimitiveType::BF16) {
    for (int64_t i = 0; i < literal.elementCount(); ++i) {
      float wide = static_cast<float>(literal.get<hlo::BFloat16>(i));
      out.append(reinterpret_cast<const char *>(&wide), sizeof wide);
    }
  } else {
    out.append(reinterpret_cast<const char *>(literal.bytes().data()), literal.bytes().size());
  }
  return out;
}

llvm::Expected<Literal> readNpyFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false,
                                                   /*RequiresNullTerminator=*/false);
  if (!buffer)
    return npyError(path, "cannot read: " + buffer.getError().message());
  return decodeNpy((*buffer)->getBuffer(), path);
}

llvm::Error writeNpyFile(const Literal &literal, llvm::StringRef path) {
  auto encoded = encodeNpy(literal);
  if (!encoded)
    return npyError(path, llvm::toString(encoded.takeError()));
  std::error_code code;
  llvm::raw_fd_ostream os(path, code, llvm::sys::fs::OF_None);
  if (code)
    return npyError(path, "cannot write: " + code.message());
  os << *encoded;
  os.close();
  if (os.has_error()) {
    std::error_code error = os.error();
    os.clear_error();
    return npyError(path, "cannot write: " + error.message());
  }
  return llvm::Error::success();
}

} // namespace mote::tools
