//===- package_reader.h - The .mote flatbuffer, verified field by field ---===//
//
// Knows the field numbers of runtime/schema/package.fbs. verify_package_body
// walks the whole buffer once (mote_package_open calls it after the digest);
// the accessors re-read with the same checks, so no query can leave bounds
// even on a mote_package a caller filled in by hand.
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_RUNTIME_PACKAGE_PACKAGE_READER_H
#define MOTE_RUNTIME_PACKAGE_PACKAGE_READER_H

#include "flatbuffer_reader.h"
#include "mote/package.h"

namespace mote::package_reader {

// Field numbers, in schema order.
enum TensorField { kTensorName, kTensorElementType, kTensorDims, kTensorLayout, kTensorByteSize };
enum SignatureField { kSignatureArgs, kSignatureResults };
enum MemoryPlanField { kMemoryScratchSize, kMemoryScratchAlignment };
enum CodeObjectField {
  kCodeTriple,
  kCodeCpu,
  kCodeFeatures,
  kCodeElf,
  kCodeDescriptorOffset,
  kCodeEntryOffset,
  kCodeWeightsOffset,
  kCodeWeightsSize
};
enum PackageField {
  kPackageFormatVersion,
  kPackageModelName,
  kPackageSignature,
  kPackageMemory,
  kPackageCodeObjects,
  kPackageWeights,
  kPackageWeightsFile,
  kPackageWeightsSize,
  kPackageWeightsDigest
};

/// Where a package's weights are, after verification: `embedded` inside the
/// buffer, or a file of `size` bytes named `file` with SHA-256 `digest`.
struct WeightsInfo {
  const uint8_t *embedded = nullptr;
  uint64_t size = 0;
  const char *file = "";
  const uint8_t *digest = nullptr; ///< 32 bytes
};
mote_status read_weights(const flatbuffer::Reader &reader, const flatbuffer::Table &root,
                         WeightsInfo *out);

/// Verifies the flatbuffer of a package (after the header) against the
/// schema and the runtime's limits. MOTE_OK or MOTE_PACKAGE_MALFORMED.
mote_status verify_package_body(const uint8_t *buffer, uint32_t size, uint32_t *out_root);

mote_status read_tensor(const flatbuffer::Reader &reader, const flatbuffer::Table &tensor,
                        mote_package_tensor *out);
mote_status read_code(const flatbuffer::Reader &reader, const flatbuffer::Table &code,
                      mote_package_code *out);

} // namespace mote::package_reader

#endif // MOTE_RUNTIME_PACKAGE_PACKAGE_READER_H
