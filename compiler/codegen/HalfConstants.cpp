//===- HalfConstants.cpp - Small half constants widened at compile time ---===//
//
// A layer's f16 or bf16 bias is added in f32: read as half bits, each value
// would be widened again (vcvtph2ps; a zero extension and a shift for bf16)
// at every use in the epilogue that runs over every output. A small
// constant gets an f32 copy instead, widened here exactly as the code
// widens at run time (f16 NaNs come out quiet with their payload, as F16C's
// and AArch64's conversions give them; bf16 is a shift), and the code reads
// that copy: the add takes it from memory as it is. Scalars stay half bits,
// which fold into the code as immediates; large constants (weights) keep
// their half bits, which the contraction kernels widen in registers. f16
// only where it converts with instructions. bf16 copies paid once the
// epilogues read staged f32 sums (HalfSumStage.h): DS-CNN bf16 1.058 M ->
// 1.038 M instructions per inference, the MobileNetV2 block 11.20 M ->
// 10.96 M (x86-64-v3, callgrind); with the tiles' rounded results read back
// in place they had taken more (1.038 M -> 1.046 M, 11.63 M -> 11.79 M).
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

#include "llvm/ADT/APFloat.h"

#include <algorithm>

namespace mote::codegen {

namespace {

/// Constants of 2 to this many elements get an f32 copy: a bias of up to a
/// thousand channels (4 KiB as f32), not a weight matrix.
constexpr int64_t kMaxWidenedElements = 1024;

/// The f32 bits the target's conversion gives for f16 `bits`.
uint32_t widenedBits(uint16_t bits) {
  const uint32_t sign = uint32_t(bits & 0x8000) << 16;
  if ((bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0) // NaN: quieted, payload kept
    return sign | 0x7fc00000u | (uint32_t(bits & 0x3ff) << 13);
  llvm::APFloat value(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits));
  bool losesInfo = false;
  value.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return uint32_t(value.bitcastToAPInt().getZExtValue());
}

/// The f32 values `bytes` with each whole block of 2 * `lanes` in pair
/// order: its even elements, then its odd ones; a last partial block as it is.
std::vector<uint8_t> inPairOrder(const std::vector<uint8_t> &bytes, int64_t lanes) {
  std::vector<uint8_t> paired(bytes);
  const int64_t block = 2 * lanes, count = int64_t(bytes.size() / 4);
  for (int64_t begin = 0; begin + block <= count; begin += block)
    for (int64_t q = 0; q < lanes; ++q)
      for (int64_t parity = 0; parity < 2; ++parity)
        std::copy_n(&bytes[4 * (begin + 2 * q + parity)], 4,
                    &paired[4 * (begin + parity * lanes + q)]);
  return paired;
}

} // namespace

llvm::Value *FunctionEmitter::readWidenedConstant(const hlo::Instruction &constant, IndexRef index,
                                                  int64_t pairLanes) {
  const int64_t count = constant.shape().elementCount();
  const hlo::Literal *values = constant.constantValue();
  if (!values || !isHalfType(constant.shape().elementType()) || count < 2 ||
      count > kMaxWidenedElements || (pairLanes && constant.shape().rank() != 1))
    return nullptr;
  const bool bf16 = constant.shape().elementType() == hlo::PrimitiveType::BF16;
  if (!bf16 && !convertsF16WithInstructions(builder_))
    return nullptr;
  auto [it, inserted] = widenedConstants_.try_emplace({&constant, pairLanes});
  if (inserted) {
    llvm::ArrayRef<uint8_t> bytes = values->bytes();
    std::vector<uint8_t> widened;
    widened.reserve(bytes.size() * 2);
    for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
      const uint16_t bits = uint16_t(bytes[i] | (bytes[i + 1] << 8));
      const uint32_t wide = bf16 ? uint32_t(bits) << 16 : widenedBits(bits);
      for (int shift = 0; shift < 32; shift += 8)
        widened.push_back(uint8_t(wide >> shift));
    }
    if (pairLanes)
      widened = inPairOrder(widened, pairLanes);
    it->second = readOnlyData(
        std::move(widened), (pairLanes ? "constant.f32.pairs." : "constant.f32.") + constant.name(),
        llvm::Align(16));
  }
  llvm::Value *linear = emitLinearIndex(builder_, indexType_, constant.shape().dims(), index);
  llvm::Value *value = builder_.CreateLoad(
      builder_.getFloatTy(),
      builder_.CreateInBoundsGEP(builder_.getFloatTy(), addressOf(it->second), linear));
  return exactHalfBits(builder_, constant.shape().elementType(), value);
}

} // namespace mote::codegen
