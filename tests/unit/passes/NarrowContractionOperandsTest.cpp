//===- NarrowContractionOperandsTest.cpp - 8-bit operands for integer sums ===//

#include "PassTestUtil.h"

#include "passes/Passes.h"

namespace mote::passes::test {
namespace {

using hlo::Opcode;
using hlo::PrimitiveType;

/// The type of operand `i` of the entry instruction named `name`.
PrimitiveType operandType(const hlo::Module &module, const char *name, size_t i) {
  for (const auto &instruction : module.entry()->instructions())
    if (instruction->name() == name)
      return instruction->operand(i)->shape().elementType();
  FAIL_CHECK("no instruction " << name);
  return PrimitiveType::Invalid;
}

TEST_CASE("narrow-contraction-operands: converts and small constants give their bytes back") {
  auto module = load(R"(
HloModule m
ENTRY %main (a: s8[2,3], u: u8[3,2], h: s8[3,2]) -> (s32[2,2], s32[2,2], s32[2,2], s16[2,2]) {
  %a = s8[2,3] parameter(0)
  %u = u8[3,2] parameter(1)
  %h = s8[3,2] parameter(2)
  %ca = s32[2,3] convert(%a)
  %cu = s32[3,2] convert(%u)
  %d1 = s32[2,2] dot(%ca, %cu), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %w = s32[3,2] constant({ {-128, 127}, {0, 5}, {-3, 9} })
  %d2 = s32[2,2] dot(%ca, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %wide = s32[3,2] constant({ {300, 1}, {0, 5}, {-3, 9} })
  %d3 = s32[2,2] dot(%ca, %wide), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %a16 = s16[2,3] convert(%a)
  %hu = u16[3,2] convert(%h)
  %d4 = s16[2,2] dot(%a16, %hu), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %r = (s32[2,2], s32[2,2], s32[2,2], s16[2,2]) tuple(%d1, %d2, %d3, %d4)
}
)");
  auto args = randomArguments(*module);
  hlo::Literal before = evaluate(*module, args);
  NarrowContractionOperands pass;
  CHECK(runPass(pass, *module));
  CHECK(operandType(*module, "d1", 0) == PrimitiveType::S8);
  CHECK(operandType(*module, "d1", 1) == PrimitiveType::U8);
  CHECK(operandType(*module, "d2", 1) == PrimitiveType::S8);
  // 300 needs 16 bits.
  CHECK(operandType(*module, "d3", 1) == PrimitiveType::S16);
  // s8 -> s16 keeps every value; s8 -> u16 does not (-1 becomes 65535), and
  // sums of 16-bit operands are not taken modulo 2^32 as 32-bit ones are.
  CHECK(operandType(*module, "d4", 0) == PrimitiveType::S8);
  CHECK(operandType(*module, "d4", 1) == PrimitiveType::U16);
  hlo::Literal after = evaluate(*module, args);
  CHECK_MESSAGE(after.bitwiseEqual(before), before.toString() << " vs " << after.toString());
}

TEST_CASE("narrow-contraction-operands: float contractions and wide values stay") {
  auto module = load(R"(
HloModule m
ENTRY %main (a: s8[2,3], b: s32[3,2]) -> (f32[2,2], s32[2,2]) {
  %a = s8[2,3] parameter(0)
  %b = s32[3,2] parameter(1)
  %fa = f32[2,3] convert(%a)
  %fb = f32[3,2] convert(%b)
  %d1 = f32[2,2] dot(%fa, %fb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %ca = s32[2,3] convert(%a)
  %d2 = s32[2,2] dot(%ca, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %r = (f32[2,2], s32[2,2]) tuple(%d1, %d2)
}
)");
  NarrowContractionOperands pass;
  CHECK(runPass(pass, *module));
  CHECK(operandType(*module, "d1", 0) == PrimitiveType::F32);
  CHECK(operandType(*module, "d2", 0) == PrimitiveType::S8);
  CHECK(operandType(*module, "d2", 1) == PrimitiveType::S32);
}

} // namespace
} // namespace mote::passes::test
