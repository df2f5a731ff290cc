//===- PackageWriter.h - Writes .mote packages --------------------*- C++ -*-===//
///
/// \file
/// Serialises a model's signature, memory plan and code objects into the
/// package format the runtime reads (runtime/schema/package.fbs behind the
/// 64-byte header of runtime/package/package_format.h), digest included.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_OUTPUT_PACKAGEWRITER_H
#define MOTE_OUTPUT_PACKAGEWRITER_H

#include "codegen/ModelSignature.h"
#include "output/CodeObjectLinker.h"

#include <string>
#include <vector>

namespace mote::output {

struct PackageCode {
  std::string triple, cpu, features;
  CodeObject code;
  /// The bytes the loader copies to code.constantsOffset (empty: none). The
  /// package stores each distinct blob once.
  std::vector<uint8_t> constants;
};

struct PackageContents {
  std::string modelName;
  /// Arguments and results (the same for every target) and the memory plan:
  /// the largest scratch size and alignment over the targets.
  codegen::ModelSignature signature;
  std::vector<PackageCode> codes;
};

/// The package file's bytes.
std::string writePackage(const PackageContents &contents);

} // namespace mote::output

#endif // MOTE_OUTPUT_PACKAGEWRITER_H
