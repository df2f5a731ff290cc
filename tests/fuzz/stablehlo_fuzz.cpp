//===- stablehlo_fuzz.cpp - libFuzzer target for the StableHLO front end --===//
//
// Any input must give a module or a located error, never a crash, hang or
// sanitizer report; a module the converter builds must go through the
// verifier and the printer (the verifier may reject it, with an error).
//
//===----------------------------------------------------------------------===//

#include "hlo/Diagnostics.h"
#include "hlo/Printer.h"
#include "hlo/Verifier.h"
#include "stablehlo/StableHlo.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstdio>
#include <cstdlib>

using namespace mote;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto sourceManager = std::make_shared<llvm::SourceMgr>();
  unsigned buffer = sourceManager->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.mlir"),
      llvm::SMLoc());
  stablehlo::ConversionOptions options;
  options.liftInputs = size % 2 == 0; // both ways of reading test files
  auto converted = stablehlo::convertStableHlo(sourceManager, buffer, options);
  if (!converted) {
    // Errors must be located and printable.
    std::string message = hlo::errorToString(converted.takeError(), sourceManager.get());
    if (message.empty()) {
      std::fprintf(stderr, "conversion error without a message\n");
      std::abort();
    }
    return 0;
  }
  if (llvm::Error error = hlo::verifyModule(*converted->module)) {
    llvm::consumeError(std::move(error));
    return 0;
  }
  std::string printed = hlo::printModule(*converted->module);
  if (printed.empty())
    std::abort();
  return 0;
}
