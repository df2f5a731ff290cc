//===- sha256.h - SHA-256 (FIPS 180-4), freestanding -----------------------===//
//
// The package digest. No heap, no libc beyond memcpy/memset; streaming so a
// digest can cover two byte ranges without copying them together.
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_RUNTIME_PACKAGE_SHA256_H
#define MOTE_RUNTIME_PACKAGE_SHA256_H

#include <stddef.h>
#include <stdint.h>

namespace mote {

constexpr size_t kSha256Size = 32;

class Sha256 {
public:
  Sha256();
  void update(const void *data, size_t size);
  /// Writes the digest; the object must not be updated afterwards.
  void finish(uint8_t out[kSha256Size]);

private:
  void compress(const uint8_t block[64]);
  uint32_t state_[8];
  uint64_t length_ = 0; // bytes hashed so far
  uint8_t block_[64];
  size_t used_ = 0; // bytes in block_
};

/// One-shot digest of `size` bytes at `data`.
void sha256(const void *data, size_t size, uint8_t out[kSha256Size]);

} // namespace mote

#endif // MOTE_RUNTIME_PACKAGE_SHA256_H
