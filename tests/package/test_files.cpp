//===- test_files.cpp - ELF lookups for the package tests (host <elf.h>) ---===//
#include "test_files.h"

#include <elf.h>

namespace mote::test {

uint64_t elf64_symbol(const std::vector<uint8_t> &elf, const char *name) {
  Elf64_Ehdr header;
  std::memcpy(&header, elf.data(), sizeof(header));
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    std::memcpy(&section, &elf[header.e_shoff + i * sizeof(section)], sizeof(section));
    if (section.sh_type != SHT_SYMTAB && section.sh_type != SHT_DYNSYM)
      continue;
    Elf64_Shdr strings;
    std::memcpy(&strings, &elf[header.e_shoff + section.sh_link * sizeof(strings)],
                sizeof(strings));
    for (size_t at = 0; at + sizeof(Elf64_Sym) <= section.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol;
      std::memcpy(&symbol, &elf[section.sh_offset + at], sizeof(symbol));
      if (std::strcmp(reinterpret_cast<const char *>(&elf[strings.sh_offset + symbol.st_name]),
                      name) == 0 &&
          symbol.st_shndx != SHN_UNDEF)
        return symbol.st_value;
    }
  }
  return 0;
}

size_t elf64_first_rela(const std::vector<uint8_t> &elf) {
  Elf64_Ehdr header;
  std::memcpy(&header, elf.data(), sizeof(header));
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    std::memcpy(&section, &elf[header.e_shoff + i * sizeof(section)], sizeof(section));
    if (section.sh_type == SHT_RELA && section.sh_size > 0)
      return section.sh_offset;
  }
  return 0;
}

} // namespace mote::test
