//===- SafetensorsReader.cpp - .safetensors files as named arrays ---------===//

#include "WeightsFile.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"

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

/// Reads exactly `bytes.size()` bytes at `offset` of `file`.
llvm::Error readAt(llvm::sys::fs::file_t file, uint64_t offset, llvm::MutableArrayRef<char> bytes,
                   llvm::StringRef path) {
  while (!bytes.empty()) {
    llvm::Expected<size_t> read = llvm::sys::fs::readNativeFileSlice(file, bytes, offset);
    if (!read)
      return safetensorsError(path, "cannot read: " + toString(read.takeError()));
    if (*read == 0)
      return safetensorsError(path, "the file ends early");
    bytes = bytes.drop_front(*read);
    offset += *read;
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::vector<NamedArray>> readSafetensorsFile(llvm::StringRef path) {
  // Each tensor is read straight into its array: a model's gigabytes of
  // weights are in memory once, not also as a mapping of the file.
  llvm::Expected<llvm::sys::fs::file_t> file = llvm::sys::fs::openNativeFileForRead(path);
  if (!file)
    return safetensorsError(path, "cannot read: " + toString(file.takeError()));
  struct Closer {
    llvm::sys::fs::file_t file;
    ~Closer() { llvm::sys::fs::closeFile(file); }
  } closer{*file};
  llvm::sys::fs::file_status status;
  if (std::error_code error = llvm::sys::fs::status(*file, status))
    return safetensorsError(path, "cannot read: " + error.message());
  const uint64_t fileBytes = status.getSize();
  if (fileBytes < 8)
    return safetensorsError(path, "too short for a .safetensors header");
  char length[8];
  if (llvm::Error error = readAt(*file, 0, length, path))
    return std::move(error);
  uint64_t headerBytes = 0;
  for (int i = 0; i < 8; ++i)
    headerBytes |= uint64_t(uint8_t(length[i])) << (8 * i);
  if (headerBytes > fileBytes - 8)
    return safetensorsError(path, "the header claims " + llvm::Twine(headerBytes) +
                                      " bytes, more than the file holds");
  std::string text(headerBytes, '\0');
  if (llvm::Error error =
          readAt(*file, 8, llvm::MutableArrayRef<char>(text.data(), text.size()), path))
    return std::move(error);
  auto header = llvm::json::parse(text);
  if (!header)
    return safetensorsError(path, "the header is not JSON: " + toString(header.takeError()));
  const llvm::json::Object *tensors = header->getAsObject();
  if (!tensors)
    return safetensorsError(path, "the header is not a JSON object");
  const uint64_t dataStart = 8 + headerBytes, dataBytes = fileBytes - dataStart;

  std::vector<Entry> entries;
  for (const auto &[key, value] : *tensors) {
    if (key == "__metadata__")
      continue;
    auto entry = parseEntry(path, key, value, dataBytes);
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
    llvm::MutableArrayRef<uint8_t> bytes = value.bytes();
    if (llvm::Error error = readAt(
            *file, dataStart + entry.begin,
            llvm::MutableArrayRef<char>(reinterpret_cast<char *>(bytes.data()), bytes.size()),
            path))
      return std::move(error);
    if (entry.type == PrimitiveType::Pred &&
        llvm::any_of(value.bytes(), [](uint8_t b) { return b > 1; }))
      return safetensorsError(path, "tensor '" + entry.key + "': BOOL values must be 0 or 1");
    arrays.push_back({entry.key, std::move(value)});
  }
  return arrays;
}

} // namespace mote::tools
