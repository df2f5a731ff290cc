/*===- mote/session.h - Bind host data, run, read results -------------------===
 *
 * A session runs one model through one TransferManager, starting from
 * row-major host data. It takes everything it needs from an arena at init
 * (a small table per argument and result, plus the device scratch) and
 * nothing afterwards, so a statically linked model runs in a few lines:
 *
 *   static uint8_t memory[4096] __attribute__((aligned(16)));
 *   mote_arena arena;           mote_arena_init(&arena, memory, sizeof memory);
 *   mote_direct_transfer dt;    mote_transfer_manager tm;
 *   mote_direct_transfer_init(&dt, &arena, 16, &tm);
 *   mote_model model;           mote_model_init(&mlp_model, mlp_entry, &model);
 *   mote_session s;             mote_session_init(&s, &model, &tm, NULL, &arena);
 *   mote_session_set_input(&s, 0, x, sizeof x);
 *   mote_session_set_output(&s, 0, y, sizeof y);
 *   mote_session_run(&s);       // y now holds the result, row-major
 *
 * Inputs and outputs whose compiled layout is row-major and whose host
 * memory the port can reach are used in place (zero-copy); the rest go
 * through device buffers that are allocated once per slot and reused.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_SESSION_H
#define MOTE_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "mote/arena.h"
#include "mote/model.h"
#include "mote/status.h"
#include "mote/transfer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One argument or result of a session; the fields are the runtime's. */
#define MOTE_SLOT_BOUND 1u     /* set_input / set_output succeeded */
#define MOTE_SLOT_ZERO_COPY 2u /* bound was imported from host memory */
typedef struct mote_session_slot {
  mote_device_buffer bound; /* what the model sees */
  mote_device_buffer owned; /* device buffer allocated for this slot, reused */
  void *host;               /* where run() writes a result (row-major); an argument's
                               caller memory, which an in-place result writes over */
  uint32_t flags;           /* MOTE_SLOT_* bits */
} mote_session_slot;

typedef struct mote_session {
  const mote_model *model;
  const mote_transfer_manager *transfer;
  const mote_env *env;
  mote_arena *arena;
  mote_session_slot *args;     /* arg_count slots, from the arena */
  mote_session_slot *results;  /* result_count slots, from the arena */
  mote_device_buffer *buffers; /* arg_count + result_count handles for execute */
  void **address_table;        /* arg_count + result_count pointers for execute */
  mote_device_buffer scratch;
  uint32_t alias_copies; /* aliased arguments the last run copied (not in place) */
} mote_session;

/* Prepares `out_session` to run `model` through `transfer`, carving its
 * slot tables from `arena` and the scratch from the transfer manager.
 * MOTE_INVALID_ARGUMENT for null pointers or an uninitialized model,
 * MOTE_BUFFER_TOO_SMALL when memory runs out. `model`, `transfer`, `env`
 * (may be null) and `arena` must outlive the session. */
mote_status mote_session_init(mote_session *out_session, const mote_model *model,
                              const mote_transfer_manager *transfer, const mote_env *env,
                              mote_arena *arena);

/* Arena bytes mote_session_init takes for `model`'s tables, padding
 * included. With mote_direct_transfer over the same arena, device memory
 * (scratch, and tensors that cannot be used in place) comes on top. */
size_t mote_session_table_size(const mote_model *model);

/* Arena bytes that always suffice for a session over mote_direct_transfer
 * whose alignment is at most `alignment`: the tables, the scratch, and a
 * device buffer for every argument and result (as if none could be used in
 * place). A macro so C code can size a static array with it:
 * `tensor_count` arguments and results of `tensor_bytes` bytes in all, and
 * the model's scratch size and alignment. */
#define MOTE_SESSION_ARENA_BYTES(tensor_count, tensor_bytes, scratch_size, scratch_alignment,      \
                                 alignment)                                                        \
  ((tensor_count) *                                                                                \
       (sizeof(mote_session_slot) + sizeof(mote_device_buffer) + sizeof(void *) + (alignment)) +   \
   3 * 7 + (tensor_bytes) + (scratch_size) + (scratch_alignment) + (alignment))

/* MOTE_SESSION_ARENA_BYTES for `model` (0 for a null model). */
size_t mote_session_arena_size(const mote_model *model, size_t alignment);

/* Binds argument `index` to row-major host data (`host_size` bytes, at least
 * the tensor's byte size, else MOTE_BUFFER_TOO_SMALL). When the port can use
 * it in place it does; otherwise the data is copied (relayouted) into a
 * device buffer now. In the in-place case `host` must stay valid and
 * unchanged until the last run using it returns. */
mote_status mote_session_set_input(mote_session *session, uint32_t index, const void *host,
                                   size_t host_size);

/* Says where run() leaves result `index`, row-major (`host_size` bytes, at
 * least the tensor's byte size). The model may write `host` in place; it
 * must stay valid until the last run using it returns and must not overlap
 * any input. */
mote_status mote_session_set_output(mote_session *session, uint32_t index, void *host,
                                    size_t host_size);

/* Donates an argument's memory to its aliased result (input_output_alias):
 * result `index` is written over the memory argument `arg` was bound to
 * (mote_session_set_input, which must come first), in place, so a decode
 * step's KV cache or a training step's parameters are updated without a
 * second copy. Allowed for may-alias and must-alias pairs alike; the caller's
 * argument memory then holds the result after each run. MOTE_INVALID_ARGUMENT
 * when `index` is not an aliased result or its argument is not bound. */
mote_status mote_session_set_output_in_place(mote_session *session, uint32_t index);

/* Runs the model and copies every result to its host memory. An aliased
 * result bound elsewhere than its argument first gets a copy of the argument
 * (mote_session_alias_copies counts them; for must-alias pairs the exporter
 * meant one buffer). MOTE_INVALID_ARGUMENT when an input or output is not
 * bound. */
mote_status mote_session_run(mote_session *session);

/* How many aliased arguments the last run copied instead of updating in
 * place (0 when every aliased result shared its argument's memory). */
uint32_t mote_session_alias_copies(const mote_session *session);

/* The device buffer argument / result `index` is bound to (handle 0 when
 * unbound); with mote_direct_transfer the handle is the address the model
 * sees, so a caller can tell whether its memory was used in place. */
mote_status mote_session_arg_buffer(const mote_session *session, uint32_t index,
                                    mote_device_buffer *out_buffer);
mote_status mote_session_result_buffer(const mote_session *session, uint32_t index,
                                       mote_device_buffer *out_buffer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_SESSION_H */
