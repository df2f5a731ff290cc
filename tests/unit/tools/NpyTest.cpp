//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "tools/lib/Npy.h"
#include "tools/lib/NpyHeader.h"

#include <doctest/doctest.h>

#include <string>

using namespace mote;
using hlo::Literal;
using hlo::PrimitiveType;
using hlo::Shape;

namespace {

/// A file as NumPy would write it: magic, version, little-endian header
/// length, the dict padded with spaces to `alignment` and '\n', then `data`.
std::string makeNpy(const std::string &dict, const std::string &data, int major = 1,
                    size_t alignment = 64) {
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t unpadded = 8 + lengthBytes + dict.size() + 1;
  size_t total = (unpadded + alignment - 1) / alignment * alignment;
  size_t headerLength = total - 8 - lengthBytes;
  std::string out("\x93NUMPY", 6);
  out += char(major);
  out += char(0);
  for (size_t i = 0; i < lengthBytes; ++i)
    out += char((headerLength >> (8 * i)) & 0xff);
  out += dict;
  out.append(total - out.size() - 1, ' ');
  out += '\n';
  return out + data;
}

std::string bytesOf(std::initializer_list<int> values) {
  std::string out;
  for (int v : values)
    out += char(v);
  return out;
}

std::string errorText(llvm::Expected<Literal> result) {
  REQUIRE_FALSE(result);
  return llvm::toString(result.takeError());
}

/// A [2,3] literal whose elements are 0, 1, ..., 5 (negative for signed types).
Literal sample(PrimitiveType type) {
  Literal literal(Shape::array(type, {2, 3}));
  for (int64_t i = 0; i < 6; ++i) {
    if (type == PrimitiveType::Pred)
      literal.setFromInt64(i, i % 2);
    else if (hlo::isSignedInteger(type) || hlo::isFloatingPoint(type) || hlo::isComplex(type))
      literal.setFromDouble(i, i % 2 ? -double(i) : double(i) / 2);
    else
      literal.setFromInt64(i, i * 40);
  }
  return literal;
}

} // namespace

TEST_CASE("npy: every dtype round-trips bit for bit") {
  const PrimitiveType types[] = {PrimitiveType::Pred, PrimitiveType::S8,  PrimitiveType::U8,
                                 PrimitiveType::S16,  PrimitiveType::U16, PrimitiveType::S32,
                                 PrimitiveType::U32,  PrimitiveType::S64, PrimitiveType::U64,
                                 PrimitiveType::F16,  PrimitiveType::F32, PrimitiveType::F64,
                                 PrimitiveType::C64,  PrimitiveType::C128};
  for (PrimitiveType type : types) {
    CAPTURE(hlo::primitiveTypeName(type).str());
    Literal original = sample(type);
    auto encoded = tools::encodeNpy(original);
    REQUIRE(encoded);
    auto decoded = tools::decodeNpy(*encoded);
    REQUIRE(decoded);
    CHECK(decoded->shape().toString(false) == original.shape().toString(false));
    CHECK(decoded->bitwiseEqual(original));
  }
}

