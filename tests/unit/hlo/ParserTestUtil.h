//===- ParserTestUtil.h - Helpers for the parser and printer tests --------===//
#ifndef MOTE_TESTS_UNIT_HLO_PARSERTESTUTIL_H
#define MOTE_TESTS_UNIT_HLO_PARSERTESTUTIL_H

#include "hlo/Diagnostics.h"
#include "hlo/Module.h"
#include "hlo/Parser.h"

#include "llvm/Support/MemoryBuffer.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>

namespace mote::hlo::testing {

/// Parses `text` (not verified); fails the test case when it does not parse.
inline std::unique_ptr<Module> parseOk(const std::string &text) {
  auto sourceManager = std::make_shared<llvm::SourceMgr>();
  unsigned id = sourceManager->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "test.hlo"), llvm::SMLoc());
  auto module = parseModule(sourceManager, id);
  if (!module) {
    FAIL_CHECK("does not parse: " << errorToString(module.takeError(), sourceManager.get()));
    return nullptr;
  }
  return std::move(*module);
}

/// "test.hlo:line:column: message" for text that must not parse.
inline std::string parseError(const std::string &text) {
  auto sourceManager = std::make_shared<llvm::SourceMgr>();
  unsigned id = sourceManager->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "test.hlo"), llvm::SMLoc());
  auto module = parseModule(sourceManager, id);
  if (module)
    return "(parsed without error)";
  return errorToString(module.takeError(), sourceManager.get());
}

/// Line and column of a located thing, as "line:column".
inline std::string lineColumn(const Module &module, llvm::SMLoc location) {
  if (!location.isValid())
    return "(no location)";
  auto [line, column] = module.sourceManager()->getLineAndColumn(location);
  return std::to_string(line) + ":" + std::to_string(column);
}

/// The instruction called `name` in any computation.
inline Instruction *find(const Module &module, llvm::StringRef name) {
  for (const auto &computation : module.computations())
    if (Instruction *instruction = computation->findInstruction(name))
      return instruction;
  FAIL_CHECK("no instruction named " << name.str());
  return nullptr;
}

} // namespace mote::hlo::testing

#endif // MOTE_TESTS_UNIT_HLO_PARSERTESTUTIL_H
