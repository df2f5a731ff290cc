/*===- mote/code_loader.h - Place a code object (ELF) in caller memory ----===
 *
 * The loader below mote_package_load, usable on its own. A code object is a
 * position-independent ELF shared object with no imports: PT_LOAD segments,
 * a PT_DYNAMIC table, and relative relocations only. The loader verifies the
 * header, program headers, dynamic table and every relocation against the
 * image bounds, copies the segments into memory the caller provides and
 * relocates them there, without the system's dynamic loader. It allocates
 * nothing and runs nothing.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_CODE_LOADER_H
#define MOTE_CODE_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "mote/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ELF e_machine values the loader knows (the per-architecture files). */
#define MOTE_ELF_MACHINE_ARM 40u
#define MOTE_ELF_MACHINE_X86_64 62u
#define MOTE_ELF_MACHINE_AARCH64 183u
#define MOTE_ELF_MACHINE_RISCV 243u

/* What a code object needs and offers, from its headers. */
typedef struct mote_code_layout {
  uint64_t image_size;      /* bytes of memory the image spans */
  uint64_t image_alignment; /* the largest PT_LOAD alignment (at least 16) */
  uint16_t machine;         /* e_machine */
  uint8_t elf_class;        /* 1: ELF32, 2: ELF64 */
  uint64_t exec_begin;      /* image addresses spanned by executable segments */
  uint64_t exec_end;
} mote_code_layout;

/* Verifies the ELF header and program headers of `elf` (`size` bytes, any
 * alignment) and fills `out`. MOTE_CODE_MALFORMED on anything unexpected. */
mote_status mote_code_inspect(const uint8_t *elf, size_t size, mote_code_layout *out);

/* Verifies and loads `elf` into `memory` (`memory_size` bytes, aligned to
 * the layout's image_alignment): copies the segments, zeroes the gaps and
 * bss, rejects NEEDED entries, PLT relocations and symbol references
 * (MOTE_CODE_IMPORTS) and relocations of other kinds or outside the image
 * (MOTE_CODE_RELOCATION), then applies the relative relocations. When
 * `expected_machine` is non-zero the ELF must be for that machine. On
 * failure `memory` holds garbage that must not run. `elf` is read only
 * during the call. */
mote_status mote_code_load(const uint8_t *elf, size_t size, uint16_t expected_machine, void *memory,
                           size_t memory_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_CODE_LOADER_H */
