/*===- ports/host/package_file.c - Load a .mote package from a file --------===
 *
 * mote_package_load_file and _bytes (mote_host.h): the file is mapped
 * read-only (the weights are used where they lie, never copied), the code
 * object for this machine is loaded into memory from mote_host_code_alloc
 * and made executable, all through mote_package_load_memory.
 *
 *===----------------------------------------------------------------------===*/
#define _DEFAULT_SOURCE /* MAP_PRIVATE and friends are not in strict C */

#include "mote_host.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_code_memory.h"

mote_status mote_package_load_file(const char *path, mote_host_package *out) {
  if (!path || !out)
    return MOTE_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return MOTE_FILE_ERROR;
  struct stat info;
  void *file = MAP_FAILED;
  if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0)
    file = mmap(NULL, (size_t)info.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (file == MAP_FAILED)
    return MOTE_FILE_ERROR;
  mote_status status = mote_package_load_bytes(file, (size_t)info.st_size, out);
  if (status == MOTE_OK) {
    out->file = file;
    out->file_size = (size_t)info.st_size;
  } else {
    munmap(file, (size_t)info.st_size);
  }
  return status;
}

mote_status mote_package_load_bytes(const void *bytes, size_t size, mote_host_package *out) {
  if (!out)
    return MOTE_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  mote_package_requirements need;
  mote_status status = mote_package_requirements_for(bytes, size, &need);
  if (status == MOTE_OK)
    status = mote_host_code_alloc(need.code_size, &out->code);
  if (status == MOTE_OK) {
    out->code_size = need.code_size;
    status = mote_package_load_memory(bytes, size, out->code, out->code_size,
                                      mote_host_code_make_executable, NULL, &out->loaded);
  }
  if (status != MOTE_OK)
    mote_package_unload(out);
  return status;
}

void mote_package_unload(mote_host_package *package) {
  if (!package)
    return;
  if (package->code)
    mote_host_code_free(package->code, package->code_size);
  if (package->file)
    munmap(package->file, package->file_size);
  memset(package, 0, sizeof *package);
}
