// ===- ports/host/host_transfer.cc - The host's TransferManager -----------===
//
// On Linux the model runs on the CPU that owns the user's memory, so the
// host port is the direct-memory TransferManager with the host's alignment;
// there are no caches to maintain.
#include "mote_host.h"

extern "C" mote_status mote_host_transfer_init(mote_direct_transfer *storage, mote_arena *arena,
                                               mote_transfer_manager *out_transfer) {
  return mote_direct_transfer_init(storage, arena, MOTE_HOST_ALIGNMENT, out_transfer);
}
