//===- PackageWriter.cpp - Writes .mote packages ----------------------------===//
#include "output/PackageWriter.h"

#include "package_generated.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Endian.h"

#include "sha256.h" // the runtime's, shared so the two compute one digest

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

/// The package's weights: each distinct blob once, 64-byte aligned, in the
/// order code objects first use them.
struct WeightsLayout {
  std::vector<const codegen::WeightsBlob *> blobs;
  std::vector<uint64_t> blobOffsets;
  std::vector<uint64_t> codeOffsets; ///< per code object (0 when it has none)
  uint64_t size = 0;

  explicit WeightsLayout(const std::vector<PackageCode> &codes) {
    for (const PackageCode &code : codes) {
      uint64_t offset = 0;
      if (code.weights && !code.weights->empty()) {
        auto same = std::find_if(blobs.begin(), blobs.end(), [&](const codegen::WeightsBlob *b) {
          return b->sameBytes(*code.weights);
        });
        if (same != blobs.end()) {
          offset = blobOffsets[same - blobs.begin()];
        } else {
          offset = size;
          blobs.push_back(code.weights);
          blobOffsets.push_back(offset);
          size = offset + (code.weights->size() + 63) / 64 * 64;
        }
      }
      codeOffsets.push_back(offset);
    }
  }

  /// Calls `chunk` with the weights' bytes in order, padding included.
  void forEachChunk(llvm::function_ref<void(llvm::ArrayRef<uint8_t>)> chunk) const {
    static const uint8_t kZeros[64] = {};
    for (const codegen::WeightsBlob *blob : blobs) {
      blob->forEachChunk(chunk);
      if (uint64_t padding = (64 - blob->size() % 64) % 64)
        chunk(llvm::ArrayRef<uint8_t>(kZeros, padding));
    }
  }
};

} // namespace

std::string writePackage(const PackageContents &contents, llvm::raw_ostream *weightsOut) {
  flatbuffers::FlatBufferBuilder builder(4096);
  const WeightsLayout weights(contents.codes);
  const bool inFile = !contents.weightsFile.empty() && weights.size;
  mote::Sha256 weightsHash;
  weights.forEachChunk([&](llvm::ArrayRef<uint8_t> bytes) {
    weightsHash.update(bytes.data(), bytes.size());
    if (inFile)
      weightsOut->write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  });
  std::array<uint8_t, mote::kSha256Size> weightsDigest;
  weightsHash.finish(weightsDigest.data());
  // Built first, at the end of the buffer: aligned for the kernels.
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> embedded;
  if (weights.size && !inFile) {
    builder.ForceVectorAlignment(weights.size, 1, 64);
    uint8_t *to = nullptr;
    embedded = builder.CreateUninitializedVector(weights.size, &to);
    weights.forEachChunk([&](llvm::ArrayRef<uint8_t> bytes) {
      std::copy(bytes.begin(), bytes.end(), to);
      to += bytes.size();
    });
  }
  std::vector<flatbuffers::Offset<mote::package::Tensor>> args, results;
  for (const auto &tensor : contents.signature.args)
    args.push_back(writeTensor(builder, tensor));
  for (const auto &tensor : contents.signature.results)
    results.push_back(writeTensor(builder, tensor));
  auto signature = mote::package::CreateSignatureDirect(builder, &args, &results);
  auto memory = mote::package::CreateMemoryPlan(builder, contents.signature.scratchSize,
                                                contents.signature.scratchAlignment);
  std::vector<flatbuffers::Offset<mote::package::CodeObject>> codes;
  for (auto [i, code] : llvm::enumerate(contents.codes)) {
    std::vector<uint8_t> elf(code.code.elf.begin(), code.code.elf.end());
    const uint64_t weightsSize = code.weights ? code.weights->size() : 0;
    codes.push_back(mote::package::CreateCodeObjectDirect(
        builder, code.triple.c_str(), code.cpu.c_str(), code.features.c_str(), &elf,
        code.code.descriptorOffset, code.code.entryOffset, weightsSize ? weights.codeOffsets[i] : 0,
        weightsSize));
  }
  auto codeVector = builder.CreateVector(codes);
  auto name = builder.CreateString(contents.modelName);
  flatbuffers::Offset<flatbuffers::String> file;
  if (inFile)
    file = builder.CreateString(contents.weightsFile);
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> weightsDigestVector;
  if (weights.size)
    weightsDigestVector = builder.CreateVector(weightsDigest.data(), weightsDigest.size());
  auto root =
      mote::package::CreatePackage(builder, kFormatVersion, name, signature, memory, codeVector,
                                   embedded, file, weights.size, weightsDigestVector);
  mote::package::FinishPackageBuffer(builder, root);

  std::string bytes(kHeaderSize, '\0');
  std::copy(std::begin(kMagic), std::end(kMagic), bytes.begin());
  llvm::support::endian::write32le(&bytes[8], kFormatVersion);
  llvm::support::endian::write32le(&bytes[12], kHeaderSize);
  llvm::support::endian::write64le(&bytes[16], kHeaderSize + builder.GetSize());
  bytes.append(reinterpret_cast<const char *>(builder.GetBufferPointer()), builder.GetSize());

  mote::Sha256 hash;
  hash.update(bytes.data(), kDigestOffset);
  hash.update(bytes.data() + kHeaderSize, bytes.size() - kHeaderSize);
  std::array<uint8_t, mote::kSha256Size> digest;
  hash.finish(digest.data());
  std::copy(digest.begin(), digest.end(), bytes.begin() + kDigestOffset);
  return bytes;
}

} // namespace mote::output
