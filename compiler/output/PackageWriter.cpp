//===- PackageWriter.cpp - Writes .mote packages ----------------------------===//
#include "output/PackageWriter.h"

#include "package_generated.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/SHA256.h"

namespace mote::output {
namespace {

// Must match runtime/package/package_format.h (a package test reads what
// this writes, so the two cannot drift unnoticed).
constexpr char kMagic[8] = {'M', 'O', 'T', 'E', 'P', 'K', 'G', 0};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderSize = 64;
constexpr size_t kDigestOffset = 32;

flatbuffers::Offset<mote::package::Tensor> writeTensor(flatbuffers::FlatBufferBuilder &builder,
                                                       const codegen::TensorSignature &tensor) {
  std::vector<uint8_t> layout(tensor.minorToMajor.begin(), tensor.minorToMajor.end());
  std::vector<int64_t> dims(tensor.dims.begin(), tensor.dims.end());
  return mote::package::CreateTensorDirect(builder, tensor.name.c_str(),
                                           codegen::abiElementType(tensor.elementType), &dims,
                                           &layout, tensor.byteSize);
}

} // namespace

std::string writePackage(const PackageContents &contents) {
  flatbuffers::FlatBufferBuilder builder(4096);
  std::vector<flatbuffers::Offset<mote::package::Tensor>> args, results;
  for (const auto &tensor : contents.signature.args)
    args.push_back(writeTensor(builder, tensor));
  for (const auto &tensor : contents.signature.results)
    results.push_back(writeTensor(builder, tensor));
  auto signature = mote::package::CreateSignatureDirect(builder, &args, &results);
  auto memory = mote::package::CreateMemoryPlan(builder, contents.signature.scratchSize,
                                                contents.signature.scratchAlignment);
  std::vector<flatbuffers::Offset<mote::package::CodeObject>> codes;
  for (const PackageCode &code : contents.codes) {
    std::vector<uint8_t> elf(code.code.elf.begin(), code.code.elf.end());
    codes.push_back(mote::package::CreateCodeObjectDirect(
        builder, code.triple.c_str(), code.cpu.c_str(), code.features.c_str(), &elf,
        code.code.descriptorOffset, code.code.entryOffset));
  }
  auto root = mote::package::CreatePackageDirect(
      builder, kFormatVersion, contents.modelName.c_str(), signature, memory, &codes);
  mote::package::FinishPackageBuffer(builder, root);

  std::string bytes(kHeaderSize, '\0');
  std::copy(std::begin(kMagic), std::end(kMagic), bytes.begin());
  llvm::support::endian::write32le(&bytes[8], kFormatVersion);
  llvm::support::endian::write32le(&bytes[12], kHeaderSize);
  llvm::support::endian::write64le(&bytes[16], kHeaderSize + builder.GetSize());
  bytes.append(reinterpret_cast<const char *>(builder.GetBufferPointer()), builder.GetSize());

  llvm::SHA256 hash;
  hash.update(llvm::StringRef(bytes).take_front(kDigestOffset));
  hash.update(llvm::StringRef(bytes).drop_front(kHeaderSize));
  std::array<uint8_t, 32> digest = hash.final();
  std::copy(digest.begin(), digest.end(), bytes.begin() + kDigestOffset);
  return bytes;
}

} // namespace mote::output
