/*===- host_code_memory.c - Executable memory for loaded code on Linux -----===*/
/* mmap flags like MAP_ANONYMOUS are not in strict C. */
#define _DEFAULT_SOURCE

#include "host_code_memory.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_size(void) {
  long size = sysconf(_SC_PAGESIZE);
  return size > 0 ? (size_t)size : 4096;
}

static size_t round_to_pages(size_t size) {
  size_t page = page_size();
  return (size + page - 1) / page * page;
}

mote_status mote_host_code_alloc(size_t size, void **out_memory) {
  if (out_memory == NULL || size == 0)
    return MOTE_INVALID_ARGUMENT;
  void *memory =
      mmap(NULL, round_to_pages(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED)
    return MOTE_UNSUPPORTED;
  *out_memory = memory;
  return MOTE_OK;
}

mote_status mote_host_code_make_executable(void *user, void *memory, size_t size) {
  (void)user;
  uintptr_t begin = (uintptr_t)memory & ~(uintptr_t)(page_size() - 1);
  size_t length = round_to_pages((uintptr_t)memory + size - begin);
  if (mprotect((void *)begin, length, PROT_READ | PROT_EXEC) != 0)
    return MOTE_UNSUPPORTED;
  /* Arm and RISC-V do not keep instruction fetch coherent with the stores
   * that wrote the code; x86 does, and there this is a no-op. */
  __builtin___clear_cache((char *)memory, (char *)memory + size);
  return MOTE_OK;
}

void mote_host_code_free(void *memory, size_t size) {
  if (memory != NULL)
    munmap(memory, round_to_pages(size));
}
