//===- ChloSpecial.cpp - CHLO's special functions as HLO ------------------===//

#include "stablehlo/Chlo.h"

namespace mote::stablehlo {

void registerChloSpecialLowerings(llvm::StringMap<OpLowering> &) {}

} // namespace mote::stablehlo
