//===- package_machine.cc - A package's code for this machine, in one call ===//
//
// mote_package_select_for_machine, mote_package_requirements_for and
// mote_package_load_memory (mote/package.h): the steps of package.cc
// (open, select, size, load) put together with this machine's probes
// (mote/machine.h), so a program needs one call to go from bytes to a model.
//
//===----------------------------------------------------------------------===//
#include "mote/machine.h"
#include "mote/package.h"
#include "mote/session.h"

extern "C" mote_status mote_package_select_for_machine(const mote_package *package,
                                                       uint32_t *out_index) {
  if (!mote_machine_detects_features())
    return mote_package_select(package, mote_machine_triple(), nullptr, out_index);
  char features[256];
  mote_status status = mote_machine_features(features, sizeof features);
  if (status != MOTE_OK)
    return status;
  return mote_package_select(package, mote_machine_triple(), features, out_index);
}

namespace {

// The alignment the arena size assumes: the largest any port asks for.
constexpr size_t kArenaAlignment = 16;

// Picks and sizes the code object of an opened package.
mote_status requirements(const mote_package *package, mote_package_requirements *out) {
  mote_status status = mote_package_select_for_machine(package, &out->code_index);
  if (status == MOTE_OK)
    status =
        mote_package_code_memory(package, out->code_index, &out->code_size, &out->code_alignment);
  return status;
}

} // namespace

extern "C" mote_status mote_package_requirements_for(const void *bytes, size_t size,
                                                     mote_package_requirements *out) {
  if (!out)
    return MOTE_INVALID_ARGUMENT;
  mote_package package;
  mote_status status = mote_package_open(bytes, size, &package);
  return status == MOTE_OK ? requirements(&package, out) : status;
}

extern "C" mote_status mote_package_load_memory(const void *bytes, size_t size, void *code_memory,
                                                size_t code_memory_size,
                                                mote_make_executable_fn make_executable, void *user,
                                                mote_loaded_package *out) {
  if (!out || !code_memory)
    return MOTE_INVALID_ARGUMENT;
  // The digest is checked once, by this open.
  mote_package_requirements need;
  mote_status status = mote_package_open(bytes, size, &out->package);
  if (status == MOTE_OK)
    status = requirements(&out->package, &need);
  if (status != MOTE_OK)
    return status;
  if (code_memory_size < need.code_size)
    return MOTE_BUFFER_TOO_SMALL;
  if (reinterpret_cast<uintptr_t>(code_memory) % need.code_alignment != 0)
    return MOTE_MISALIGNED;
  status = mote_package_load(&out->package, need.code_index, code_memory, code_memory_size,
                             make_executable, user, &out->model);
  if (status != MOTE_OK)
    return status;
  out->code_index = need.code_index;
  out->arena_size = mote_session_arena_size(&out->model, kArenaAlignment);
  return MOTE_OK;
}
