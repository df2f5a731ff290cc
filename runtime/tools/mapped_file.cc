//===- mapped_file.cc - A file mapped read-only, for mote-run -------------===//
#include "mapped_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mote::run {

MappedFile::~MappedFile() {
  if (data_)
    munmap(data_, size_);
}

bool MappedFile::open(const char *path, std::string *error) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::string("cannot open: ") + strerror(errno);
    return false;
  }
  struct stat status;
  bool ok = fstat(fd, &status) == 0 && S_ISREG(status.st_mode);
  if (!ok) {
    *error = "cannot read: not a regular file";
  } else if (status.st_size == 0) {
    *error = "empty file";
    ok = false;
  } else {
    size_ = size_t(status.st_size);
    data_ = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data_ == MAP_FAILED) {
      *error = std::string("cannot map: ") + strerror(errno);
      data_ = nullptr;
      size_ = 0;
      ok = false;
    }
  }
  close(fd);
  return ok;
}

} // namespace mote::run
