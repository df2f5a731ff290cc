/*===- python/native/mote_python.c - The C runtime for the mote package ----===
 *
 * What Python calls through ctypes (python/mote/_runtime.py): a package from
 * bytes, loaded with its code for this machine (mote_package_load_bytes),
 * and a session in memory of its own that binds row-major NumPy buffers,
 * runs, and leaves row-major results. Host side only, so it allocates with
 * malloc; the runtime underneath allocates nothing.
 *
 *===----------------------------------------------------------------------===*/
#include <stdlib.h>
#include <string.h>

#include "mote/machine.h"
#include "mote/mote.h"
#include "mote_host.h"

typedef struct mote_py_model {
  void *bytes; /* a copy of the package: the model reads names and weights from it */
  mote_host_package package;
  void *memory; /* the session's arena */
  mote_arena arena;
  mote_direct_transfer direct;
  mote_transfer_manager transfer;
  mote_session session;
} mote_py_model;

void mote_py_free(mote_py_model *model) {
  if (!model)
    return;
  mote_package_unload(&model->package);
  free(model->memory);
  free(model->bytes);
  free(model);
}

/* Loads `size` bytes of package for this machine into `*out`. */
int32_t mote_py_load(const void *bytes, size_t size, mote_py_model **out) {
  if (!bytes || !out)
    return MOTE_INVALID_ARGUMENT;
  *out = NULL;
  mote_py_model *model = calloc(1, sizeof *model);
  if (!model)
    return MOTE_BUFFER_TOO_SMALL;
  model->bytes = malloc(size ? size : 1);
  if (!model->bytes) {
    mote_py_free(model);
    return MOTE_BUFFER_TOO_SMALL;
  }
  memcpy(model->bytes, bytes, size);
  mote_status status = mote_package_load_bytes(model->bytes, size, &model->package);
  size_t arena_size = model->package.loaded.arena_size;
  if (status == MOTE_OK) {
    model->memory = aligned_alloc(16, (arena_size + 15) / 16 * 16);
    status = model->memory ? MOTE_OK : MOTE_BUFFER_TOO_SMALL;
  }
  if (status == MOTE_OK) {
    mote_arena_init(&model->arena, model->memory, arena_size);
    status = mote_host_transfer_init(&model->direct, &model->arena, &model->transfer);
  }
  if (status == MOTE_OK)
    status = mote_session_init(&model->session, &model->package.loaded.model, &model->transfer,
                               NULL, &model->arena);
  if (status != MOTE_OK) {
    mote_py_free(model);
    return status;
  }
  *out = model;
  return MOTE_OK;
}

uint32_t mote_py_count(const mote_py_model *model, int is_result) {
  const mote_model *m = &model->package.loaded.model;
  return is_result ? mote_model_result_count(m) : mote_model_arg_count(m);
}

/* Argument or result `index`: name, element type, rank and dims (up to
 * MOTE_MAX_RANK), byte size. */
int32_t mote_py_tensor(const mote_py_model *model, int is_result, uint32_t index, const char **name,
                       uint32_t *element_type, uint32_t *rank, int64_t *dims, uint64_t *byte_size) {
  mote_tensor_info info;
  const mote_model *m = &model->package.loaded.model;
  mote_status status =
      is_result ? mote_model_result_info(m, index, &info) : mote_model_arg_info(m, index, &info);
  if (status != MOTE_OK)
    return status;
  *name = info.name;
  *element_type = info.element_type;
  *rank = info.rank;
  for (uint32_t d = 0; d < info.rank; ++d)
    dims[d] = info.dims[d];
  *byte_size = info.byte_size;
  return MOTE_OK;
}

/* Runs once on row-major inputs (each the tensor's byte size), leaving
 * row-major results in `outputs`. */
int32_t mote_py_run(mote_py_model *model, const void *const *inputs, void *const *outputs) {
  uint32_t args = mote_py_count(model, 0), results = mote_py_count(model, 1);
  mote_tensor_info info;
  mote_status status = MOTE_OK;
  for (uint32_t i = 0; status == MOTE_OK && i < args; ++i) {
    status = mote_model_arg_info(&model->package.loaded.model, i, &info);
    if (status == MOTE_OK)
      status = mote_session_set_input(&model->session, i, inputs[i], info.byte_size);
  }
  for (uint32_t i = 0; status == MOTE_OK && i < results; ++i) {
    status = mote_model_result_info(&model->package.loaded.model, i, &info);
    if (status == MOTE_OK)
      status = mote_session_set_output(&model->session, i, outputs[i], info.byte_size);
  }
  return status == MOTE_OK ? mote_session_run(&model->session) : status;
}

const char *mote_py_message(int32_t status) { return mote_status_message(status); }

const char *mote_py_machine_triple(void) { return mote_machine_triple(); }
