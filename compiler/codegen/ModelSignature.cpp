//===- ModelSignature.cpp - What a compiled model takes and returns -------===//

#include "codegen/ModelSignature.h"

namespace mote::codegen {

uint8_t abiElementType(hlo::PrimitiveType type) {
  using hlo::PrimitiveType;
  // The wire values of mote_element_type (include/mote/abi.h).
  switch (type) {
  case PrimitiveType::Pred:
    return 1;
  case PrimitiveType::S8:
    return 2;
  case PrimitiveType::S16:
    return 3;
  case PrimitiveType::S32:
    return 4;
  case PrimitiveType::S64:
    return 5;
  case PrimitiveType::U8:
    return 6;
  case PrimitiveType::U16:
    return 7;
  case PrimitiveType::U32:
    return 8;
  case PrimitiveType::U64:
    return 9;
  case PrimitiveType::F16:
    return 10;
  case PrimitiveType::BF16:
    return 11;
  case PrimitiveType::F32:
    return 12;
  case PrimitiveType::F64:
    return 13;
  case PrimitiveType::C64:
    return 14;
  case PrimitiveType::C128:
    return 15;
  case PrimitiveType::S4:
    return 16;
  case PrimitiveType::U4:
    return 17;
  case PrimitiveType::S2:
    return 18;
  case PrimitiveType::U2:
    return 19;
  default:
    return 0;
  }
}

} // namespace mote::codegen
