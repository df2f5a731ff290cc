/*===- mote/mote.h - The runtime's C API, all of it ------------------------===
 *
 * Include this one header from C or C++. Everything is plain C (C99 and
 * later), allocates nothing, and needs nothing from libc but memcpy/memset.
 *
 *   mote/abi.h       the contract with generated code (mote_call, mote_env)
 *   mote/status.h    one-word status codes and their messages
 *   mote/config.h    build-time knobs
 *   mote/model.h     verify a descriptor, query tensors, run a model
 *   mote/layout.h    element sizes, layouts, relayout
 *   mote/arena.h     bump allocation over caller memory
 *   mote/transfer.h  the TransferManager contract and its direct-memory form
 *   mote/session.h   bind row-major host data, run, read results
 *
 * C++ callers may prefer the thin wrappers in mote/mote.hpp.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_MOTE_H
#define MOTE_MOTE_H

#include "mote/abi.h"
#include "mote/arena.h"
#include "mote/config.h"
#include "mote/layout.h"
#include "mote/model.h"
#include "mote/session.h"
#include "mote/status.h"
#include "mote/transfer.h"

#endif /* MOTE_MOTE_H */
