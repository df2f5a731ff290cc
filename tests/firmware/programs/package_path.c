/*===- tests/firmware/programs/package_path.c - Plus the package loader ---===
 *
 * The static path plus what loading a .mote package adds: open and verify
 * the package (flatbuffer, digest), pick the code object for this target,
 * place and relocate it in RAM, make it executable, and run it through a
 * session: the 8-float add of add.hlo, checked like static_path.c. The bytes
 * are read through a volatile pointer so the loader is linked in full even
 * when motec could not write the package (the program then says so).
 *
 *===----------------------------------------------------------------------===*/
#include "add_package.h"
#include "mote/package.h"
#include "mote_port.h"

static const uint8_t *volatile package_bytes = add_package;
static volatile size_t package_size = sizeof add_package;

static uint8_t code_memory[4096] __attribute__((aligned(64)));
static uint8_t memory[512] __attribute__((aligned(16)));
static float x[8], y[8];

static int fail(const char *what, mote_status status) {
  mote_port_write(what);
  mote_port_write(": ");
  mote_port_write(mote_status_message(status));
  mote_port_write("\n");
  return 1;
}

int main(void) {
  mote_package package;
  uint32_t index = 0;
  size_t code_size = 0, code_alignment = 0;
  mote_model model;
  mote_status status = mote_package_open(package_bytes, package_size, &package);
  if (status != MOTE_OK && !ADD_PACKAGE_AVAILABLE) {
    mote_port_write("no package: " ADD_PACKAGE_MISSING_REASON "\n");
    return 0;
  }
  if (status == MOTE_OK)
    status = mote_package_select(&package, MOTE_PORT_TRIPLE, NULL, &index);
  if (status == MOTE_OK)
    status = mote_package_code_memory(&package, index, &code_size, &code_alignment);
  if (status == MOTE_OK && (code_size > sizeof code_memory || code_alignment > 64))
    status = MOTE_BUFFER_TOO_SMALL;
  if (status == MOTE_OK)
    status = mote_package_load(&package, index, code_memory, sizeof code_memory,
                               mote_port_make_executable, NULL, &model);
  if (status != MOTE_OK)
    return fail("loading the package", status);

  for (int i = 0; i < 8; ++i)
    x[i] = (float)(i + 1);
  mote_arena arena;
  mote_arena_init(&arena, memory, sizeof memory);
  mote_direct_transfer direct;
  mote_transfer_manager transfer;
  mote_session session;
  status = mote_port_transfer_init(&direct, &arena, &transfer);
  if (status == MOTE_OK)
    status = mote_session_init(&session, &model, &transfer, mote_port_env(), &arena);
  if (status == MOTE_OK)
    status = mote_session_set_input(&session, 0, x, sizeof x);
  if (status == MOTE_OK)
    status = mote_session_set_output(&session, 0, y, sizeof y);
  if (status == MOTE_OK)
    status = mote_session_run(&session);
  if (status != MOTE_OK)
    return fail("running the loaded model", status);
  for (int i = 0; i < 8; ++i)
    if (y[i] != 2 * x[i])
      return 100 + i;
  mote_port_write("package path ok\n");
  return 0;
}
