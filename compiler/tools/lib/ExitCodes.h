//===- ExitCodes.h - Exit statuses of the command-line tools ----*- C++ -*-===//
///
/// \file
/// The exit statuses scripts can rely on. They are part of motec's interface
/// (printed by --help), so never renumber them.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_EXITCODES_H
#define MOTE_TOOLS_EXITCODES_H

namespace mote::tools {

enum ExitCode : int {
  ExitOk = 0,
  /// Bad HLO, a bad .npy file, inputs that do not match the parameters, or an
  /// evaluation that fails on the given values (e.g. a runaway while loop).
  ExitInvalidInput = 1,
  /// Unknown command, unknown or malformed flag.
  ExitBadCommandLine = 2,
  /// Valid input Mote does not support: multi-device ops, elided constants,
  /// element types without a host representation.
  ExitUnsupported = 3,
  /// A bug in Mote: an unexpected failure or a crash that was caught.
  ExitInternalError = 4,
};

} // namespace mote::tools

#endif // MOTE_TOOLS_EXITCODES_H
