//===- file_io.h - Whole files in and out, for the command-line tools -----===//
//
// motec and mote-run read their inputs (models, packages, .npy arrays) whole.
// A path a user gives may name anything: a FIFO, /dev/zero, a directory, a
// file larger than memory. So reading takes regular files only (or standard
// input, as "-", where a tool allows it), refuses a file larger than the
// caller's limit before allocating anything, and reads exactly the size the
// file had when it was opened.
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_RUNTIME_TOOLS_FILE_IO_H
#define MOTE_RUNTIME_TOOLS_FILE_IO_H

#include <cstdint>
#include <string>
#include <vector>

namespace mote::io {

/// Reads all of `path`, a regular file of at most `max_bytes` bytes ("-" is
/// standard input, read up to the same limit, when `allow_stdin` is set).
/// False with `error` set to a message that does not name the file.
bool readWholeFile(const char *path, uint64_t max_bytes, std::vector<uint8_t> *out,
                   std::string *error, bool allow_stdin = false);

/// Writes `size` bytes to `path`, replacing it. False with `error` set.
bool writeWholeFile(const char *path, const void *data, size_t size, std::string *error);

/// "1.5 GiB", "512 bytes": a size as messages state it.
std::string describeBytes(uint64_t bytes);

} // namespace mote::io

#endif // MOTE_RUNTIME_TOOLS_FILE_IO_H
