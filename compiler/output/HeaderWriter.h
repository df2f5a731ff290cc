//===- HeaderWriter.h - The C/C++ header of a compiled model ----*- C++ -*-===//
///
/// \file
/// `motec compile -o out` writes out.h next to out.o: the C declarations of the
/// entry function and model descriptor (plain ABI, usable from C), the
/// memory a session needs as a constant, and, for C++, a class over the
/// runtime's own Model and Session (mote/mote.hpp): named, typed, checked
/// accessors for each argument and result, kArenaBytes, and run().
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
