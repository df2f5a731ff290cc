//===- elf_arch_x86_64.cc - x86-64 relocations the code loader accepts ----===//
#include "elf_arch.h"

namespace mote::elf {
namespace {

RelocationKind classify(uint32_t type) {
  switch (type) {
  case 0: // R_X86_64_NONE
    return RelocationKind::None;
  case 8: // R_X86_64_RELATIVE
    return RelocationKind::Relative;
  case 5: // R_X86_64_COPY
  case 6: // R_X86_64_GLOB_DAT
  case 7: // R_X86_64_JUMP_SLOT
    return RelocationKind::Import;
  default:
    return RelocationKind::Unsupported;
  }
}

constexpr Arch kArch = {62, 2, classify};

} // namespace

const Arch *find_arch_x86_64(uint16_t machine, uint8_t elf_class) {
  return machine == kArch.machine && elf_class == kArch.elf_class ? &kArch : nullptr;
}

} // namespace mote::elf
