//===- elf_arch.h - What varies per architecture in the code loader -------===//
//
// The architecture-neutral loader (elf_loader.cc) asks each architecture two
// things: is this (machine, class) yours, and what does relocation type T
// do. The compiler links code objects so that only "relative" relocations
// remain (the word at offset becomes image base + addend), so each
// architecture file is a few lines.
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_RUNTIME_PACKAGE_ELF_ARCH_H
#define MOTE_RUNTIME_PACKAGE_ELF_ARCH_H

#include <stdint.h>

namespace mote::elf {

enum class RelocationKind {
  None,        ///< nothing to do
  Relative,    ///< word (the class's size) = base + addend
  Import,      ///< needs a symbol from outside (PLT slot, GOT entry, copy)
  Unsupported, ///< anything else
};

struct Arch {
  uint16_t machine;
  uint8_t elf_class; ///< 1: ELF32, 2: ELF64
  RelocationKind (*classify)(uint32_t type);
};

const Arch *find_arch_x86_64(uint16_t machine, uint8_t elf_class);
const Arch *find_arch_aarch64(uint16_t machine, uint8_t elf_class);
const Arch *find_arch_riscv(uint16_t machine, uint8_t elf_class);
const Arch *find_arch_arm(uint16_t machine, uint8_t elf_class);

/// The architecture for (machine, class), or nullptr.
inline const Arch *find_arch(uint16_t machine, uint8_t elf_class) {
  const Arch *(*const finders[])(uint16_t, uint8_t) = {find_arch_x86_64, find_arch_aarch64,
                                                       find_arch_riscv, find_arch_arm};
  for (auto *find : finders)
    if (const Arch *arch = find(machine, elf_class))
      return arch;
  return nullptr;
}

} // namespace mote::elf

#endif // MOTE_RUNTIME_PACKAGE_ELF_ARCH_H
