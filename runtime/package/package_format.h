//===- package_format.h - The fixed header in front of a .mote flatbuffer -===//
//
// A package file is this 64-byte header, then the flatbuffer of
// runtime/schema/package.fbs (starting at byte 64, so its alignment holds):
//
//   offset  size  field
//   0       8     magic "MOTEPKG\0"
//   8       4     format_version (little-endian; MOTE_PACKAGE_FORMAT_VERSION)
//   12      4     header_size (64)
//   16      8     total_size: header + flatbuffer, in bytes
//   24      8     reserved, zero
//   32      32    SHA-256 of bytes [0, 32) followed by bytes [64, total_size)
//
// The digest covers every byte the loader reads later, so it is checked
// right after the fields that say how many bytes there are, before any
// offset in the flatbuffer is followed.
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_RUNTIME_PACKAGE_PACKAGE_FORMAT_H
#define MOTE_RUNTIME_PACKAGE_PACKAGE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

namespace mote::package_format {

constexpr uint8_t kMagic[8] = {'M', 'O', 'T', 'E', 'P', 'K', 'G', 0};
constexpr size_t kHeaderSize = 64;
constexpr size_t kVersionOffset = 8;
constexpr size_t kHeaderSizeOffset = 12;
constexpr size_t kTotalSizeOffset = 16;
constexpr size_t kReservedOffset = 24;
constexpr size_t kDigestOffset = 32;
/// Flatbuffers offsets are 32-bit; keep well inside them.
constexpr uint64_t kMaxTotalSize = 0x7fffffffu;

} // namespace mote::package_format

#endif // MOTE_RUNTIME_PACKAGE_PACKAGE_FORMAT_H
