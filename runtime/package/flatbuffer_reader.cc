//===- flatbuffer_reader.cc - Bounds-checked reads of an untrusted flatbuffer ===//
#include "flatbuffer_reader.h"

namespace mote::flatbuffer {

bool Reader::root(Table *out) const {
  uint32_t pos;
  return contains(0, 4) && follow(0, &pos) && table(pos, out);
}

bool Reader::table(uint32_t pos, Table *out) const {
  if ((pos & 3) != 0 || !contains(pos, 4))
    return false;
  // The vtable sits at pos - soffset (either side of the table).
  int64_t vtable = int64_t(pos) - int64_t(int32_t(uint32_t(load(pos, 4))));
  if (vtable < 0 || (vtable & 1) != 0 || !contains(uint64_t(vtable), 4))
    return false;
  uint16_t vtable_size = uint16_t(load(uint32_t(vtable), 2));
  uint16_t table_size = uint16_t(load(uint32_t(vtable) + 2, 2));
  if ((vtable_size & 1) != 0 || vtable_size < 4 || !contains(uint64_t(vtable), vtable_size) ||
      table_size < 4 || !contains(pos, table_size))
    return false;
  *out = Table{pos, uint32_t(vtable), vtable_size, table_size};
  return true;
}

bool Reader::field(const Table &table, unsigned index, unsigned width, uint32_t *out) const {
  uint32_t entry = 4 + 2 * index;
  *out = 0;
  if (entry + 2 > table.vtable_size)
    return true; // a field newer than the writer: absent
  uint32_t offset = uint32_t(load(table.vtable + entry, 2));
  if (offset == 0)
    return true;
  // Inside the table and aligned like flatbuffers' builder aligns it.
  if (offset < 4 || uint64_t(offset) + width > table.table_size)
    return false;
  uint32_t pos = table.pos + offset;
  if ((pos & (width - 1)) != 0 || !contains(pos, width))
    return false;
  *out = pos;
  return true;
}

bool Reader::follow(uint32_t pos, uint32_t *out) const {
  if ((pos & 3) != 0 || !contains(pos, 4))
    return false;
  uint32_t offset = uint32_t(load(pos, 4));
  // flatbuffers reads the offset as signed and requires it positive.
  if (offset == 0 || offset > 0x7fffffffu || !contains(uint64_t(pos) + offset, 1))
    return false;
  *out = pos + offset;
  return true;
}

bool Reader::scalar(const Table &table, unsigned index, unsigned width, uint64_t fallback,
                    uint64_t *out) const {
  uint32_t pos;
  if (!field(table, index, width, &pos))
    return false;
  *out = pos ? load(pos, width) : fallback;
  return true;
}

bool Reader::offset(const Table &table, unsigned index, uint32_t *out) const {
  uint32_t pos;
  if (!field(table, index, 4, &pos))
    return false;
  *out = 0;
  return pos == 0 || follow(pos, out);
}

bool Reader::vector_at(uint32_t pos, unsigned element_size, Vector *out) const {
  if ((pos & 3) != 0 || !contains(pos, 4))
    return false;
  uint64_t count = load(pos, 4);
  uint64_t bytes = 4 + count * element_size; // no overflow: count < 2^32, size <= 8
  if (!contains(pos, bytes))
    return false;
  *out = Vector{uint32_t(count), pos + 4};
  return true;
}

bool Reader::vector(const Table &table, unsigned index, unsigned element_size, Vector *out) const {
  uint32_t pos;
  *out = Vector{};
  if (!offset(table, index, &pos))
    return false;
  return pos == 0 || vector_at(pos, element_size, out);
}

bool Reader::string(const Table &table, unsigned index, Vector *out, bool *present) const {
  uint32_t pos;
  *out = Vector{};
  *present = false;
  if (!offset(table, index, &pos))
    return false;
  if (pos == 0)
    return true;
  if (!vector_at(pos, 1, out))
    return false;
  uint64_t end = uint64_t(out->data) + out->count;
  if (!contains(end, 1) || data_[end] != 0)
    return false;
  *present = true;
  return true;
}

bool Reader::vector_table(const Vector &vector, uint32_t index, Table *out) const {
  if (index >= vector.count)
    return false;
  uint32_t target;
  return follow(vector.data + 4 * index, &target) && table(target, out);
}

} // namespace mote::flatbuffer
