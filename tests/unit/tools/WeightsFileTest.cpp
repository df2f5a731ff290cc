//===- WeightsFileTest.cpp - .safetensors and .npz as hostile input -------===//

#include "tools/lib/WeightsFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <string>

using namespace mote;

namespace {

/// Writes `bytes` to a fresh temporary file with `extension`; returns its path.
std::string temporaryFile(const std::string &bytes, llvm::StringRef extension) {
  llvm::SmallString<128> path;
  int fd;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("mote-weights", extension, fd, path));
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << bytes;
  return path.str().str();
}

/// A .safetensors file: the header length, the JSON header, the data.
std::string safetensors(const std::string &json, const std::string &data) {
  std::string out;
  uint64_t length = json.size();
  for (int i = 0; i < 8; ++i)
    out += char((length >> (8 * i)) & 0xff);
  return out + json + data;
}

std::string readError(const std::string &bytes, llvm::StringRef extension) {
  std::string path = temporaryFile(bytes, extension);
  auto arrays = tools::readWeightsFile(path);
  llvm::sys::fs::remove(path);
  if (arrays)
    return "no error";
  std::string message = llvm::toString(arrays.takeError());
  return message.substr(message.find(": ") + 2); // without the path
}

TEST_CASE("safetensors: arrays in data order, the metadata skipped") {
  std::string data = std::string("\x01\x00\x02\x00", 4) + std::string("\x00\x00\xc0\x3f", 4);
  std::string path = temporaryFile(
      safetensors(R"({"__metadata__":{"format":"pt"},"b":{"dtype":"F32","shape":[],)"
                  R"("data_offsets":[4,8]},"a":{"dtype":"I16","shape":[2],"data_offsets":[0,4]}})",
                  data),
      "safetensors");
  auto arrays = tools::readWeightsFile(path);
  llvm::sys::fs::remove(path);
  REQUIRE(bool(arrays));
  REQUIRE(arrays->size() == 2);
  CHECK((*arrays)[0].key == "a");
  CHECK((*arrays)[0].value.toString() == "s16[2] {1, 2}");
  CHECK((*arrays)[1].key == "b");
  CHECK((*arrays)[1].value.get<float>(0) == 1.5f);
}

TEST_CASE("safetensors: bad sizes, offsets, dtypes and values are errors") {
  CHECK(readError(std::string("\xff\xff\xff\xff\xff\xff\xff\x7f{}", 10), "safetensors") ==
        "the header claims 9223372036854775807 bytes, more than the file holds");
  CHECK(readError(safetensors("[1]", ""), "safetensors") == "the header is not a JSON object");
  CHECK(readError(safetensors("{", ""), "safetensors").find("the header is not JSON") == 0);
  CHECK(readError(safetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                              std::string(4, '\0')),
                  "safetensors") == "tensor 'a': data_offsets must be [begin, end] within the 4 "
                                    "data bytes");
  CHECK(readError(safetensors(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
                              std::string(8, '\0')),
                  "safetensors") == "tensor 'a': its shape and dtype need a different size than "
                                    "data_offsets span (8 bytes)");
  // A shape whose product overflows is caught before it is multiplied out.
  CHECK(readError(safetensors(R"({"a":{"dtype":"F64","shape":[4294967296,4294967296],)"
                              R"("data_offsets":[0,0]}})",
                              ""),
                  "safetensors") == "tensor 'a': its shape and dtype need a different size than "
                                    "data_offsets span (0 bytes)");
  CHECK(readError(safetensors(R"({"a":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}})",
                              std::string(1, '\0')),
                  "safetensors")
            .find("tensor 'a': unsupported dtype 'F8_E4M3'") == 0);
  CHECK(readError(safetensors(R"({"a":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]}})",
                              std::string(1, '\2')),
                  "safetensors") == "tensor 'a': BOOL values must be 0 or 1");
  CHECK(readError(safetensors(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})",
                              std::string(4, '\0')),
                  "safetensors") == "tensor 'a': shape must hold non-negative integers");
}

TEST_CASE("npz: what is not a zip archive of .npy members is an error") {
  CHECK(readError("PK\x03\x04 and then nothing", "npz")
            .find("cannot read as an .npz (zip) archive") == 0);
  CHECK(readError("", "npz").find("cannot read as an .npz (zip) archive") == 0);
  CHECK(readError("x", "weights") ==
        "unknown weights file type (expected .npz, .safetensors or .npy)");
}

} // namespace
