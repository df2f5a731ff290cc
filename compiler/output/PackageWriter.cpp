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
// Version 2 adds constant blobs; a package without them stays version 1,
// which every runtime reads.
constexpr uint32_t kFormatVersion = 1, kFormatVersionWithConstants = 2;
constexpr size_t kHeaderSize = 64;
constexpr size_t kDigestOffset = 32;
// Constant blobs start at this alignment in the file (the schema's force_align).
constexpr size_t kConstantAlignment = 64;

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
  // Code objects whose constant blobs have the same bytes (feature levels of
  // one triple, as a rule) share one.
  std::vector<const std::vector<uint8_t> *> blobs;
  std::vector<int32_t> blobOf;
  for (const PackageCode &code : contents.codes) {
    int32_t index = -1;
    for (size_t b = 0; b < blobs.size() && index < 0 && !code.constants.empty(); ++b)
      if (*blobs[b] == code.constants)
        index = int32_t(b);
    if (index < 0 && !code.constants.empty()) {
      index = int32_t(blobs.size());
      blobs.push_back(&code.constants);
    }
    blobOf.push_back(index);
  }
  std::vector<flatbuffers::Offset<mote::package::ConstantBlob>> constants;
  for (const std::vector<uint8_t> *blob : blobs) {
    builder.ForceVectorAlignment(blob->size(), 1, kConstantAlignment);
    constants.push_back(mote::package::CreateConstantBlob(builder, builder.CreateVector(*blob)));
  }
  std::vector<flatbuffers::Offset<mote::package::CodeObject>> codes;
  for (size_t i = 0; i < contents.codes.size(); ++i) {
    const PackageCode &code = contents.codes[i];
    std::vector<uint8_t> elf(code.code.elf.begin(), code.code.elf.end());
    codes.push_back(mote::package::CreateCodeObjectDirect(
        builder, code.triple.c_str(), code.cpu.c_str(), code.features.c_str(), &elf,
        code.code.descriptorOffset, code.code.entryOffset, blobOf[i], code.code.constantsOffset));
  }
  const uint32_t version = constants.empty() ? kFormatVersion : kFormatVersionWithConstants;
  auto root = mote::package::CreatePackageDirect(builder, version,
                                                 contents.modelName.c_str(), signature, memory,
                                                 &codes, constants.empty() ? nullptr : &constants);
  mote::package::FinishPackageBuffer(builder, root);

  std::string bytes(kHeaderSize, '\0');
  std::copy(std::begin(kMagic), std::end(kMagic), bytes.begin());
  llvm::support::endian::write32le(&bytes[8], version);
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
