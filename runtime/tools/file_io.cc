//===- file_io.cc - Whole files in and out, for the command-line tools ----===//
#include "file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mote::io {
namespace {

std::string systemError(const char *what) { return std::string(what) + ": " + strerror(errno); }

/// Reads until end of file or `max_bytes` + 1 bytes (which is too many).
bool readStream(int fd, uint64_t max_bytes, std::vector<uint8_t> *out, std::string *error) {
  uint8_t chunk[65536];
  for (;;) {
    ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      *error = systemError("cannot read");
      return false;
    }
    if (got == 0)
      return true;
    if (out->size() + uint64_t(got) > max_bytes) {
      *error = "too large: more than the " + describeBytes(max_bytes) + " this tool reads";
      return false;
    }
    out->insert(out->end(), chunk, chunk + got);
  }
}

} // namespace

std::string describeBytes(uint64_t bytes) {
  static const char *const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024)
    return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  double value = double(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < sizeof kUnits / sizeof kUnits[0]) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

bool readWholeFile(const char *path, uint64_t max_bytes, std::vector<uint8_t> *out,
                   std::string *error, bool allow_stdin) {
  out->clear();
  if (allow_stdin && strcmp(path, "-") == 0)
    return readStream(STDIN_FILENO, max_bytes, out, error);
  int fd;
  do
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    *error = systemError("cannot read");
    return false;
  }
  struct stat status;
  bool ok = fstat(fd, &status) == 0;
  if (!ok) {
    *error = systemError("cannot read");
  } else if (S_ISDIR(status.st_mode)) {
    *error = "cannot read: it is a directory";
    ok = false;
  } else if (!S_ISREG(status.st_mode)) {
    // A FIFO, socket or device (/dev/zero) has no size to check first.
    *error = "cannot read: not a regular file";
    ok = false;
  } else if (uint64_t(status.st_size) > max_bytes) {
    *error = "too large: " + describeBytes(uint64_t(status.st_size)) + ", more than the " +
             describeBytes(max_bytes) + " this tool reads";
    ok = false;
  }
  if (ok) {
    // The size was checked: read exactly that much, so a file that grows
    // while it is read cannot push past the limit.
    size_t size = size_t(status.st_size);
    out->resize(size);
    size_t done = 0;
    while (ok && done < size) {
      ssize_t got = read(fd, out->data() + done, size - done);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0) {
        *error = got < 0 ? systemError("cannot read") : "cannot read: the file shrank";
        ok = false;
      } else {
        done += size_t(got);
      }
    }
  }
  close(fd);
  if (!ok)
    out->clear();
  return ok;
}

bool writeWholeFile(const char *path, const void *data, size_t size, std::string *error) {
  FILE *file = fopen(path, "wb");
  if (!file) {
    *error = systemError("cannot write");
    return false;
  }
  bool ok = size == 0 || fwrite(data, 1, size, file) == size;
  int saved = errno;
  ok = fclose(file) == 0 && ok;
  if (!ok) {
    errno = saved ? saved : errno;
    *error = systemError("cannot write");
  }
  return ok;
}

} // namespace mote::io
