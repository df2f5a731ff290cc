//===- Diagnostics.cpp - Located errors -----------------------------------===//

#include "hlo/Diagnostics.h"

#include "hlo/Instruction.h"

namespace mote::hlo {

char LocatedError::ID = 0;

llvm::Error errorAt(llvm::SMLoc location, const llvm::Twine &message) {
  return llvm::make_error<LocatedError>(location, message.str());
}

llvm::Error errorAt(const Instruction &instruction, const llvm::Twine &message) {
  return errorAt(instruction.location(), "in %" + instruction.name() + ": " + message);
}

void printError(llvm::Error error, const llvm::SourceMgr *sourceManager, llvm::raw_ostream &os) {
  llvm::handleAllErrors(
      std::move(error),
      [&](const LocatedError &located) {
        if (sourceManager && located.location().isValid()) {
          sourceManager->PrintMessage(os, located.location(), llvm::SourceMgr::DK_Error,
                                      located.text());
          return;
        }
        os << "error: " << located.text() << '\n';
      },
      [&](const llvm::ErrorInfoBase &other) { os << "error: " << other.message() << '\n'; });
}

std::string errorToString(llvm::Error error, const llvm::SourceMgr *sourceManager) {
  std::string text;
  llvm::handleAllErrors(
      std::move(error),
      [&](const LocatedError &located) {
        if (sourceManager && located.location().isValid()) {
          unsigned buffer = sourceManager->FindBufferContainingLoc(located.location());
          auto [line, column] = sourceManager->getLineAndColumn(located.location(), buffer);
          text = (sourceManager->getMemoryBuffer(buffer)->getBufferIdentifier() + ":" +
                  llvm::Twine(line) + ":" + llvm::Twine(column) + ": " + located.text())
                     .str();
          return;
        }
        text = located.text();
      },
      [&](const llvm::ErrorInfoBase &other) { text = other.message(); });
  return text;
}

} // namespace mote::hlo
