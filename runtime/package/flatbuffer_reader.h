//===- flatbuffer_reader.h - Bounds-checked reads of an untrusted flatbuffer ===//
//
// The runtime cannot use flatbuffers' C++ headers (they need the STL), so it
// reads its one schema with these few checked steps instead. Every step
// verifies what flatbuffers' own Verifier verifies (alignment of offsets and
// vtables, every offset and length inside the buffer, strings NUL-terminated)
// and also that each field lies inside its table; a test cross-checks the two
// on valid and mutated packages. Scalars are assembled byte by byte, so the
// buffer needs no alignment in memory and the host's byte order is irrelevant.
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_RUNTIME_PACKAGE_FLATBUFFER_READER_H
#define MOTE_RUNTIME_PACKAGE_FLATBUFFER_READER_H

#include <stddef.h>
#include <stdint.h>

namespace mote::flatbuffer {

/// A table whose vtable has been verified.
struct Table {
  uint32_t pos = 0;
  uint32_t vtable = 0;
  uint16_t vtable_size = 0;
  uint16_t table_size = 0;
};

/// A verified vector (or string): `count` elements starting at `data`.
struct Vector {
  uint32_t count = 0;
  uint32_t data = 0;
};

class Reader {
public:
  Reader(const uint8_t *data, uint32_t size) : data_(data), size_(size) {}

  const uint8_t *data() const { return data_; }
  uint32_t size() const { return size_; }

  /// [pos, pos + len) lies inside the buffer (len < size, as flatbuffers has it).
  bool contains(uint64_t pos, uint64_t len) const { return len < size_ && pos <= size_ - len; }
  uint64_t load(uint32_t pos, unsigned width) const {
    uint64_t value = 0;
    for (unsigned i = 0; i < width; ++i)
      value |= uint64_t(data_[pos + i]) << (8 * i);
    return value;
  }

  /// The root table (the buffer's first uoffset).
  bool root(Table *out) const;
  /// The table at `pos`.
  bool table(uint32_t pos, Table *out) const;
  /// Scalar field `index` of `width` bytes, or `fallback` when absent.
  bool scalar(const Table &table, unsigned index, unsigned width, uint64_t fallback,
              uint64_t *out) const;
  /// The target of offset field `index`; *out = 0 when the field is absent.
  bool offset(const Table &table, unsigned index, uint32_t *out) const;
  /// Vector field `index` of `element_size`-byte elements (absent: empty).
  bool vector(const Table &table, unsigned index, unsigned element_size, Vector *out) const;
  /// String field `index`; *present tells absent from empty.
  bool string(const Table &table, unsigned index, Vector *out, bool *present) const;
  /// Element `index` of a vector of tables.
  bool vector_table(const Vector &vector, uint32_t index, Table *out) const;

private:
  bool field(const Table &table, unsigned index, unsigned width, uint32_t *out) const;
  bool follow(uint32_t pos, uint32_t *out) const;
  bool vector_at(uint32_t pos, unsigned element_size, Vector *out) const;

  const uint8_t *data_;
  uint32_t size_;
};

} // namespace mote::flatbuffer

#endif // MOTE_RUNTIME_PACKAGE_FLATBUFFER_READER_H
