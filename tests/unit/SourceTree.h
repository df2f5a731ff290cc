//===- SourceTree.h - Where unit tests find files of the source tree -*- C++ -*-===//
//
// The repository's root, from a compile definition: __FILE__ is relative to
// the build folder when a compiler cache rewrites paths (ccache's base_dir),
// so paths built from it point nowhere.
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_TESTS_UNIT_SOURCETREE_H
#define MOTE_TESTS_UNIT_SOURCETREE_H

#include <filesystem>

namespace mote::test {

inline std::filesystem::path sourceTree() { return MOTE_SOURCE_DIR; }

/// ../shared/hlo-corpus/files next to the repository.
inline std::filesystem::path sharedCorpusFiles() {
  return sourceTree().parent_path() / "shared" / "hlo-corpus" / "files";
}

} // namespace mote::test

#endif // MOTE_TESTS_UNIT_SOURCETREE_H
