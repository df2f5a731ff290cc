//===- Parser.h - HLO text parser -------------------------------*- C++ -*-===//
///
/// \file
/// Reads HLO text as XLA and JAX print it (see README.md of the hlo-corpus for
/// the grammar seen in real dumps). Instructions written without a shape get
/// one from shape inference as they are parsed. The result is not verified:
/// use loadModule() (Loader.h) for parse + verify.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_PARSER_H
#define MOTE_HLO_PARSER_H

#include "hlo/Module.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>

namespace mote::hlo {

/// Parses buffer `bufferId` of `sourceManager`. The module keeps the source
/// manager so later stages can point at the text. Errors are LocatedErrors.
llvm::Expected<std::unique_ptr<Module>>
parseModule(std::shared_ptr<llvm::SourceMgr> sourceManager, unsigned bufferId);

/// Convenience for tests and tools: parses `text`, naming the buffer `bufferName`.
/// The text is not kept, so an error carries its position in the message
/// ("name:line:column: ...") rather than as a source location.
llvm::Expected<std::unique_ptr<Module>> parseModuleText(llvm::StringRef text,
                                                        llvm::StringRef bufferName = "<string>");

/// Parses a shape written in HLO text, e.g. "f32[2,3]{1,0}" or "(s32[], f32[4])".
llvm::Expected<Shape> parseShape(llvm::StringRef text);

} // namespace mote::hlo

#endif // MOTE_HLO_PARSER_H
