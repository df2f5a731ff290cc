//===- mapped_file.h - A file mapped read-only, for mote-run --------------===//
//
// mote-run maps a package (and its weights file) instead of reading it: the
// runtime then uses the weights in place from the page cache, so a model's
// weights are never copied, and the pages are shared by every process that
// maps the same file. Mappings start on a page boundary, which is the
// alignment the kernels need for the weights.
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_RUNTIME_TOOLS_MAPPED_FILE_H
#define MOTE_RUNTIME_TOOLS_MAPPED_FILE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace mote::run {

class MappedFile {
public:
  MappedFile() = default;
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  ~MappedFile();

  /// Maps `path` read-only; on failure returns false with `error` set.
  bool open(const char *path, std::string *error);

  const uint8_t *data() const { return static_cast<const uint8_t *>(data_); }
  size_t size() const { return size_; }

private:
  void *data_ = nullptr;
  size_t size_ = 0;
};

} // namespace mote::run

#endif // MOTE_RUNTIME_TOOLS_MAPPED_FILE_H
