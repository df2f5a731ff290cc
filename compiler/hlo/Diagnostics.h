//===- Diagnostics.h - Located errors ---------------------------*- C++ -*-===//
///
/// \file
/// Errors that point into the HLO source. Every stage (parser, verifier,
/// evaluator, codegen) returns llvm::Error; a LocatedError carries the
/// source position so tools print it the way clang does:
///   model.hlo:12:7: error: expected ']' after dimensions
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_DIAGNOSTICS_H
#define MOTE_HLO_DIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mote::hlo {

class Instruction;

class LocatedError : public llvm::ErrorInfo<LocatedError> {
public:
  static char ID;

  LocatedError(llvm::SMLoc location, std::string message)
      : location_(location), message_(std::move(message)) {}

  llvm::SMLoc location() const { return location_; }
  /// The message without location.
  const std::string &text() const { return message_; }

  void log(llvm::raw_ostream &os) const override { os << message_; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

private:
  llvm::SMLoc location_;
  std::string message_;
};

/// An error at a source position.
llvm::Error errorAt(llvm::SMLoc location, const llvm::Twine &message);
/// An error at an instruction, naming it: "in %add.3: <message>".
llvm::Error errorAt(const Instruction &instruction, const llvm::Twine &message);

/// Prints `error` to `os`: located errors as `file:line:col: error: msg` with
/// the source line and a caret (when `sourceManager` is given), others as
/// `error: msg`. Consumes the error.
void printError(llvm::Error error, const llvm::SourceMgr *sourceManager,
                llvm::raw_ostream &os = llvm::errs());

/// The error's text with `file:line:col: ` in front when it is located (for
/// tests and logs).
std::string errorToString(llvm::Error error, const llvm::SourceMgr *sourceManager);

} // namespace mote::hlo

#endif // MOTE_HLO_DIAGNOSTICS_H
