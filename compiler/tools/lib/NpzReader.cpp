//===- NpzReader.cpp - .npz archives (numpy.savez) as named arrays --------===//

#include "WeightsFile.h"

#include "Npy.h"

#include "llvm/Support/Path.h"

#include <zip.h>

#include <memory>

namespace mote::tools {

namespace {

llvm::Error npzError(llvm::StringRef path, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), path + ": " + message);
}

struct ArchiveCloser {
  void operator()(zip_t *archive) const { zip_discard(archive); }
};
struct MemberCloser {
  void operator()(zip_file_t *file) const { zip_fclose(file); }
};

/// ml_dtypes saves bfloat16 arrays with descr '<V2' or '|V2' (two raw
/// bytes), which the .npy reader does not take. The header is rewritten in
/// place to '<u2' (same length) and the result relabelled as bf16.
bool relabelBFloat16(std::string &npy) {
  size_t headerEnd = std::min<size_t>(npy.find('\n'), npy.size());
  for (llvm::StringRef raw : {"'<V2'", "'|V2'"}) {
    size_t at = llvm::StringRef(npy).take_front(headerEnd).find(raw);
    if (at != llvm::StringRef::npos) {
      npy.replace(at, raw.size(), "'<u2'");
      return true;
    }
  }
  return false;
}

llvm::Expected<hlo::Literal> decodeMember(std::string bytes, llvm::StringRef name) {
  bool bf16 = relabelBFloat16(bytes);
  auto value = decodeNpy(bytes, name);
  if (!value || !bf16)
    return value;
  hlo::Literal relabelled(hlo::Shape::array(hlo::PrimitiveType::BF16, value->shape().dims()));
  std::copy(value->bytes().begin(), value->bytes().end(), relabelled.bytes().begin());
  return relabelled;
}

} // namespace

llvm::Expected<std::vector<NamedArray>> readNpzFile(llvm::StringRef path) {
  int code = 0;
  std::unique_ptr<zip_t, ArchiveCloser> archive(zip_open(path.str().c_str(), ZIP_RDONLY, &code));
  if (!archive) {
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    std::string message = zip_error_strerror(&error);
    zip_error_fini(&error);
    return npzError(path, "cannot read as an .npz (zip) archive: " + message);
  }
  std::vector<NamedArray> arrays;
  zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  for (zip_int64_t index = 0; index < count; ++index) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive.get(), zip_uint64_t(index), 0, &stat) != 0 ||
        !(stat.valid & ZIP_STAT_NAME) || !(stat.valid & ZIP_STAT_SIZE))
      return npzError(path, "member " + llvm::Twine(index) + ": " + zip_strerror(archive.get()));
    llvm::StringRef member = stat.name;
    if (member.ends_with("/"))
      continue; // a directory entry
    std::string where = (path + ": " + member).str();
    if (!member.ends_with(".npy"))
      return npzError(path, "member '" + member + "' is not a .npy array");
    std::unique_ptr<zip_file_t, MemberCloser> file(
        zip_fopen_index(archive.get(), zip_uint64_t(index), 0));
    if (!file)
      return npzError(path, "member '" + member + "': " + zip_strerror(archive.get()));
    // Deflate expands at most 1032-fold: a member claiming more is corrupt
    // (and must not make us allocate what it claims).
    if ((stat.valid & ZIP_STAT_COMP_SIZE) && stat.size / 1032 > stat.comp_size + 1)
      return npzError(path, "member '" + member + "' claims " + llvm::Twine(stat.size) +
                                " bytes from " + llvm::Twine(stat.comp_size) +
                                " compressed: the archive is corrupt");
    std::string bytes;
    // The stated size bounds the buffer; a member that inflates to anything
    // else is corrupt, and libzip's CRC check catches altered contents.
    bytes.resize(stat.size);
    zip_int64_t read = zip_fread(file.get(), bytes.data(), stat.size);
    char extra;
    if (read < 0 || zip_uint64_t(read) != stat.size || zip_fread(file.get(), &extra, 1) != 0)
      return npzError(path, "member '" + member + "' is corrupt: " + zip_file_strerror(file.get()));
    auto value = decodeMember(std::move(bytes), where);
    if (!value)
      return value.takeError();
    arrays.push_back({member.drop_back(4).str(), std::move(*value)});
  }
  return arrays;
}

llvm::Expected<std::vector<NamedArray>> readWeightsFile(llvm::StringRef path) {
  llvm::StringRef extension = llvm::sys::path::extension(path);
  if (extension == ".npz")
    return readNpzFile(path);
  if (extension == ".safetensors")
    return readSafetensorsFile(path);
  if (extension == ".npy") {
    auto value = readNpyFile(path);
    if (!value)
      return value.takeError();
    std::vector<NamedArray> arrays;
    arrays.push_back({llvm::sys::path::stem(path).str(), std::move(*value)});
    return arrays;
  }
  return npzError(path, "unknown weights file type (expected .npz, .safetensors or .npy)");
}

} // namespace mote::tools
