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
#include "codegen/WeightsBlob.h"
#include "output/CodeObjectLinker.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mote::output {

struct PackageCode {
  std::string triple, cpu, features;
  CodeObject code;
  /// The constants the code reads through mote_call.weights (null or empty:
  /// none). Code objects whose weights are the same bytes share one copy.
  const codegen::WeightsBlob *weights = nullptr;
};

struct PackageContents {
  std::string modelName;
  /// Arguments and results (the same for every target) and the memory plan:
  /// the largest scratch size and alignment over the targets.
  codegen::ModelSignature signature;
  std::vector<PackageCode> codes;
  /// When set, the weights go to this file (named as the package records
  /// it, relative to the package's folder) instead of into the package.
  std::string weightsFile;
};

/// The package file's bytes. With `contents.weightsFile`, the weights are
/// written to `weightsOut` (which must then be given).
std::string writePackage(const PackageContents &contents, llvm::raw_ostream *weightsOut = nullptr);

} // namespace mote::output

#endif // MOTE_OUTPUT_PACKAGEWRITER_H
