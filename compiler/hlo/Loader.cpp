//===- Loader.cpp - Read, parse and verify an HLO file --------------------===//

#include "hlo/Loader.h"

#include "hlo/Parser.h"
#include "hlo/Verifier.h"

#include "llvm/Support/MemoryBuffer.h"

namespace mote::hlo {

static llvm::Expected<std::unique_ptr<Module>>
parseAndVerify(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  auto sourceManager = std::make_shared<llvm::SourceMgr>();
  unsigned bufferId = sourceManager->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  auto module = parseModule(sourceManager, bufferId);
  if (!module)
    return module.takeError();
  if (llvm::Error error = verifyModule(**module))
    return std::move(error);
  return module;
}

llvm::Expected<std::unique_ptr<Module>> loadModule(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read '%s': %s", path.str().c_str(),
                                   buffer.getError().message().c_str());
  return parseAndVerify(std::move(*buffer));
}

llvm::Expected<std::unique_ptr<Module>> loadModuleText(llvm::StringRef text,
                                                       llvm::StringRef bufferName) {
  return parseAndVerify(llvm::MemoryBuffer::getMemBufferCopy(text, bufferName));
}

} // namespace mote::hlo
