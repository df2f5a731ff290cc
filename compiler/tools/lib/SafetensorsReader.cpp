//===- SafetensorsReader.cpp - .safetensors files as named arrays ---------===//

#include "WeightsFile.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <optional>

namespace mote::tools {

namespace {

using hlo::PrimitiveType;

llvm::Error safetensorsError(llvm::StringRef path, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), path + ": " + message);
}

std::optional<PrimitiveType> elementTypeFor(llvm::StringRef dtype) {
  return llvm::StringSwitch<std::optional<PrimitiveType>>(dtype)
      .Case("BOOL", PrimitiveType::Pred)
      .Case("I8", PrimitiveType::S8)
      .Case("U8", PrimitiveType::U8)
      .Case("I16", PrimitiveType::S16)
      .Case("U16", PrimitiveType::U16)
      .Case("I32", PrimitiveType::S32)
      .Case("U32", PrimitiveType::U32)
      .Case("I64", PrimitiveType::S64)
      .Case("U64", PrimitiveType::U64)
      .Case("F16", PrimitiveType::F16)
      .Case("BF16", PrimitiveType::BF16)
      .Case("F32", PrimitiveType::F32)
      .Case("F64", PrimitiveType::F64)
      .Default(std::nullopt);
}

/// A non-negative integer of a JSON value, or nullopt.
std::optional<uint64_t> count(const llvm::json::Value &value) {
  std::optional<int64_t> integer = value.getAsInteger();
  if (!integer || *integer < 0)
    return std::nullopt;
  return uint64_t(*integer);
}

struct Entry {
  std::string key;
  PrimitiveType type;
  llvm::SmallVector<int64_t, 4> dims;
  uint64_t begin, end;
};

llvm::Expected<Entry> parseEntry(llvm::StringRef path, llvm::StringRef key,
                                 const llvm::json::Value &value, uint64_t dataBytes) {
  auto fail = [&](const llvm::Twine &problem) {
    return safetensorsError(path, "tensor '" + key + "': " + problem);
  };
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return fail("expected an object with dtype, shape and data_offsets");
  std::optional<llvm::StringRef> dtype = object->getString("dtype");
  const llvm::json::Array *shape = object->getArray("shape");
  const llvm::json::Array *offsets = object->getArray("data_offsets");
  if (!dtype || !shape || !offsets)
    return fail("expected dtype (a string), shape and data_offsets (arrays)");
  std::optional<PrimitiveType> type = elementTypeFor(*dtype);
  if (!type)
    return fail("unsupported dtype '" + *dtype +
                "' (expected BOOL, I8-I64, U8-U64, F16, BF16, F32 or F64)");
  Entry entry{key.str(), *type, {}, 0, 0};
  // Overflow-safe: stop as soon as the product exceeds the data there is.
  uint64_t elements = 1;
  bool tooBig = false;
  for (const llvm::json::Value &dim : *shape) {
    std::optional<uint64_t> size = count(dim);
    if (!size)
      return fail("shape must hold non-negative integers");
    entry.dims.push_back(int64_t(*size));
    if (*size == 0)
      elements = 0;
    else if (elements > dataBytes / *size)
      tooBig = true;
    else
      elements *= *size;
  }
  std::optional<uint64_t> begin, end;
  if (offsets->size() == 2) {
    begin = count((*offsets)[0]);
    end = count((*offsets)[1]);
  }
  if (!begin || !end || *begin > *end || *end > dataBytes)
    return fail("data_offsets must be [begin, end] within the " + llvm::Twine(dataBytes) +
                " data bytes");
  uint64_t bytes = elements * uint64_t(hlo::storageBytes(*type));
  if (tooBig || (elements != 0 && bytes / elements != uint64_t(hlo::storageBytes(*type))) ||
      bytes != *end - *begin)
    return fail("its shape and dtype need a different size than data_offsets span (" +
                llvm::Twine(*end - *begin) + " bytes)");
  entry.begin = *begin;
  entry.end = *end;
  return entry;
}

} // namespace

llvm::Expected<std::vector<NamedArray>> readSafetensorsFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return safetensorsError(path, "cannot read: " + buffer.getError().message());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() < 8)
    return safetensorsError(path, "too short for a .safetensors header");
  uint64_t headerBytes = 0;
  for (int i = 0; i < 8; ++i)
    headerBytes |= uint64_t(uint8_t(bytes[i])) << (8 * i);
  if (headerBytes > bytes.size() - 8)
    return safetensorsError(path, "the header claims " + llvm::Twine(headerBytes) +
                                      " bytes, more than the file holds");
  auto header = llvm::json::parse(bytes.substr(8, headerBytes));
  if (!header)
    return safetensorsError(path, "the header is not JSON: " + toString(header.takeError()));
  const llvm::json::Object *tensors = header->getAsObject();
  if (!tensors)
    return safetensorsError(path, "the header is not a JSON object");
  llvm::StringRef data = bytes.drop_front(8 + headerBytes);

  std::vector<Entry> entries;
  for (const auto &[key, value] : *tensors) {
    if (key == "__metadata__")
      continue;
    auto entry = parseEntry(path, key, value, data.size());
    if (!entry)
      return entry.takeError();
    entries.push_back(std::move(*entry));
  }
  // JSON objects are unordered: the data order is the file's own.
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
    return a.begin != b.begin ? a.begin < b.begin : a.key < b.key;
  });
  std::vector<NamedArray> arrays;
  for (const Entry &entry : entries) {
    hlo::Literal value(hlo::Shape::array(entry.type, entry.dims));
    std::copy(data.begin() + entry.begin, data.begin() + entry.end, value.bytes().begin());
    if (entry.type == PrimitiveType::Pred &&
        llvm::any_of(value.bytes(), [](uint8_t b) { return b > 1; }))
      return safetensorsError(path, "tensor '" + entry.key + "': BOOL values must be 0 or 1");
    arrays.push_back({entry.key, std::move(value)});
  }
  return arrays;
}

} // namespace mote::tools
