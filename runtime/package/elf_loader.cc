//===- elf_loader.cc - Place a code object in caller memory, any architecture ===//
//
// Verify the ELF header and program headers, copy the PT_LOAD segments into
// the caller's memory, read the dynamic table, reject imports, and apply the
// relative relocations. What differs per architecture (machine numbers and
// relocation types) is in elf_arch_*.cc. Every value read from the ELF is
// checked against the file size or the image size before it is used; sums
// are done in 64 bits after checking each operand, so nothing wraps.
//
//===----------------------------------------------------------------------===//
#include "mote/code_loader.h"

#include "elf_arch.h"

#include <string.h>

namespace mote::elf {
namespace {

constexpr uint64_t kMaxImageSize = uint64_t(1) << 30;
constexpr uint64_t kMaxSegmentAlignment = 65536;
constexpr uint16_t kMaxProgramHeaders = 64;

// Program header types.
constexpr uint32_t kPtLoad = 1, kPtDynamic = 2, kPtInterp = 3, kPtTls = 7;
constexpr uint32_t kPfExecute = 1;
// Dynamic tags.
constexpr uint64_t kDtNull = 0, kDtNeeded = 1, kDtPltRelSize = 2, kDtRela = 7, kDtRelaSize = 8,
                   kDtRelaEnt = 9, kDtInit = 12, kDtFini = 13, kDtRel = 17, kDtRelSize = 18,
                   kDtRelEnt = 19, kDtJmpRel = 23, kDtInitArray = 25, kDtFiniArray = 26,
                   kDtPreinitArray = 32, kDtRelrSize = 35, kDtRelr = 36;

uint64_t load(const uint8_t *p, unsigned width) {
  uint64_t value = 0;
  for (unsigned i = 0; i < width; ++i)
    value |= uint64_t(p[i]) << (8 * i);
  return value;
}

void store(uint8_t *p, unsigned width, uint64_t value) {
  for (unsigned i = 0; i < width; ++i)
    p[i] = uint8_t(value >> (8 * i));
}

bool fits(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

// The checked headers of one ELF file.
struct Elf {
  const uint8_t *data;
  uint64_t size;
  const Arch *arch;
  unsigned word; // 4 or 8
  uint64_t phoff;
  uint16_t phnum;
  uint16_t phentsize;
  uint64_t image_size = 0;
  uint64_t alignment = 16;
  uint64_t dynamic_vaddr = 0, dynamic_size = 0;
  bool has_dynamic = false;
};

// Program header `i`, fields normalised across the two classes.
struct Segment {
  uint32_t type, flags;
  uint64_t offset, vaddr, filesz, memsz, align;
};

Segment segment(const Elf &elf, uint16_t i) {
  const uint8_t *p = elf.data + elf.phoff + uint64_t(i) * elf.phentsize;
  Segment s;
  s.type = uint32_t(load(p, 4));
  if (elf.word == 8) {
    s.flags = uint32_t(load(p + 4, 4));
    s.offset = load(p + 8, 8);
    s.vaddr = load(p + 16, 8);
    s.filesz = load(p + 32, 8);
    s.memsz = load(p + 40, 8);
    s.align = load(p + 48, 8);
  } else {
    s.offset = load(p + 4, 4);
    s.vaddr = load(p + 8, 4);
    s.filesz = load(p + 16, 4);
    s.memsz = load(p + 20, 4);
    s.flags = uint32_t(load(p + 24, 4));
    s.align = load(p + 28, 4);
  }
  return s;
}

mote_status parse(const uint8_t *data, size_t size, Elf *out, mote_code_layout *layout) {
  constexpr mote_status kMalformed = MOTE_CODE_MALFORMED;
  if (data == nullptr || size < 52)
    return kMalformed;
  if (data[0] != 0x7f || data[1] != 'E' || data[2] != 'L' || data[3] != 'F')
    return kMalformed;
  uint8_t elf_class = data[4];
  if ((elf_class != 1 && elf_class != 2) || data[5] != 1 /* little-endian */ || data[6] != 1)
    return kMalformed;
  unsigned word = elf_class == 2 ? 8 : 4;
  uint64_t header_size = word == 8 ? 64 : 52;
  if (size < header_size)
    return kMalformed;
  uint16_t type = uint16_t(load(data + 16, 2));
  uint16_t machine = uint16_t(load(data + 18, 2));
  const Arch *arch = find_arch(machine, elf_class);
  if (type != 3 /* ET_DYN */ || arch == nullptr || load(data + 20, 4) != 1)
    return kMalformed;
  Elf elf{data, size, arch, word, 0, 0, 0};
  const uint8_t *tail = data + (word == 8 ? 52 : 40); // e_ehsize onwards
  elf.phoff = load(data + (word == 8 ? 32 : 28), word);
  elf.phentsize = uint16_t(load(tail + 2, 2));
  elf.phnum = uint16_t(load(tail + 4, 2));
  if (load(tail, 2) != header_size || elf.phentsize != (word == 8 ? 56 : 32) || elf.phnum == 0 ||
      elf.phnum > kMaxProgramHeaders || !fits(elf.phoff, uint64_t(elf.phnum) * elf.phentsize, size))
    return kMalformed;

  uint64_t previous_end = 0;
  bool any_load = false;
  uint64_t exec_begin = ~uint64_t(0), exec_end = 0;
  for (uint16_t i = 0; i < elf.phnum; ++i) {
    Segment s = segment(elf, i);
    if (s.type == kPtInterp || s.type == kPtTls)
      return kMalformed; // wants a dynamic loader or thread-local storage
    if (s.type == kPtDynamic) {
      if (elf.has_dynamic || s.memsz > kMaxImageSize)
        return kMalformed;
      elf.has_dynamic = true;
      elf.dynamic_vaddr = s.vaddr;
      elf.dynamic_size = s.memsz;
      continue;
    }
    if (s.type != kPtLoad)
      continue; // notes, stack flags, unwind tables: nothing to place
    uint64_t align = s.align == 0 ? 1 : s.align;
    if ((align & (align - 1)) != 0 || align > kMaxSegmentAlignment || s.filesz > s.memsz ||
        !fits(s.offset, s.filesz, size) || s.vaddr > kMaxImageSize || s.memsz > kMaxImageSize ||
        s.vaddr < previous_end /* sorted, disjoint */)
      return kMalformed;
    previous_end = s.vaddr + s.memsz;
    if (previous_end > kMaxImageSize)
      return kMalformed;
    if (align > elf.alignment)
      elf.alignment = align;
    if (s.flags & kPfExecute) {
      exec_begin = s.vaddr < exec_begin ? s.vaddr : exec_begin;
      exec_end = previous_end > exec_end ? previous_end : exec_end;
    }
    any_load = true;
  }
  elf.image_size = previous_end;
  if (!any_load || elf.image_size == 0 || exec_end == 0 ||
      (elf.has_dynamic && !fits(elf.dynamic_vaddr, elf.dynamic_size, elf.image_size)))
    return kMalformed;
  *out = elf;
  if (layout) {
    layout->image_size = elf.image_size;
    layout->image_alignment = elf.alignment;
    layout->machine = machine;
    layout->elf_class = elf_class;
    layout->exec_begin = exec_begin;
    layout->exec_end = exec_end;
  }
  return MOTE_OK;
}

// One relocation table (REL or RELA) inside the image.
struct Table {
  uint64_t vaddr = 0, size = 0, entry = 0;
  bool present = false;
};

mote_status relocate(const Elf &elf, uint8_t *image, const Table &table, bool has_addend) {
  unsigned word = elf.word;
  uint64_t expected = has_addend ? 3 * word : 2 * word;
  if (!table.present)
    return table.size == 0 ? MOTE_OK : MOTE_CODE_MALFORMED;
  if ((table.entry != 0 && table.entry != expected) || table.size % expected != 0 ||
      !fits(table.vaddr, table.size, elf.image_size))
    return MOTE_CODE_MALFORMED;
  uintptr_t base = reinterpret_cast<uintptr_t>(image);
  for (uint64_t at = table.vaddr; at < table.vaddr + table.size; at += expected) {
    uint64_t offset = load(image + at, word);
    uint64_t info = load(image + at + word, word);
    uint32_t type = word == 8 ? uint32_t(info) : uint32_t(info & 0xff);
    uint64_t symbol = word == 8 ? info >> 32 : info >> 8;
    RelocationKind kind = elf.arch->classify(type);
    if (kind == RelocationKind::None)
      continue;
    if (kind == RelocationKind::Import || symbol != 0)
      return MOTE_CODE_IMPORTS; // resolving a symbol needs someone else's code
    if (kind != RelocationKind::Relative || !fits(offset, word, elf.image_size))
      return MOTE_CODE_RELOCATION;
    uint64_t addend = has_addend ? load(image + at + 2 * word, word) : load(image + offset, word);
    if (word == 4)
      addend = uint32_t(addend);
    // A relative relocation points into the image (one past the end at most).
    if (addend > elf.image_size)
      return MOTE_CODE_RELOCATION;
    store(image + offset, word, uint64_t(base) + addend);
  }
  return MOTE_OK;
}

mote_status apply_dynamic(const Elf &elf, uint8_t *image) {
  if (!elf.has_dynamic)
    return MOTE_OK; // nothing to relocate
  Table rela, rel;
  uint64_t entry = 2 * uint64_t(elf.word);
  for (uint64_t at = elf.dynamic_vaddr; at + entry <= elf.dynamic_vaddr + elf.dynamic_size;
       at += entry) {
    uint64_t tag = load(image + at, elf.word);
    uint64_t value = load(image + at + elf.word, elf.word);
    if (tag == kDtNull)
      break;
    switch (tag) {
    case kDtNeeded:
    case kDtJmpRel:
      return MOTE_CODE_IMPORTS;
    case kDtPltRelSize:
      if (value != 0)
        return MOTE_CODE_IMPORTS;
      break;
    case kDtRela:
      rela.vaddr = value;
      rela.present = true;
      break;
    case kDtRelaSize:
      rela.size = value;
      break;
    case kDtRelaEnt:
      rela.entry = value;
      break;
    case kDtRel:
      rel.vaddr = value;
      rel.present = true;
      break;
    case kDtRelSize:
      rel.size = value;
      break;
    case kDtRelEnt:
      rel.entry = value;
      break;
    case kDtRelr:
    case kDtRelrSize:
      return MOTE_CODE_RELOCATION; // packed relocations: not produced by motec
    case kDtInit:
    case kDtFini:
    case kDtInitArray:
    case kDtFiniArray:
    case kDtPreinitArray:
      return MOTE_CODE_MALFORMED; // code that expects constructors to run
    default:
      break; // symbol and hash tables, flags: not needed
    }
  }
  if (mote_status status = relocate(elf, image, rela, true))
    return status;
  return relocate(elf, image, rel, false);
}

} // namespace
} // namespace mote::elf

extern "C" mote_status mote_code_inspect(const uint8_t *elf, size_t size, mote_code_layout *out) {
  mote::elf::Elf parsed;
  if (out == nullptr)
    return MOTE_INVALID_ARGUMENT;
  return mote::elf::parse(elf, size, &parsed, out);
}

extern "C" mote_status mote_code_load(const uint8_t *elf, size_t size, uint16_t expected_machine,
                                      void *memory, size_t memory_size) {
  using namespace mote::elf;
  Elf parsed;
  mote_code_layout layout;
  if (mote_status status = parse(elf, size, &parsed, &layout))
    return status;
  if (expected_machine != 0 && layout.machine != expected_machine)
    return MOTE_CODE_MALFORMED;
  if (memory == nullptr)
    return MOTE_INVALID_ARGUMENT;
  if (memory_size < parsed.image_size)
    return MOTE_BUFFER_TOO_SMALL;
  if ((reinterpret_cast<uintptr_t>(memory) & (parsed.alignment - 1)) != 0)
    return MOTE_MISALIGNED;
  uint8_t *image = static_cast<uint8_t *>(memory);
  memset(image, 0, size_t(parsed.image_size));
  for (uint16_t i = 0; i < parsed.phnum; ++i) {
    Segment s = segment(parsed, i);
    if (s.type == kPtLoad && s.filesz != 0)
      memcpy(image + s.vaddr, elf + s.offset, size_t(s.filesz));
  }
  return apply_dynamic(parsed, image);
}
