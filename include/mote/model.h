/*===- mote/model.h - A runnable model: descriptor plus entry function -------===
 *
 * A mote_model is what the runtime runs, whichever way the code arrived:
 * statically linked (the generated header's <name>_model and <name>_entry)
 * or placed in memory by the package loader. It is two pointers into code
 * and constants owned by someone else; it must not outlive them.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_MODEL_H
#define MOTE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "mote/abi.h"
#include "mote/config.h"
#include "mote/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mote_model {
  const mote_model_desc *desc;
  mote_entry_fn entry;
  /* The weights the code reads in place (desc->weights_size bytes), when it
   * keeps them outside itself: set by the package loader or
   * mote_model_set_weights; NULL otherwise. */
  const void *weights;
} mote_model;

/* One argument or result, decoded from the descriptor. The pointers point
 * into the descriptor and live as long as it does. */
typedef struct mote_tensor_info {
  const char *name;              /* NUL-terminated */
  uint32_t element_type;         /* mote_element_type */
  uint32_t rank;                 /* at most MOTE_MAX_RANK */
  const int64_t *dims;           /* rank entries, logical (row-major) order */
  const uint8_t *minor_to_major; /* rank entries: the compiled layout */
  uint64_t element_count;        /* product of dims */
  uint64_t byte_size;            /* element_count * element size */
} mote_tensor_info;

/* Verifies a descriptor as hostile input: `desc` must be 8-byte aligned and
 * have `available_size` readable bytes (pass total_size when the descriptor
 * is trusted to be that long, e.g. one linked into the program). Checks the
 * magic and total_size (MOTE_BAD_DESCRIPTOR), the ABI version
 * (MOTE_ABI_MISMATCH), then that every offset and array lies inside
 * total_size, every string ends inside it, every element type is known,
 * rank <= MOTE_MAX_RANK, each layout is a permutation, dims are
 * non-negative, byte_size = element size * product(dims) without overflow,
 * and scratch_alignment is a power of two (MOTE_BAD_DESCRIPTOR). Reads
 * nothing outside [desc, desc + min(total_size, available_size)). */
mote_status mote_model_desc_verify(const mote_model_desc *desc, size_t available_size);

/* Verifies `desc` (as mote_model_desc_verify with total_size bytes: the
 * header is read first, and only when it is in bounds the rest) and fills
 * `out_model`. MOTE_INVALID_ARGUMENT for null pointers. `desc` and the code
 * behind `entry` must outlive `out_model`. */
mote_status mote_model_init(const mote_model_desc *desc, mote_entry_fn entry,
                            mote_model *out_model);

/* Hands `model` the weights it reads in place: `size` bytes (at least the
 * descriptor's weights_size) aligned to its weights_alignment, read-only
 * (a mapped file or flash will do). MOTE_BUFFER_TOO_SMALL, MOTE_MISALIGNED,
 * MOTE_INVALID_ARGUMENT for null pointers. `weights` must outlive every run. */
mote_status mote_model_set_weights(mote_model *model, const void *weights, uint64_t size);

/* Bytes of weights the model reads outside its code (0: none), and the
 * alignment they need. */
uint64_t mote_model_weights_size(const mote_model *model);
uint32_t mote_model_weights_alignment(const mote_model *model);

/* Aliased pairs (input_output_alias): result leaf `*out_result` is argument
 * leaf `*out_arg` updated in place; `*out_must` is 1 for must-alias. */
uint32_t mote_model_alias_count(const mote_model *model);
mote_status mote_model_alias(const mote_model *model, uint32_t index, uint32_t *out_result,
                             uint32_t *out_arg, int *out_must);

/* The model's name, target triple and required CPU features ("" when the
 * model is not initialized); they live as long as the descriptor. */
const char *mote_model_name(const mote_model *model);
const char *mote_model_triple(const mote_model *model);
const char *mote_model_cpu_features(const mote_model *model);

/* Counts of flattened arguments and results (0 for a null model). */
uint32_t mote_model_arg_count(const mote_model *model);
uint32_t mote_model_result_count(const mote_model *model);

/* Scratch bytes and alignment a run needs. */
uint64_t mote_model_scratch_size(const mote_model *model);
uint32_t mote_model_scratch_alignment(const mote_model *model);

/* Describes argument / result `index` in `out_info` (MOTE_INVALID_ARGUMENT
 * when out of range). */
mote_status mote_model_arg_info(const mote_model *model, uint32_t index,
                                mote_tensor_info *out_info);
mote_status mote_model_result_info(const mote_model *model, uint32_t index,
                                   mote_tensor_info *out_info);

/* Runs the model once on buffers already in the compiled layouts (use a
 * mote_session to start from row-major host data). `args` holds arg_count
 * pointers, `results` result_count pointers (a null entry is allowed only
 * for a zero-byte tensor); `scratch` holds `scratch_size` bytes aligned to
 * the model's scratch alignment. An aliased result is updated in place: give
 * it the argument's buffer; a different buffer first receives a copy of the
 * argument (which stays unchanged). MOTE_INVALID_ARGUMENT for null pointers
 * or an aliased pair whose buffers partly overlap, MOTE_BUFFER_TOO_SMALL /
 * MOTE_MISALIGNED for scratch, MOTE_WEIGHTS_MISSING when the model reads
 * weights it was not given, MOTE_MODEL_FAILED when the entry function
 * returns non-zero. `env` may be null. Every pointer is used only during
 * the call. */
mote_status mote_model_run(const mote_model *model, const void *const *args, void *const *results,
                           void *scratch, size_t scratch_size, const mote_env *env);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_MODEL_H */
