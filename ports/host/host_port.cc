// ===- ports/host/host_port.cc - The port contract on Linux / Android -----===
#include <stdio.h>
#include <stdlib.h>

#include "mote_port.h"

#include "host_code_memory.h"

extern "C" mote_status mote_port_transfer_init(mote_direct_transfer *storage, mote_arena *arena,
                                               mote_transfer_manager *out_transfer) {
  return mote_host_transfer_init(storage, arena, out_transfer);
}

extern "C" const mote_env *mote_port_env(void) {
  static const mote_env sequential = {nullptr, nullptr};
  return &sequential;
}

extern "C" mote_status mote_port_make_executable(void *user, void *memory, size_t size) {
  return mote_host_code_make_executable(user, memory, size);
}

extern "C" void mote_port_write(const char *text) { fputs(text, stdout); }

extern "C" void mote_port_exit(int status) {
  fflush(stdout);
  exit(status);
}
