/*===- mote/abi.h - The contract between generated code and the runtime ---===
 *
 * Plain C, no includes beyond <stdint.h>: the compiler emits exactly what this
 * header declares, and the runtime (and any C or C++ caller) reads it. A change
 * to any struct below changes MOTE_ABI_VERSION.
 *
 * Descriptors use offsets relative to the start of the model descriptor
 * instead of pointers, so a descriptor needs no relocation wherever the code
 * object is placed (flash, a package loaded at run time, a static link).
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_ABI_H
#define MOTE_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MOTE_ABI_VERSION 2u
/* "MOTE" read as a little-endian uint32. */
#define MOTE_MODEL_MAGIC 0x45544f4du

/* Element types, numbered as stable wire values (never renumber; new types
 * take new numbers, so older descriptors keep their meaning). Complex types
 * are (real, imaginary) pairs of f32 or f64. The sub-byte integers take one
 * byte per element, holding the value sign-extended (s2, s4) or
 * zero-extended (u2, u4). */
typedef enum mote_element_type {
  MOTE_PRED = 1,
  MOTE_S8 = 2,
  MOTE_S16 = 3,
  MOTE_S32 = 4,
  MOTE_S64 = 5,
  MOTE_U8 = 6,
  MOTE_U16 = 7,
  MOTE_U32 = 8,
  MOTE_U64 = 9,
  MOTE_F16 = 10,
  MOTE_BF16 = 11,
  MOTE_F32 = 12,
  MOTE_F64 = 13,
  MOTE_C64 = 14,
  MOTE_C128 = 15,
  MOTE_S4 = 16,
  MOTE_U4 = 17,
  MOTE_S2 = 18,
  MOTE_U2 = 19,
} mote_element_type;

/* Runs body(context, i) for i in [0, count), possibly in parallel, and returns
 * when all calls have returned. Generated code never assumes parallelism. */
typedef void (*mote_task_fn)(void *context, int64_t index);

/* Services the port provides to generated code. Every field may be null:
 * generated code then runs the work itself, sequentially. */
typedef struct mote_env {
  void *user;
  void (*parallel_for)(void *user, mote_task_fn body, void *context, int64_t count);
} mote_env;

/* One call of a model's entry function. Buffers are caller-owned: arguments
 * and results in the compiled layouts, scratch of at least scratch_size bytes
 * aligned to scratch_alignment (see mote_model_desc). Result buffers must not
 * overlap argument buffers or scratch: the code may write a result before it
 * has read the last argument. An aliased pair (mote_alias_desc) is the
 * exception: the code reads that argument from the result's buffer and
 * updates it there, so the result buffer must hold the argument's value when
 * the call starts (the same buffer, or a copy), and args[arg] is not read. */
typedef struct mote_call {
  /* One pointer per array leaf of the entry parameters, in flattened order
   * (a tuple parameter contributes one pointer per leaf). */
  const void *const *args;
  /* One pointer per array leaf of the entry result, in flattened order. */
  void *const *results;
  void *scratch;
  const mote_env *env;
  /* The model's weights when its descriptor has weights_size > 0: that many
   * read-only bytes aligned to weights_alignment (a package's, used in place
   * from the mapped file); NULL for code that carries its constants. */
  const void *weights;
} mote_call;

/* Status codes the entry function returns. */
#define MOTE_CALL_OK 0

/* Returns MOTE_CALL_OK on success. */
typedef int32_t (*mote_entry_fn)(const mote_call *call);

/* An argument or result tensor. Offsets are from the model descriptor's start. */
typedef struct mote_tensor_desc {
  uint32_t name_offset;   /* NUL-terminated UTF-8 */
  uint32_t dims_offset;   /* int64_t[rank] */
  uint32_t layout_offset; /* uint8_t[rank], dimensions minor to major */
  uint8_t element_type;   /* mote_element_type */
  uint8_t rank;
  uint16_t reserved;
  uint64_t byte_size;
} mote_tensor_desc;

/* input_output_alias: result leaf `result` is argument leaf `arg` updated
 * in place (a decode step's KV cache, a training step's parameters). Both
 * have the same byte size. */
#define MOTE_ALIAS_MUST 1u /* must-alias: the exporter requires one buffer */
typedef struct mote_alias_desc {
  uint32_t result;
  uint32_t arg;
  uint32_t flags; /* MOTE_ALIAS_* */
} mote_alias_desc;

typedef struct mote_model_desc {
  uint32_t magic;       /* MOTE_MODEL_MAGIC */
  uint32_t abi_version; /* MOTE_ABI_VERSION */
  uint32_t total_size;  /* bytes of the descriptor including everything it points at */
  uint32_t name_offset;
  uint32_t triple_offset;       /* e.g. "aarch64-linux-gnu" */
  uint32_t cpu_features_offset; /* e.g. "+neon,+fp-armv8", may be empty */
  uint32_t arg_count;
  uint32_t result_count;
  uint32_t args_offset;    /* mote_tensor_desc[arg_count] */
  uint32_t results_offset; /* mote_tensor_desc[result_count] */
  uint64_t scratch_size;
  uint32_t scratch_alignment;
  uint32_t alias_count;
  uint64_t weights_size;      /* bytes behind mote_call.weights (0: none) */
  uint32_t weights_alignment; /* a power of two when weights_size > 0 */
  uint32_t aliases_offset;    /* mote_alias_desc[alias_count] */
} mote_model_desc;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_ABI_H */
