//===- elf_arch_riscv.cc - RISC-V (rv32 and rv64) relocations accepted ----===//
//
// Both widths share the relocation numbers; R_RISCV_RELATIVE writes a word
// of the class's size.
//
//===----------------------------------------------------------------------===//
#include "elf_arch.h"

namespace mote::elf {
namespace {

RelocationKind classify(uint32_t type) {
  switch (type) {
  case 0: // R_RISCV_NONE
    return RelocationKind::None;
  case 3: // R_RISCV_RELATIVE
    return RelocationKind::Relative;
  case 4: // R_RISCV_COPY
  case 5: // R_RISCV_JUMP_SLOT
    return RelocationKind::Import;
  default:
    return RelocationKind::Unsupported;
  }
}

constexpr Arch kRiscv32 = {243, 1, classify};
constexpr Arch kRiscv64 = {243, 2, classify};

} // namespace

const Arch *find_arch_riscv(uint16_t machine, uint8_t elf_class) {
  if (machine != 243)
    return nullptr;
  return elf_class == 1 ? &kRiscv32 : elf_class == 2 ? &kRiscv64 : nullptr;
}

} // namespace mote::elf
