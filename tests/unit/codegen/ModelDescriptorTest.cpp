//===- ModelDescriptorTest.cpp - The model descriptor and signature -------===//

#include "codegen/ModelDescriptor.h"
#include "codegen/ModelSignature.h"
#include "codegen/SignatureBuilder.h"

#include "hlo/Loader.h"

#include "mote/abi.h"

#include <doctest/doctest.h>

#include <cstring>

using namespace mote;

namespace {

/// Reads a descriptor blob through the ABI's own structs, as C code would.
struct DecodedDescriptor {
  explicit DecodedDescriptor(const std::string &blob) : blob(blob) {
    REQUIRE(blob.size() >= sizeof(mote_model_desc));
    std::memcpy(&header, blob.data(), sizeof header);
  }
  mote_tensor_desc tensor(uint32_t tableOffset, uint32_t index) const {
    mote_tensor_desc tensor;
    size_t at = tableOffset + index * sizeof(mote_tensor_desc);
    REQUIRE(at + sizeof tensor <= blob.size());
    std::memcpy(&tensor, blob.data() + at, sizeof tensor);
    return tensor;
  }
  std::string string(uint32_t offset) const {
    REQUIRE(offset < blob.size());
    return std::string(blob.c_str() + offset);
  }
  int64_t dim(const mote_tensor_desc &tensor, int i) const {
    int64_t value;
    std::memcpy(&value, blob.data() + tensor.dims_offset + 8 * i, 8);
    return value;
  }
  uint8_t layout(const mote_tensor_desc &tensor, int i) const {
    return static_cast<uint8_t>(blob[tensor.layout_offset + i]);
  }
  std::string blob;
  mote_model_desc header;
};

std::unique_ptr<hlo::Module> load(const char *text) {
  auto module = hlo::loadModuleText(text, "test.hlo");
  REQUIRE(static_cast<bool>(module));
  return std::move(*module);
}

} // namespace

TEST_CASE("the signature flattens tuple parameters and takes the caller's layouts") {
  auto module = load(R"(
HloModule sig, entry_computation_layout={((f32[2,3]{0,1}, s8[]), u16[4]{0})->(f32[3,2]{1,0}, pred[])}

ENTRY main {
  p = (f32[2,3], s8[]) parameter(0)
  q.1 = u16[4] parameter(1)
  a = f32[2,3] get-tuple-element(p), index=0
  t = f32[3,2] transpose(a), dimensions={1,0}
  b = s8[] get-tuple-element(p), index=1
  z = s8[] constant(0)
  c = pred[] compare(b, z), direction=GT
  ROOT r = (f32[3,2], pred[]) tuple(t, c)
})");
  auto signature = codegen::buildSignature(*module, "sig");
  REQUIRE(static_cast<bool>(signature));
  REQUIRE(signature->args.size() == 3);
  CHECK(signature->args[0].name == "p_0");
  CHECK(signature->args[0].dims == llvm::SmallVector<int64_t, 4>{2, 3});
  CHECK(signature->args[0].minorToMajor == llvm::SmallVector<int64_t, 4>{0, 1});
  CHECK(signature->args[0].byteSize == 24);
  CHECK(signature->args[1].name == "p_1");
  CHECK(signature->args[1].byteSize == 1);
  CHECK(signature->args[2].name == "q_1");
  CHECK(signature->args[2].byteSize == 8);
  REQUIRE(signature->results.size() == 2);
  CHECK(signature->results[0].name == "result_0");
  CHECK(signature->results[1].elementType == hlo::PrimitiveType::Pred);
}

