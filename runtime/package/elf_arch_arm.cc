//===- elf_arch_arm.cc - Arm (Thumb, Cortex-M) relocations accepted -------===//
//
// Cortex-M code is compiled ROPI, so code and constants reach each other
// PC-relatively and the linker leaves at most R_ARM_RELATIVE (REL form: the
// addend is the word already in place).
//
//===----------------------------------------------------------------------===//
#include "elf_arch.h"

namespace mote::elf {
namespace {

RelocationKind classify(uint32_t type) {
  switch (type) {
  case 0: // R_ARM_NONE
    return RelocationKind::None;
  case 23: // R_ARM_RELATIVE
    return RelocationKind::Relative;
  case 20: // R_ARM_COPY
  case 21: // R_ARM_GLOB_DAT
  case 22: // R_ARM_JUMP_SLOT
    return RelocationKind::Import;
  default:
    return RelocationKind::Unsupported;
  }
}

constexpr Arch kArch = {40, 1, classify};

} // namespace

const Arch *find_arch_arm(uint16_t machine, uint8_t elf_class) {
  return machine == kArch.machine && elf_class == kArch.elf_class ? &kArch : nullptr;
}

} // namespace mote::elf
