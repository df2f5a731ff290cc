//===- parser_fuzz.cpp - libFuzzer target for the HLO text parser ---------===//
//
// Any input must give a module or a located error, never a crash, hang or
// sanitizer report. A module must survive the printer: its text parses again
// and prints byte for byte the same.
//
//===----------------------------------------------------------------------===//

#include "hlo/Diagnostics.h"
#include "hlo/Parser.h"
#include "hlo/Printer.h"

#include <cstdio>
#include <cstdlib>

using namespace mote::hlo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto module = parseModuleText(text, "fuzz.hlo");
  if (!module) {
    // Errors must be located and printable.
    std::string message = errorToString(module.takeError(), nullptr);
    if (message.empty()) {
      std::fprintf(stderr, "parse error without a message\n");
      std::abort();
    }
    return 0;
  }
  std::string printed = printModule(**module);
  auto again = parseModuleText(printed, "printed.hlo");
  if (!again) {
    std::fprintf(stderr, "printed module does not parse: %s\n--- printed:\n%s\n",
                 llvm::toString(again.takeError()).c_str(), printed.c_str());
    std::abort();
  }
  std::string reprinted = printModule(**again);
  if (reprinted != printed) {
    std::fprintf(stderr, "printing is not a fixed point\n--- first:\n%s\n--- second:\n%s\n",
                 printed.c_str(), reprinted.c_str());
    std::abort();
  }
  return 0;
}
