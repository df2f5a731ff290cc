//===- ParserCorpusTest.cpp - Parse and print every module of hlo-corpus --===//
//
// Runs over ../shared/hlo-corpus/files (or $MOTE_HLO_CORPUS/files) when it
// exists and does nothing otherwise. Every module must parse, except the few
// listed below that are not valid for Mote, which must fail with the stated
// error; every parsed module must print to a fixed point.
//
//===----------------------------------------------------------------------===//

#include "SourceTree.h"
#include "hlo/Diagnostics.h"
#include "hlo/Parser.h"
#include "hlo/Printer.h"

#include "llvm/Support/MemoryBuffer.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>

using namespace mote::hlo;

namespace {
std::filesystem::path corpusFiles() {
  if (const char *override = std::getenv("MOTE_HLO_CORPUS"))
    return std::filesystem::path(override) / "files";
  return mote::test::sharedCorpusFiles();
}

/// Modules that are not valid input for Mote, with the error they must give.
const std::map<std::string, std::string> kRejected = {
    // Rebuilt from FileCheck lines; still holds a `{{.*}}` pattern.
    {"xla__hlo__transforms__tests__rng_expander__recon3_TestNormalDistribution.hlo",
     "expected an integer for an element of type u64"},
};
} // namespace

TEST_CASE("hlo-corpus: every module parses and prints to a fixed point (skipped without it)") {
  std::filesystem::path files = corpusFiles();
  if (!std::filesystem::is_directory(files)) {
    MESSAGE("hlo-corpus not found at " << files.string() << ": skipped");
    return;
  }
  int total = 0, parsed = 0, roundTripped = 0;
  double seconds = 0;
  for (const auto &entry : std::filesystem::directory_iterator(files)) {
    if (entry.path().extension() != ".hlo")
      continue;
    ++total;
    std::string name = entry.path().filename().string();
    INFO(name);
    auto buffer = llvm::MemoryBuffer::getFile(entry.path().string());
    REQUIRE(buffer);
    auto sourceManager = std::make_shared<llvm::SourceMgr>();
    unsigned id = sourceManager->AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
    auto start = std::chrono::steady_clock::now();
    auto module = parseModule(sourceManager, id);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    auto rejected = kRejected.find(name);
    if (!module) {
      std::string error = errorToString(module.takeError(), sourceManager.get());
      if (rejected == kRejected.end())
        FAIL_CHECK("does not parse: " << error);
      else
        CHECK(error.find(rejected->second) != std::string::npos);
      continue;
    }
    CHECK_MESSAGE(rejected == kRejected.end(), "parses but is expected to fail");
    ++parsed;
    std::string first = printModule(**module);
    auto again = parseModuleText(first, name);
    if (!again) {
      FAIL_CHECK("printed text does not parse: " << llvm::toString(again.takeError()));
      continue;
    }
    std::string second = printModule(**again);
    CHECK(first == second);
    roundTripped += first == second;
  }
  MESSAGE("hlo-corpus: " << parsed << "/" << total << " parsed, " << roundTripped
                         << " print to a fixed point, parse time " << seconds << " s");
  CHECK(total > 0);
  // The whole corpus (6 MB) parses in well under a second in an optimized build.
  CHECK(seconds < 30);
}
