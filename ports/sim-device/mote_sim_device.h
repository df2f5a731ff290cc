/*===- ports/sim-device/mote_sim_device.h - A device behind DMA only -------===
 *
 * A simulated accelerator whose memory the host reaches only through its
 * TransferManager: device buffers are opaque handles (offsets into the
 * device's private memory, biased so that dereferencing one faults), data
 * moves by DMA-style copies, and only the device side turns handles into
 * addresses when it runs a model. It never uses host memory in place, so
 * tests that pass through it prove the runtime honours the contract.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_SIM_DEVICE_H
#define MOTE_SIM_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "mote/mote.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Handles are device offsets plus this bias: never a valid host address. */
#define MOTE_SIM_DEVICE_HANDLE_BIAS 0x1000u

typedef struct mote_sim_device {
  /* Private memory: only the device's code below touches it. */
  uint8_t *memory;
  size_t size;
  size_t used;
  uint32_t alignment;
  /* What crossed the bus, for tests. */
  uint64_t bytes_to_device;
  uint64_t bytes_from_device;
  uint32_t transfers_to_device;
  uint32_t transfers_from_device;
  uint32_t executions;
} mote_sim_device;

/* Makes `device` own `size` bytes at `device_memory` (aligned to
 * `alignment`, a power of two; 0 means 64) and fills `out_transfer`.
 * MOTE_INVALID_ARGUMENT / MOTE_MISALIGNED for bad arguments. After this the
 * caller must not touch `device_memory` until the device is done with it;
 * `device` and the memory must outlive `out_transfer`. */
mote_status mote_sim_device_init(mote_sim_device *device, void *device_memory, size_t size,
                                 uint32_t alignment, mote_transfer_manager *out_transfer);

/* Frees every device buffer at once (handles handed out become invalid). */
void mote_sim_device_reset(mote_sim_device *device);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_SIM_DEVICE_H */
