//===- Printer.h - HLO text printer -----------------------------*- C++ -*-===//
///
/// \file
/// Prints a module as HLO text that parseModule() reads back to the same
/// module: print(parse(print(parse(x)))) == print(parse(x)).
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_PRINTER_H
#define MOTE_HLO_PRINTER_H

#include "hlo/Module.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mote::hlo {

void printModule(const Module &module, llvm::raw_ostream &os);
std::string printModule(const Module &module);
/// One instruction as it appears inside a computation (without indentation).
std::string printInstruction(const Instruction &instruction);

} // namespace mote::hlo

#endif // MOTE_HLO_PRINTER_H
