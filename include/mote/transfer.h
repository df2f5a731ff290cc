/*===- mote/transfer.h - The TransferManager contract a port supplies ------===
 *
 * A TransferManager is the only code that touches both host memory (user
 * literals, row-major) and device memory (buffers in the compiled layout,
 * the port's alignment, wherever the device can reach). It is a C struct of
 * function pointers plus `self`, filled by a port:
 *
 *   - device buffers are opaque handles (mote_device_buffer): a port may
 *     use addresses, offsets into a private memory, or DMA descriptors;
 *     host code never dereferences one;
 *   - to_device / from_device move one tensor, relayouting between
 *     row-major and the compiled layout when they differ, and doing the
 *     port's DMA and cache maintenance;
 *   - import_host lets a port run on host memory in place (zero-copy) when
 *     the memory is device-reachable and aligned; a port that cannot says
 *     MOTE_UNSUPPORTED or MOTE_MISALIGNED and the caller copies;
 *   - execute runs a model on device buffers: only the device side turns
 *     handles into addresses.
 *
 * mote_direct_transfer below implements the contract for memory the CPU and
 * the model share directly (host Linux, Cortex-M, RISC-V): ports reuse it
 * with their alignment and, where they have caches and DMA, their hooks.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_TRANSFER_H
#define MOTE_TRANSFER_H

#include <stddef.h>
#include <stdint.h>

#include "mote/arena.h"
#include "mote/model.h"
#include "mote/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A device buffer: a port-defined handle (0 means none) and its size. */
typedef struct mote_device_buffer {
  uintptr_t handle;
  uint64_t size;
} mote_device_buffer;

typedef struct mote_transfer_manager {
  void *self;
  /* Alignment (a power of two) of every device buffer, and what a host
   * pointer needs for import_host. */
  uint32_t alignment;

  /* Allocates `size` bytes of device memory aligned to at least
   * max(alignment, self's alignment) into `out_buffer`. Device memory lives
   * until the port's storage is reset or deinitialized. */
  mote_status (*allocate)(void *self, uint64_t size, uint32_t alignment,
                          mote_device_buffer *out_buffer);

  /* Wraps `size` bytes of host memory at `host` as a device buffer without
   * copying. MOTE_MISALIGNED or MOTE_UNSUPPORTED (not reachable by the
   * device, or the port never aliases) when it cannot; the caller then
   * allocates and copies. The host memory must outlive `out_buffer`. */
  mote_status (*import_host)(void *self, const void *host, uint64_t size,
                             mote_device_buffer *out_buffer);

  /* Copies `tensor` from row-major host memory (`tensor->byte_size` bytes
   * at `host`) into `dst` in the layout `tensor->minor_to_major`. When
   * `dst` was imported from `host` this only makes the bytes visible to the
   * device. `host` is read only during the call. */
  mote_status (*to_device)(void *self, const mote_tensor_info *tensor, const void *host,
                           mote_device_buffer dst);

  /* Copies `tensor` from `src` (compiled layout) to row-major host memory at
   * `host`; when `src` was imported from `host` this only makes the device's
   * writes visible. `host` is written only during the call. */
  mote_status (*from_device)(void *self, const mote_tensor_info *tensor, mote_device_buffer src,
                             void *host);

  /* Runs `model` on the device: `args` and `results` hold the model's
   * argument and result counts of buffers, `scratch` at least its scratch
   * size. `address_table` is caller storage for arg_count + result_count
   * pointers, where the device side puts the addresses it resolves the
   * handles to (the entry function takes arrays of pointers, and the
   * runtime has no heap). Returns when the results are complete. */
  mote_status (*execute)(void *self, const mote_model *model, const mote_device_buffer *args,
                         const mote_device_buffer *results, mote_device_buffer scratch,
                         const mote_env *env, void **address_table);
} mote_transfer_manager;

/* Cache maintenance over [memory, memory + size). */
typedef void (*mote_cache_fn)(void *user, const void *memory, size_t size);
/* Non-zero when the device can access [memory, memory + size). */
typedef int (*mote_reachable_fn)(void *user, const void *memory, size_t size);

/* The TransferManager for directly addressable memory: handles are
 * addresses, device buffers are carved from `arena`, relayout happens in
 * place between host and device memory. The optional hooks (null by
 * default; set them after init) let a port with caches or a restricted
 * device-visible region reuse it. */
typedef struct mote_direct_transfer {
  mote_arena *arena;
  uint32_t alignment;
  /* Write back CPU caches before the device reads memory. */
  mote_cache_fn clean;
  /* Drop stale CPU cache lines before the CPU reads what the device wrote. */
  mote_cache_fn invalidate;
  /* Whether import_host may alias a host range (null: all memory). */
  mote_reachable_fn is_reachable;
  void *user;
} mote_direct_transfer;

/* Initializes `storage` to allocate from `arena` with `alignment` (a power
 * of two; 0 means 16) and fills `out_transfer` with `self` = `storage`.
 * MOTE_INVALID_ARGUMENT for null pointers or a bad alignment. `storage`
 * and `arena` must outlive `out_transfer` and every buffer it hands out. */
mote_status mote_direct_transfer_init(mote_direct_transfer *storage, mote_arena *arena,
                                      uint32_t alignment, mote_transfer_manager *out_transfer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_TRANSFER_H */