TEST_CASE("npy: the header is what numpy.save writes, padded to 64 bytes") {
  Literal literal(Shape::array(PrimitiveType::F32, {2, 3}));
  auto encoded = tools::encodeNpy(literal);
  REQUIRE(encoded);
  CHECK(encoded->substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  size_t headerLength = uint8_t((*encoded)[8]) | (uint8_t((*encoded)[9]) << 8);
  CHECK((10 + headerLength) % 64 == 0);
  CHECK(encoded->size() == 10 + headerLength + 6 * 4);
  CHECK((*encoded)[10 + headerLength - 1] == '\n');
  CHECK(llvm::StringRef(*encoded).substr(10).starts_with(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"));

  tools::NpyHeader header;
  header.descr = "|b1";
  header.shape = {5};
  CHECK(tools::formatNpyHeaderDict(header) ==
        "{'descr': '|b1', 'fortran_order': False, 'shape': (5,), }");
  header.shape.clear();
  CHECK(tools::formatNpyHeaderDict(header) ==
        "{'descr': '|b1', 'fortran_order': False, 'shape': (), }");
}

TEST_CASE("npy: reads hand-made files of every byte order and version") {
  SUBCASE("little-endian int32, version 1.0") {
    auto file = makeNpy("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
                        bytesOf({1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0, 1, 0, 0}));
    auto value = tools::decodeNpy(file);
    REQUIRE(value);
    CHECK(value->shape().toString(false) == "s32[3]");
    CHECK(value->get<int32_t>(0) == 1);
    CHECK(value->get<int32_t>(1) == -2);
    CHECK(value->get<int32_t>(2) == 256);
  }
  SUBCASE("big-endian int32 and float64 are swapped") {
    auto ints =
        tools::decodeNpy(makeNpy("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }",
                                 bytesOf({0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfd})));
    REQUIRE(ints);
    CHECK(ints->get<int32_t>(0) == 0x0102);
    CHECK(ints->get<int32_t>(1) == -3);
    // 1.5 = 0x3FF8000000000000
    auto f64 = tools::decodeNpy(makeNpy("{'descr': '>f8', 'fortran_order': False, 'shape': (), }",
                                        bytesOf({0x3f, 0xf8, 0, 0, 0, 0, 0, 0})));
    REQUIRE(f64);
    CHECK(f64->shape().toString(false) == "f64[]");
    CHECK(f64->get<double>(0) == 1.5);
  }
  SUBCASE("big-endian complex64 swaps each part") {
    // (1.0, -2.0): 0x3F800000, 0xC0000000
    auto value =
        tools::decodeNpy(makeNpy("{'descr': '>c8', 'fortran_order': False, 'shape': (1,), }",
                                 bytesOf({0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0})));
    REQUIRE(value);
    CHECK(value->get<std::complex<float>>(0) == std::complex<float>(1.0f, -2.0f));
  }
  SUBCASE("version 2.0 and 3.0 headers with a 4-byte length, any alignment") {
    for (int major : {2, 3}) {
      auto value = tools::decodeNpy(makeNpy("{\"descr\": \"|u1\", \"fortran_order\": False, "
                                            "\"shape\": (2, 1)}",
                                            bytesOf({7, 200}), major, 16));
      REQUIRE(value);
      CHECK(value->shape().toString(false) == "u8[2,1]");
      CHECK(value->get<uint8_t>(1) == 200);
    }
  }
  SUBCASE("fortran order is transposed into row-major") {
    // The 2x3 matrix {{1,2,3},{4,5,6}} stored column by column.
    auto value = tools::decodeNpy(makeNpy(
        "{'descr': '|i1', 'fortran_order': True, 'shape': (2, 3), }", bytesOf({1, 4, 2, 5, 3, 6})));
    REQUIRE(value);
    for (int i = 0; i < 6; ++i)
      CHECK(value->get<int8_t>(i) == i + 1);
  }
  SUBCASE("bool bytes other than 0 and 1 read as true") {
    auto value = tools::decodeNpy(
        makeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", bytesOf({0, 1, 2})));
    REQUIRE(value);
    CHECK(value->bytes()[0] == 0);
    CHECK(value->bytes()[1] == 1);
    CHECK(value->bytes()[2] == 1);
  }
  SUBCASE("float16 keeps its bits") {
    // 1.0 = 0x3C00, -0.5 = 0xB800
    auto value =
        tools::decodeNpy(makeNpy("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }",
                                 bytesOf({0x00, 0x3c, 0x00, 0xb8})));
    REQUIRE(value);
    CHECK(value->shape().toString(false) == "f16[2]");
    CHECK(float(value->get<hlo::Float16>(0)) == 1.0f);
    CHECK(float(value->get<hlo::Float16>(1)) == -0.5f);
  }
  SUBCASE("empty arrays and python 2 long dimensions") {
    auto empty = tools::decodeNpy(
        makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", ""));
    REQUIRE(empty);
    CHECK(empty->elementCount() == 0);
    auto longDims = tools::decodeNpy(
        makeNpy("{'descr': '|u1', 'fortran_order': False, 'shape': (2L,), }", bytesOf({1, 2})));
    REQUIRE(longDims);
    CHECK(longDims->shape().toString(false) == "u8[2]");
  }
}

TEST_CASE("npy: bf16 is written as float32") {
  Literal literal(Shape::array(PrimitiveType::BF16, {2}));
  literal.set(0, hlo::BFloat16::fromBits(0x3fc0)); // 1.5
  literal.set(1, hlo::BFloat16::fromBits(0xc100)); // -8
  auto encoded = tools::encodeNpy(literal);
  REQUIRE(encoded);
  auto decoded = tools::decodeNpy(*encoded);
  REQUIRE(decoded);
  CHECK(decoded->shape().toString(false) == "f32[2]");
  CHECK(decoded->get<float>(0) == 1.5f);
  CHECK(decoded->get<float>(1) == -8.0f);
}

TEST_CASE("npy: headers over 64 KiB use version 2.0") {
  std::vector<int64_t> dims(25000, 1);
  Literal literal(Shape::array(PrimitiveType::S32, dims));
  literal.set<int32_t>(0, 42);
  auto encoded = tools::encodeNpy(literal);
  REQUIRE(encoded);
  CHECK((*encoded)[6] == 2);
  size_t headerLength = 0;
  for (int i = 0; i < 4; ++i)
    headerLength |= size_t(uint8_t((*encoded)[8 + i])) << (8 * i);
  CHECK(headerLength > 0xffff);
  CHECK((12 + headerLength) % 64 == 0);
  auto decoded = tools::decodeNpy(*encoded);
  REQUIRE(decoded);
  CHECK(decoded->shape().rank() == 25000);
  CHECK(decoded->get<int32_t>(0) == 42);
}

TEST_CASE("npy: tuples, tokens and f8 cannot be written") {
  Literal tuple = Literal::tuple({Literal(Shape::scalar(PrimitiveType::F32))});
  auto tupleResult = tools::encodeNpy(tuple);
  REQUIRE_FALSE(tupleResult);
  CHECK(llvm::toString(tupleResult.takeError()).find("arrays only") != std::string::npos);
  auto f8 = tools::encodeNpy(Literal(Shape::array(PrimitiveType::F8E4M3FN, {2})));
  REQUIRE_FALSE(f8);
  CHECK(llvm::toString(f8.takeError()).find("f8e4m3fn") != std::string::npos);
}

TEST_CASE("npy: corrupt files are errors, never crashes") {
  std::string good =
      makeNpy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", std::string(16, '\1'));
  REQUIRE(tools::decodeNpy(good));

  SUBCASE("every truncation of a good file") {
    for (size_t length = 0; length < good.size(); ++length) {
      CAPTURE(length);
      auto result = tools::decodeNpy(llvm::StringRef(good).take_front(length), "t.npy");
      REQUIRE_FALSE(result);
      CHECK(llvm::StringRef(llvm::toString(result.takeError())).starts_with("t.npy: "));
    }
  }
  SUBCASE("bad magic") {
    std::string bad = good;
    bad[1] = 'X';
    CHECK(errorText(tools::decodeNpy(bad)).find("bad magic") != std::string::npos);
    CHECK(errorText(tools::decodeNpy("PK\x03\x04 this is a zip file")).find("bad magic") !=
          std::string::npos);
  }
  SUBCASE("unknown version") {
    std::string bad = good;
    bad[6] = 4;
    CHECK(errorText(tools::decodeNpy(bad)).find("version 4.0") != std::string::npos);
  }
  SUBCASE("header length beyond the end of the file") {
    std::string bad = good;
    bad[8] = char(0xff);
    bad[9] = char(0xff);
    CHECK(errorText(tools::decodeNpy(bad)).find("truncated") != std::string::npos);
  }
  SUBCASE("data shorter or longer than the shape") {
    CHECK(errorText(tools::decodeNpy(good + "x")).find("data size mismatch") != std::string::npos);
    CHECK(errorText(tools::decodeNpy(good.substr(0, good.size() - 1))).find("(2, 2)") !=
          std::string::npos);
  }
  SUBCASE("a shape whose element count overflows") {
    auto file = makeNpy("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, "
                        "4611686018427387904), }",
                        std::string(8, '\0'));
    CHECK(errorText(tools::decodeNpy(file)).find("data size mismatch") != std::string::npos);
  }
  SUBCASE("bad dictionaries") {
    const char *dicts[] = {
        "{'descr': '<V2', 'fortran_order': False, 'shape': (1,), }",
        "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
        "{'descr': '<f4', 'shape': (1,), }",
        "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}",
        "{'descr': '<f4, 'fortran_order': False, 'shape': (1,), }",
        "{'descr': '<f4' 'fortran_order': False, 'shape': (1,), }",
        "{'descr': '|f4', 'fortran_order': False, 'shape': (1,), }",
        "['descr', '<f4']",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } trailing",
        "",
    };
    for (const char *dict : dicts) {
      CAPTURE(dict);
      auto result = tools::decodeNpy(makeNpy(dict, std::string(4, '\0')));
      CHECK_FALSE(result);
      llvm::consumeError(result.takeError());
    }
    CHECK(errorText(tools::decodeNpy(makeNpy("{'descr': '<V2', 'fortran_order': False, "
                                             "'shape': (1,), }",
                                             "ab")))
              .find("unsupported dtype '<V2'") != std::string::npos);
  }
}

TEST_CASE("npy: files on disk") {
  std::string path = "npy_test_roundtrip.npy";
  Literal literal = sample(PrimitiveType::S16);
  REQUIRE_FALSE(llvm::errorToBool(tools::writeNpyFile(literal, path)));
  auto read = tools::readNpyFile(path);
  REQUIRE(read);
  CHECK(read->bitwiseEqual(literal));
  std::remove(path.c_str());
  auto missing = tools::readNpyFile("no/such/file.npy");
  CHECK(errorText(std::move(missing)).find("no/such/file.npy: cannot read") != std::string::npos);
  llvm::Error unwritable = tools::writeNpyFile(literal, "no/such/dir/out.npy");
  REQUIRE(static_cast<bool>(unwritable));
  CHECK(llvm::toString(std::move(unwritable)).find("cannot write") != std::string::npos);
}
