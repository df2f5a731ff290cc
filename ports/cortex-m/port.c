/*===- ports/cortex-m/port.c - The runtime services of the Cortex-M port ---===
 *
 * One core, one address space: the TransferManager is the runtime's
 * direct-memory one at the port's alignment, env offers no parallelism, and
 * loaded code needs only a barrier to become executable.
 *
 *===----------------------------------------------------------------------===*/
#include "mote_port.h"

mote_status mote_port_transfer_init(mote_direct_transfer *storage, mote_arena *arena,
                                    mote_transfer_manager *out_transfer) {
  return mote_direct_transfer_init(storage, arena, MOTE_PORT_ALIGNMENT, out_transfer);
}

static const mote_env kEnv = {0, 0};

const mote_env *mote_port_env(void) { return &kEnv; }

mote_status mote_port_make_executable(void *user, void *memory, size_t size) {
  (void)user;
  (void)memory;
  (void)size;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  return MOTE_OK;
}
