//===- relocation_test.cpp - Relative relocations on every architecture ---===//
//
// The same small C file, compiled and linked as a code object for each
// architecture the loader knows (RELA on x86-64, AArch64 and RISC-V, REL with
// the addend in place on Arm), is loaded at two different addresses. Exactly
// the relocated words may differ between the two images, each by the
// distance between the bases and each pointing into its own image.
//
//===----------------------------------------------------------------------===//
#include "mote/code_loader.h"
#include "test_files.h"

#include <doctest/doctest.h>

#include <string>

namespace {

uint64_t word_at(const uint8_t *p, unsigned width) {
  uint64_t value = 0;
  for (unsigned i = 0; i < width; ++i)
    value |= uint64_t(p[i]) << (8 * i);
  return value;
}

struct Case {
  const char *triple;
  uint16_t machine;
  uint8_t elf_class;
};

} // namespace

TEST_CASE("relative relocations apply for every architecture") {
  const Case cases[] = {{"x86_64-linux-gnu", MOTE_ELF_MACHINE_X86_64, 2},
                        {"aarch64-linux-gnu", MOTE_ELF_MACHINE_AARCH64, 2},
                        {"riscv64-linux-gnu", MOTE_ELF_MACHINE_RISCV, 2},
                        {"riscv32-unknown-elf", MOTE_ELF_MACHINE_RISCV, 1},
                        {"thumbv7em-none-eabi", MOTE_ELF_MACHINE_ARM, 1}};
  for (const Case &c : cases) {
    CAPTURE(c.triple);
    std::vector<uint8_t> elf =
        mote::test::read_file(std::string(MOTE_TEST_ELF_DIR) + "/relative-" + c.triple + ".so");
    REQUIRE(!elf.empty());
    mote_code_layout layout;
    REQUIRE(mote_code_inspect(elf.data(), elf.size(), &layout) == MOTE_OK);
    CHECK(layout.machine == c.machine);
    CHECK(layout.elf_class == c.elf_class);
    size_t size = size_t(layout.image_size), alignment = size_t(layout.image_alignment);
    // Two images at bases that differ by a multiple of the alignment.
    std::vector<uint8_t> memory(3 * size + 4 * alignment);
    uintptr_t start = reinterpret_cast<uintptr_t>(memory.data());
    uint8_t *a = memory.data() + (alignment - start % alignment) % alignment;
    uint8_t *b = a + (size + alignment) / alignment * alignment + alignment;
    REQUIRE(mote_code_load(elf.data(), elf.size(), c.machine, a, size) == MOTE_OK);
    REQUIRE(mote_code_load(elf.data(), elf.size(), c.machine, b, size) == MOTE_OK);
    unsigned width = c.elf_class == 2 ? 8 : 4;
    uint64_t base_a = uint64_t(reinterpret_cast<uintptr_t>(a));
    uint64_t base_b = uint64_t(reinterpret_cast<uintptr_t>(b));
    uint64_t mask = width == 8 ? ~uint64_t(0) : 0xffffffffu;
    int relocated = 0;
    for (size_t at = 0; at + width <= size; at += width) {
      uint64_t word_a = word_at(a + at, width), word_b = word_at(b + at, width);
      if (word_a == word_b)
        continue;
      ++relocated;
      CHECK(((word_b - word_a) & mask) == ((base_b - base_a) & mask));
      CHECK(((word_a - base_a) & mask) < size);
    }
    CHECK(relocated >= 4); // the four table entries, plus any GOT slot
    CHECK(mote_code_load(elf.data(), elf.size(), c.machine, a, size - 1) == MOTE_BUFFER_TOO_SMALL);
    CHECK(mote_code_load(elf.data(), elf.size(), c.machine, a + 1, size) == MOTE_MISALIGNED);
  }
}
