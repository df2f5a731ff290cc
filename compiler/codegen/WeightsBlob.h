//===- WeightsBlob.h - Constants kept outside the code ----------*- C++ -*-===//
///
/// \file
/// A model in a package reads its large constants (weights, bound or folded;
/// panels laid out for the kernels) from one read-only blob the runtime
/// hands it as mote_call.weights, instead of from its own read-only data:
/// the package holds the blob once, and the runtime uses it in place from
/// the mapped file (or a separate weights file), so loading copies only
/// code. Each constant sits at an offset aligned for the widest vector
/// load; constants smaller than kMinBytes stay in the code.
///
/// The blob refers to bytes it does not own where it can (the literals of
/// the module being compiled), so a large model's weights are not copied
/// once more: the module must outlive the blob.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_WEIGHTSBLOB_H
#define MOTE_CODEGEN_WEIGHTSBLOB_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mote::codegen {

class WeightsBlob {
public:
  /// Every constant starts at a multiple of this from the blob's start (a
  /// cache line, and the widest vector any target loads).
  static constexpr uint64_t kAlignment = 64;
  /// What the code needs of the blob's address: its loads assume no more
  /// than their elements' alignment. Mapped files (page-aligned) and the
  /// package's 64-byte alignment give every constant its cache line too;
  /// a package read into ordinary heap memory still runs.
  static constexpr uint32_t kBaseAlignment = 16;
  /// Constants below this size stay in the code's read-only data.
  static constexpr uint64_t kMinBytes = 64;

  /// Places `bytes` (which must outlive the blob) and returns their offset.
  uint64_t add(llvm::ArrayRef<uint8_t> bytes);
  /// Places bytes the blob keeps.
  uint64_t add(std::vector<uint8_t> bytes);

  /// Bytes of the blob, the padding after the last constant included.
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  /// Calls `chunk` with consecutive pieces of the blob, padding included.
  void forEachChunk(llvm::function_ref<void(llvm::ArrayRef<uint8_t>)> chunk) const;
  /// Whether both hold the same bytes.
  bool sameBytes(const WeightsBlob &other) const;

private:
  struct Piece {
    uint64_t offset;
    llvm::ArrayRef<uint8_t> bytes;
  };
  std::vector<Piece> pieces_;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> owned_;
  uint64_t size_ = 0;
};

} // namespace mote::codegen

#endif // MOTE_CODEGEN_WEIGHTSBLOB_H
