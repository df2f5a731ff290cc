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
 * Typical use, on any port (on Linux, mote_package_load_file in the host
 * port's mote_host.h does all of it from a file):
 *   mote_package_requirements need;          // code for this machine, sizes
 *   mote_package_requirements_for(bytes, size, &need);
 *   ... code memory: need.code_size bytes aligned to need.code_alignment ...
 *   mote_loaded_package loaded;
 *   mote_package_load_memory(bytes, size, code, need.code_size,
 *                            mote_port_make_executable, NULL, &loaded);
 *   ... an arena of loaded.arena_size bytes, then a session (mote/session.h)
 *       over loaded.model ...
 *
 * The steps one by one: mote_package_open, mote_package_select (or
 * mote_package_select_for_machine), mote_package_code_memory,
 * mote_package_load.
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

/* The package format version this runtime reads (the header's and the
 * flatbuffer's format_version). */
#define MOTE_PACKAGE_FORMAT_VERSION 1u
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
  uint64_t weights_offset;    /* its range of the package's weights */
  uint64_t weights_size;      /* 0: the code carries its constants */
} mote_package_code;

/* Where a package's weights are: inside it (used in place from the bytes
 * given to mote_package_open), or in a separate file of `size` bytes whose
 * SHA-256 is `digest`; `file` names it as the package was written (relative
 * to the package's folder). size 0: no weights outside the code. */
typedef struct mote_package_weights_info {
  uint64_t size;
  int in_package;
  const char *file;      /* "" when in_package or size 0; in the package bytes */
  const uint8_t *digest; /* 32 bytes in the package bytes, or NULL when size 0 */
} mote_package_weights_info;

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

mote_status mote_package_weights(const mote_package *package, mote_package_weights_info *out);

/* For a package whose weights are in a separate file: hands `model` (loaded
 * from code object `index`) its weights in `bytes`, the whole file, used in
 * place (a read-only mapping will do; at least 16-byte aligned, and a
 * mapping's page alignment gives each weight its own cache lines).
 * MOTE_WEIGHTS_MISMATCH when the size differs, or, with `check_digest`, the
 * SHA-256 (reads every byte once); MOTE_INVALID_ARGUMENT when the package has
 * no weights file. `bytes` must outlive every run of `model`. */
mote_status mote_package_bind_weights(const mote_package *package, uint32_t index,
                                      const void *bytes, uint64_t size, int check_digest,
                                      mote_model *model);

/* Loads code object `index` into `memory` (`memory_size` bytes, aligned as
 * mote_package_code_memory says): verifies the ELF, copies its segments,
 * zeroes the rest, applies its relocations, calls `make_executable` (may be
 * NULL when memory is already executable) and fills `out` with the
 * descriptor and entry inside `memory`. Nothing from the package is run or
 * trusted before every check passes; the descriptor is then verified with
 * mote_model_desc_verify (mote/model.h) inside the image, and must name
 * the code object's triple and the package's argument and result counts
 * (else MOTE_CODE_MALFORMED). `memory` must stay valid (and must not be
 * written) for as long as `out` is used. Weights inside the package are read in
 * place: then the package bytes must outlive `out` too (and be 16-byte
 * aligned, as heap memory and mapped files are: else MOTE_MISALIGNED);
 * otherwise they may go after the call. */
mote_status mote_package_load(const mote_package *package, uint32_t index, void *memory,
                              size_t memory_size, mote_make_executable_fn make_executable,
                              void *user, mote_model *out);

/* Picks the code object for this machine (mote/machine.h): its triple and,
 * where they can be detected, its CPU features. MOTE_NO_MATCHING_CODE when
 * none fits. */
mote_status mote_package_select_for_machine(const mote_package *package, uint32_t *out_index);

/* What loading a package on this machine takes, known before any memory is
 * given: the code object chosen and the memory it loads into. */
typedef struct mote_package_requirements {
  uint32_t code_index;   /* the code object for this machine */
  size_t code_size;      /* bytes of memory to load it into ... */
  size_t code_alignment; /* ... aligned to this */
} mote_package_requirements;

/* Opens `size` bytes at `bytes` as a package (as mote_package_open), picks
 * the code for this machine and says what loading it needs. */
mote_status mote_package_requirements_for(const void *bytes, size_t size,
                                          mote_package_requirements *out);

/* A package whose code for this machine is loaded and ready to run. */
typedef struct mote_loaded_package {
  mote_package package; /* the verified package (a view of the caller's bytes) */
  mote_model model;     /* the model in the loaded code */
  uint32_t code_index;  /* the code object that was loaded */
  size_t arena_size;    /* arena bytes a session over it needs at most
                           (mote_session_arena_size with 16-byte alignment) */
} mote_loaded_package;

/* The one call from bytes to a runnable model: opens and verifies the
 * package, picks the code object for this machine, loads it into
 * `code_memory` (`code_memory_size` bytes, at least what
 * mote_package_requirements_for says, aligned as it says; else
 * MOTE_BUFFER_TOO_SMALL or MOTE_MISALIGNED) and fills `out`, whose
 * arena_size tells the arena to give the session. `make_executable` (may be
 * NULL) and `user` are as for mote_package_load. `bytes` must outlive `out`
 * when the package is queried; `code_memory` for as long as the model runs. */
mote_status mote_package_load_memory(const void *bytes, size_t size, void *code_memory,
                                     size_t code_memory_size,
                                     mote_make_executable_fn make_executable, void *user,
                                     mote_loaded_package *out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_PACKAGE_H */
