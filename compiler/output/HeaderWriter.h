//===- HeaderWriter.h - The C/C++ header of a compiled model ----*- C++ -*-===//
///
/// \file
/// `motec compile -o out` writes out.h next to out.o: the C declarations of the
/// entry function and model descriptor (plain ABI, usable from C) and, for
/// C++, a class in the spirit of tfcompile's generated class: named, typed
/// accessors for each argument and result, kScratchBytes, and run().
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_OUTPUT_HEADERWRITER_H
#define MOTE_OUTPUT_HEADERWRITER_H

#include "codegen/ModelSignature.h"

#include <string>

namespace mote::output {

std::string writeHeader(const codegen::ModelSignature &signature);

} // namespace mote::output

#endif // MOTE_OUTPUT_HEADERWRITER_H
