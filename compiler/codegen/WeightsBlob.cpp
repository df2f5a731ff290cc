//===- WeightsBlob.cpp - Constants kept outside the code ------------------===//

#include "codegen/WeightsBlob.h"

namespace mote::codegen {

uint64_t WeightsBlob::add(llvm::ArrayRef<uint8_t> bytes) {
  const uint64_t offset = size_;
  pieces_.push_back({offset, bytes});
  size_ = (offset + bytes.size() + kAlignment - 1) / kAlignment * kAlignment;
  return offset;
}

uint64_t WeightsBlob::add(std::vector<uint8_t> bytes) {
  owned_.push_back(std::make_unique<std::vector<uint8_t>>(std::move(bytes)));
  return add(llvm::ArrayRef<uint8_t>(*owned_.back()));
}

void WeightsBlob::forEachChunk(llvm::function_ref<void(llvm::ArrayRef<uint8_t>)> chunk) const {
  static const uint8_t kZeros[kAlignment] = {};
  uint64_t at = 0;
  for (const Piece &piece : pieces_) {
    chunk(piece.bytes);
    at = piece.offset + piece.bytes.size();
    const uint64_t padding = (kAlignment - at % kAlignment) % kAlignment;
    if (padding)
      chunk(llvm::ArrayRef<uint8_t>(kZeros, padding));
  }
}

bool WeightsBlob::sameBytes(const WeightsBlob &other) const {
  if (size_ != other.size_ || pieces_.size() != other.pieces_.size())
    return false;
  for (size_t i = 0; i < pieces_.size(); ++i)
    if (pieces_[i].offset != other.pieces_[i].offset || pieces_[i].bytes != other.pieces_[i].bytes)
      return false;
  return true;
}

} // namespace mote::codegen
