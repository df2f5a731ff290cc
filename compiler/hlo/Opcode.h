//===- Opcode.h - HLO opcodes -----------------------------------*- C++ -*-===//
#ifndef MOTE_HLO_OPCODE_H
#define MOTE_HLO_OPCODE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mote::hlo {

enum class Opcode : uint16_t {
#define HLO_OPCODE(Enum, Spelling, Kind) Enum,
#include "hlo/Opcodes.def"
};

enum class OpcodeKind : uint8_t { Elementwise, Structural, MultiDevice };

/// The spelling in HLO text, e.g. "get-tuple-element".
llvm::StringRef opcodeName(Opcode opcode);
/// Parses an opcode spelling; std::nullopt for an unknown one.
std::optional<Opcode> parseOpcode(llvm::StringRef spelling);
OpcodeKind opcodeKind(Opcode opcode);

/// Elementwise ops by operand count (convert counts as unary; compare, binary).
bool isElementwiseUnary(Opcode opcode);
bool isElementwiseBinary(Opcode opcode);
/// True for ops that only make sense across several devices or with a host.
inline bool isMultiDevice(Opcode opcode) { return opcodeKind(opcode) == OpcodeKind::MultiDevice; }

} // namespace mote::hlo

#endif // MOTE_HLO_OPCODE_H
