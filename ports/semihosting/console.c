/*===- ports/semihosting/console.c - Console and exit over semihosting -----===
 *
 * The board services of the bare-metal ports, through the debugger (QEMU
 * -semihosting): text to the host's stdout and the end of the run with a
 * status. The C library's stdio (picolibc: printf, puts, putchar) writes to
 * the same console through the stdout FILE defined here; newlib's calls
 * _write. Characters wait in a small buffer until a newline, a full buffer,
 * a flush or mote_port_write, then go out in one trap (SYS_WRITE0): a trap
 * is a round trip to the debugger on silicon.
 *
 *===----------------------------------------------------------------------===*/
#include <stdio.h>

#include "mote_port.h"
#include "semihosting.h"

static char pending[128];
static unsigned pending_length;

static void flush_pending(void) {
  if (pending_length == 0)
    return;
  pending[pending_length] = '\0';
  mote_semihost_call(MOTE_SYS_WRITE0, pending);
  pending_length = 0;
}

static void put_char(char c) {
  pending[pending_length++] = c;
  if (c == '\n' || pending_length == sizeof pending - 1)
    flush_pending();
}

void mote_port_write(const char *text) {
  flush_pending();
  mote_semihost_call(MOTE_SYS_WRITE0, text);
}

void mote_port_exit(int status) {
  flush_pending();
  /* SYS_EXIT_EXTENDED carries the status; plain SYS_EXIT only says "ok". */
  const uintptr_t block[2] = {MOTE_ADP_STOPPED_APPLICATION_EXIT, (uintptr_t)status};
  for (;;)
    mote_semihost_call(MOTE_SYS_EXIT_EXTENDED, block);
}

#if defined(__PICOLIBC__)
static int console_put(char c, FILE *file) {
  (void)file;
  put_char(c);
  return (unsigned char)c;
}

static int console_flush(FILE *file) {
  (void)file;
  flush_pending();
  return 0;
}

static FILE console = FDEV_SETUP_STREAM(console_put, NULL, console_flush, _FDEV_SETUP_WRITE);
FILE *const stdout = &console;
FILE *const stderr = &console;
#else
/* newlib's stdio ends in _write for every stream. */
int _write(int file, const char *data, int size) {
  (void)file;
  for (int i = 0; i < size; ++i)
    put_char(data[i]);
  return size;
}
#endif
