//===- elf_arch_aarch64.cc - AArch64 relocations the code loader accepts --===//
#include "elf_arch.h"

namespace mote::elf {
namespace {

RelocationKind classify(uint32_t type) {
  switch (type) {
  case 0: // R_AARCH64_NONE
    return RelocationKind::None;
  case 1027: // R_AARCH64_RELATIVE
    return RelocationKind::Relative;
  case 1024: // R_AARCH64_COPY
  case 1025: // R_AARCH64_GLOB_DAT
  case 1026: // R_AARCH64_JUMP_SLOT
    return RelocationKind::Import;
  default:
    return RelocationKind::Unsupported;
  }
}

constexpr Arch kArch = {183, 2, classify};

} // namespace

const Arch *find_arch_aarch64(uint16_t machine, uint8_t elf_class) {
  return machine == kArch.machine && elf_class == kArch.elf_class ? &kArch : nullptr;
}

} // namespace mote::elf
