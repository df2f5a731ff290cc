//===- Npy.cpp - NumPy .npy files as Literals -----------------------------===//
//
// A thin layer over runtime/tools/npy.h, the one .npy implementation motec
// and mote-run share: it only converts between that library's arrays
// (mote_element_type, bytes) and Literals (PrimitiveType, Shape).
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "codegen/ModelSignature.h"

#include "file_io.h"
#include "npy.h"

#include "llvm/ADT/STLExtras.h"

namespace mote::tools {

using hlo::Literal;
using hlo::PrimitiveType;

namespace {

/// The largest .npy file motec reads (README, "Limits").
constexpr uint64_t kMaxNpyFileBytes = uint64_t(16) << 30;

llvm::Error npyError(llvm::StringRef name, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), name + ": " + message);
}

/// The PrimitiveType of a dtype's mote_element_type (the dtypes .npy has).
std::optional<PrimitiveType> primitiveTypeOf(uint32_t elementType) {
  static constexpr PrimitiveType kTypes[] = {
      PrimitiveType::Pred, PrimitiveType::S8,  PrimitiveType::S16, PrimitiveType::S32,
      PrimitiveType::S64,  PrimitiveType::U8,  PrimitiveType::U16, PrimitiveType::U32,
      PrimitiveType::U64,  PrimitiveType::F16, PrimitiveType::F32, PrimitiveType::F64,
      PrimitiveType::C64,  PrimitiveType::C128};
  for (PrimitiveType type : kTypes)
    if (codegen::abiElementType(type) == elementType)
      return type;
  return std::nullopt;
}

} // namespace

std::optional<NpyDtype> parseNpyDtype(llvm::StringRef descr) {
  npy::Dtype dtype;
  if (!npy::parseDtype(std::string_view(descr.data(), descr.size()), &dtype))
    return std::nullopt;
  std::optional<PrimitiveType> type = primitiveTypeOf(dtype.element_type);
  if (!type)
    return std::nullopt;
  return NpyDtype{*type, dtype.big_endian};
}

std::optional<std::string> npyDtypeFor(PrimitiveType type) {
  uint8_t elementType = codegen::abiElementType(type);
  std::string descr = elementType ? npy::dtypeFor(elementType) : "";
  if (descr.empty())
    return std::nullopt;
  return descr;
}

llvm::Expected<Literal> decodeNpy(llvm::StringRef bytes, llvm::StringRef name) {
  npy::Array array;
  std::string error;
  if (!npy::decode(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(), &array, &error))
    return npyError(name, error);
  std::optional<PrimitiveType> type = primitiveTypeOf(array.element_type);
  if (!type) // npy::decode returns only the dtypes listed above
    return npyError(name, "internal error: dtype without an element type");
  Literal literal(hlo::Shape::array(*type, array.dims));
  llvm::MutableArrayRef<uint8_t> out = literal.bytes();
  if (out.size() != array.data.size())
    return npyError(name, "internal error: the array's size does not match its shape");
  llvm::copy(array.data, out.begin());
  return literal;
}

llvm::Expected<std::string> encodeNpy(const Literal &literal) {
  const hlo::Shape &shape = literal.shape();
  if (!shape.isArray())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "a value of shape " + shape.toString(false) +
                                       " cannot be written as .npy (arrays only)");
  if (!npyDtypeFor(shape.elementType()))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "element type " + hlo::primitiveTypeName(shape.elementType()) +
                                       " has no .npy dtype");
  llvm::ArrayRef<uint8_t> bytes = literal.bytes();
  std::vector<uint8_t> encoded =
      npy::encode(codegen::abiElementType(shape.elementType()), shape.dims().data(), shape.rank(),
                  bytes.data(), bytes.size());
  return std::string(encoded.begin(), encoded.end());
}

llvm::Expected<Literal> readNpyFile(llvm::StringRef path) {
  std::vector<uint8_t> bytes;
  std::string error;
  if (!io::readWholeFile(path.str().c_str(), kMaxNpyFileBytes, &bytes, &error,
                         /*allow_stdin=*/true))
    return npyError(path, error);
  return decodeNpy(llvm::StringRef(reinterpret_cast<const char *>(bytes.data()), bytes.size()),
                   path);
}

llvm::Error writeNpyFile(const Literal &literal, llvm::StringRef path) {
  auto encoded = encodeNpy(literal);
  if (!encoded)
    return npyError(path, llvm::toString(encoded.takeError()));
  std::string error;
  if (!io::writeWholeFile(path.str().c_str(), encoded->data(), encoded->size(), &error))
    return npyError(path, error);
  return llvm::Error::success();
}

} // namespace mote::tools
