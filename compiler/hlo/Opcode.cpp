//===- Opcode.cpp - HLO opcodes -------------------------------------------===//

#include "hlo/Opcode.h"

#include "llvm/ADT/StringMap.h"

namespace mote::hlo {

namespace {
struct OpcodeInfo {
  const char *spelling;
  OpcodeKind kind;
};

constexpr OpcodeInfo kOpcodes[] = {
#define HLO_OPCODE(Enum, Spelling, Kind) {Spelling, OpcodeKind::Kind},
#include "hlo/Opcodes.def"
};
} // namespace

llvm::StringRef opcodeName(Opcode opcode) {
  return kOpcodes[static_cast<unsigned>(opcode)].spelling;
}

OpcodeKind opcodeKind(Opcode opcode) { return kOpcodes[static_cast<unsigned>(opcode)].kind; }

std::optional<Opcode> parseOpcode(llvm::StringRef spelling) {
  static const llvm::StringMap<Opcode> table = [] {
    llvm::StringMap<Opcode> map;
    for (unsigned i = 0; i < std::size(kOpcodes); ++i)
      map[kOpcodes[i].spelling] = static_cast<Opcode>(i);
    // XLA accepts "clz" as well as its long name in older dumps.
    map["clz"] = Opcode::Clz;
    return map;
  }();
  auto it = table.find(spelling);
  if (it == table.end())
    return std::nullopt;
  return it->second;
}

bool isElementwiseUnary(Opcode opcode) {
  return opcode <= Opcode::Tanh;
}

bool isElementwiseBinary(Opcode opcode) {
  return (opcode >= Opcode::Add && opcode <= Opcode::Xor) || opcode == Opcode::StochasticConvert;
}

} // namespace mote::hlo
