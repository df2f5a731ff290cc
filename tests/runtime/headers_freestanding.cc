// ===- tests/runtime/headers_freestanding.cc - mote.hpp on bare metal -----===
//
// Compiled by check_freestanding.cmake with the bare-metal compiler in C++17
// without exceptions or RTTI: every wrapper in mote/mote.hpp instantiates.
#include "mote/mote.hpp"

mote::Status freestanding_wrappers(const mote_model_desc &desc, mote_entry_fn entry,
                                   mote::Span<unsigned char> memory, const float *x, float *y) {
  mote::Arena arena(memory);
  mote_direct_transfer direct;
  mote_transfer_manager transfer;
  mote::Status status = mote_direct_transfer_init(&direct, arena.get(), 8, &transfer);
  mote::Model model;
  if (status.ok())
    status = model.init(desc, entry);
  mote::Session session;
  if (status.ok())
    status = session.init(model, transfer, arena);
  if (status.ok())
    status = session.set_input(0, mote::Span<const float>(x, 4));
  if (status.ok())
    status = session.set_output(0, mote::Span<float>(y, 4));
  if (status.ok())
    status = session.run();
  return status;
}
