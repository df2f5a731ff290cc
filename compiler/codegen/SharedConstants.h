//===- SharedConstants.h - A package's weights, stored once -----*- C++ -*-===//
///
/// \file
/// A package carries one code object per target and feature level; if each
/// held its own copy of the model's weights, the package would grow by the
/// weights with every level. Instead the large constants of a model compiled
/// for a package are laid out in one blob: the code reads them from a
/// zero-filled region of its image (`<prefix>_constants`, in .bss, so it
/// takes no room in the ELF), the package stores the blob once for every
/// code object whose blob has the same bytes, and the loader copies it into
/// that region before the code runs. Small constants (splat values, shapes)
/// stay in the code, where LLVM may fold them.
///
/// The blob's layout is the order in which code generation asks for the
/// constants, each at a 64-byte boundary, so the same module compiled for
/// two feature levels of one triple gives the same bytes.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_SHAREDCONSTANTS_H
#define MOTE_CODEGEN_SHAREDCONSTANTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Constant.h"
#include "llvm/IR/Module.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mote::codegen {

class SharedConstants {
public:
  /// Constants of at least this many bytes go in the blob.
  static constexpr size_t kMinBytes = 1024;
  static constexpr uint64_t kAlignment = 64;

  /// The blob's region will be the global `symbol` of `module`.
  SharedConstants(llvm::Module &module, llvm::StringRef symbol);

  /// The address of `bytes`, appended to the blob.
  llvm::Constant *add(llvm::ArrayRef<uint8_t> bytes);

  /// Gives the region its size (nothing when no constant went in) and
  /// returns the blob; call once, after code generation.
  std::vector<uint8_t> finish();

private:
  llvm::Module &module_;
  std::string symbol_;
  llvm::GlobalVariable *placeholder_ = nullptr;
  std::vector<uint8_t> bytes_;
};

} // namespace mote::codegen

#endif // MOTE_CODEGEN_SHAREDCONSTANTS_H
