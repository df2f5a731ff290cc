/*===- mote/package.h - Open, verify and load .mote packages ---------------===
 *
 * A package is a model compiled for one or more targets: its signature, its
 * memory plan, and one code object (position-independent machine code) per
 * triple + CPU features, sealed by a SHA-256 digest. The runtime treats it as
 * hostile: mote_package_open checks the header, the digest over every byte it
 * will trust, and the whole flatbuffer before returning; mote_package_load
 * checks the code object's ELF structure and every relocation before it
 * writes a byte of code. Nothing here allocates or copies the package.
 *
 * Typical use:
 *   mote_package package;
 *   mote_package_open(bytes, size, &package);
 *   uint32_t code;
 *   mote_package_select(&package, "aarch64-linux-gnu", NULL, &code);
 *   size_t need, align;
 *   mote_package_code_memory(&package, code, &need, &align);
 *   ... get `need` bytes aligned to `align` ...
 *   mote_model model;
 *   mote_package_load(&package, code, memory, need, make_executable, NULL, &model);
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_PACKAGE_H
#define MOTE_PACKAGE_H

#include <stddef.h>
#include <stdint.h>

#include "mote/model.h"
#include "mote/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The package format versions this runtime reads (the header's and the
 * flatbuffer's format_version): 1, and 2, which adds constant blobs (a
 * runtime that reads only 1 refuses a package whose code needs its blob
 * copied in, instead of running it on zeros). */
#define MOTE_PACKAGE_FORMAT_VERSION 2u
#define MOTE_PACKAGE_FORMAT_VERSION_OLDEST 1u
/* Tensors of higher rank are rejected as MOTE_PACKAGE_MALFORMED. */
#define MOTE_PACKAGE_MAX_RANK 16u

/* An opened, verified package: a view of the caller's bytes. Plain data so C
 * callers can hold it by value; the fields are the runtime's business. */
typedef struct mote_package {
  const uint8_t *buffer; /* the flatbuffer (after the package header) */
  uint32_t buffer_size;
  uint32_t root; /* position of the root table in buffer */
} mote_package;

/* One argument or result as the package describes it. */
typedef struct mote_package_tensor {
  const char *name;     /* points into the package bytes */
  uint8_t element_type; /* mote_element_type */
  uint8_t rank;
  uint8_t layout[MOTE_PACKAGE_MAX_RANK]; /* minor to major */
  int64_t dims[MOTE_PACKAGE_MAX_RANK];
  uint64_t byte_size;
} mote_package_tensor;

/* One code object. The strings and the ELF bytes point into the package. */
typedef struct mote_package_code {
  const char *triple;
  const char *cpu;
  const char *features; /* "+a,+b": what the code needs from the CPU */
  const uint8_t *elf;
  uint32_t elf_size;
  uint64_t descriptor_offset; /* image address of the model descriptor */
  uint64_t entry_offset;      /* image address of the entry function */
} mote_package_code;

/* Makes `size` bytes at `memory` (the loaded image) executable and
 * coherent with the instruction stream; a bare-metal port with unified
 * memory and no MPU does nothing. Returns MOTE_OK or MOTE_UNSUPPORTED. */
typedef mote_status (*mote_make_executable_fn)(void *user, void *memory, size_t size);

/* Verifies `size` bytes at `bytes` as a package: header magic and size
 * (MOTE_PACKAGE_MALFORMED, MOTE_PACKAGE_TRUNCATED), format version
 * (MOTE_PACKAGE_VERSION), digest (MOTE_PACKAGE_DIGEST), then every table,
 * offset, vector and string (MOTE_PACKAGE_MALFORMED). `bytes` needs no
 * particular alignment, is never written, and must outlive `out` and
 * everything queried from it. */
mote_status mote_package_open(const void *bytes, size_t size, mote_package *out);

/* The model's name (NUL-terminated, inside the package bytes). */
const char *mote_package_name(const mote_package *package);

/* Counts of flattened arguments and results. */
mote_status mote_package_signature(const mote_package *package, uint32_t *out_arg_count,
                                   uint32_t *out_result_count);

/* Argument (is_result = 0) or result `index`, copied into `out` except for
 * the name, which lives as long as the package bytes. */
mote_status mote_package_tensor_info(const mote_package *package, int is_result, uint32_t index,
                                     mote_package_tensor *out);

/* The scratch arena a run needs. */
mote_status mote_package_memory_plan(const mote_package *package, uint64_t *out_scratch_size,
                                     uint32_t *out_scratch_alignment);

uint32_t mote_package_code_count(const mote_package *package);

/* Code object `index`; pointers live as long as the package bytes. */
mote_status mote_package_code_info(const mote_package *package, uint32_t index,
                                   mote_package_code *out);

/* Picks the code object for `triple` whose required features ("+x" items)
 * all appear in `features` (comma-separated "+x,+y", the machine's), the one
 * needing most features when several fit: packages carry a code object per
 * feature level, each level's features a superset of the one below. With
 * `features` NULL (a caller that cannot probe the CPU, such as firmware that
 * knows its board by triple alone), the one needing fewest: the triple's
 * baseline. MOTE_NO_MATCHING_CODE when none fits. Pointers are read only
 * during the call. */
mote_status mote_package_select(const mote_package *package, const char *triple,
                                const char *features, uint32_t *out_index);

/* Bytes and alignment of the memory code object `index` loads into, after
 * checking its ELF header and segments (MOTE_CODE_MALFORMED). */
mote_status mote_package_code_memory(const mote_package *package, uint32_t index, size_t *out_size,
                                     size_t *out_alignment);

/* Loads code object `index` into `memory` (`memory_size` bytes, aligned as
 * mote_package_code_memory says): verifies the ELF, copies its segments,
 * zeroes the rest, applies its relocations, calls `make_executable` (may be
 * NULL when memory is already executable) and fills `out` with the
 * descriptor and entry inside `memory`. Nothing from the package is run or
 * trusted before every check passes; the descriptor is then verified with
 * mote_model_desc_verify (mote/model.h) inside the image, and must name
 * the code object's triple and the package's argument and result counts
 * (else MOTE_CODE_MALFORMED). `memory` must stay valid (and must not be
 * written) for as long as `out` is used; the package bytes may go after the call. */
mote_status mote_package_load(const mote_package *package, uint32_t index, void *memory,
                              size_t memory_size, mote_make_executable_fn make_executable,
                              void *user, mote_model *out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_PACKAGE_H */