TEST_CASE("the descriptor encodes the signature so C code reads it through abi.h") {
  codegen::ModelSignature signature;
  signature.name = "tiny";
  signature.triple = "thumbv7em-none-eabihf";
  signature.features = "+vfp4";
  signature.scratchSize = 4096;
  signature.scratchAlignment = 16;
  codegen::TensorSignature x;
  x.name = "x";
  x.elementType = hlo::PrimitiveType::F32;
  x.dims = {2, 5};
  x.minorToMajor = {0, 1};
  x.byteSize = 40;
  signature.args.push_back(x);
  codegen::TensorSignature y;
  y.name = "logits";
  y.elementType = hlo::PrimitiveType::BF16;
  y.dims = {};
  y.byteSize = 2;
  signature.results.push_back(y);

  DecodedDescriptor decoded(codegen::encodeModelDescriptor(signature));
  const mote_model_desc &header = decoded.header;
  CHECK(header.magic == MOTE_MODEL_MAGIC);
  CHECK(header.abi_version == MOTE_ABI_VERSION);
  CHECK(header.total_size == decoded.blob.size());
  CHECK(header.total_size % 8 == 0);
  CHECK(decoded.string(header.name_offset) == "tiny");
  CHECK(decoded.string(header.triple_offset) == "thumbv7em-none-eabihf");
  CHECK(decoded.string(header.cpu_features_offset) == "+vfp4");
  CHECK(header.arg_count == 1);
  CHECK(header.result_count == 1);
  CHECK(header.scratch_size == 4096);
  CHECK(header.scratch_alignment == 16);

  mote_tensor_desc arg = decoded.tensor(header.args_offset, 0);
  CHECK(decoded.string(arg.name_offset) == "x");
  CHECK(arg.element_type == MOTE_F32);
  CHECK(arg.rank == 2);
  CHECK(arg.dims_offset % 8 == 0);
  CHECK(decoded.dim(arg, 0) == 2);
  CHECK(decoded.dim(arg, 1) == 5);
  CHECK(decoded.layout(arg, 0) == 0);
  CHECK(decoded.layout(arg, 1) == 1);
  CHECK(arg.byte_size == 40);

  mote_tensor_desc result = decoded.tensor(header.results_offset, 0);
  CHECK(decoded.string(result.name_offset) == "logits");
  CHECK(result.element_type == MOTE_BF16);
  CHECK(result.rank == 0);
  CHECK(result.byte_size == 2);
}

TEST_CASE("element types without an ABI code are rejected at the interface") {
  auto module = load(R"(
HloModule f8
ENTRY main {
  x = f8e5m2[2] parameter(0)
  ROOT y = f8e5m2[2] copy(x)
})");
  auto signature = codegen::buildSignature(*module, "f8");
  REQUIRE(!signature);
  std::string message = llvm::toString(signature.takeError());
  CHECK(message.find("f8e5m2[2]") != std::string::npos);
}

TEST_CASE("complex and sub-byte tensors cross the interface with their own codes") {
  auto module = load(R"(
HloModule c
ENTRY main {
  x = c64[2] parameter(0)
  n = s4[3] parameter(1)
  ROOT t = (c128[2], u4[3], s2[1], u2[1]) tuple(c128[2] convert(x), u4[3] convert(n), s2[1] constant({-2}), u2[1] constant({3}))
})");
  auto signature = codegen::buildSignature(*module, "c");
  REQUIRE(static_cast<bool>(signature));
  REQUIRE(signature->args.size() == 2);
  CHECK(signature->args[0].byteSize == 16); // two (re, im) pairs of f32
  CHECK(signature->args[1].byteSize == 3);  // one byte an element
  REQUIRE(signature->results.size() == 4);
  CHECK(signature->results[0].byteSize == 32);
  const uint8_t codes[] = {MOTE_C128, MOTE_U4, MOTE_S2, MOTE_U2};
  for (size_t i = 0; i < 4; ++i)
    CHECK(codegen::abiElementType(signature->results[i].elementType) == codes[i]);
  CHECK(codegen::abiElementType(signature->args[0].elementType) == MOTE_C64);
  CHECK(codegen::abiElementType(signature->args[1].elementType) == MOTE_S4);
}
