//===- HalfConstants.cpp - Small f16 constants widened at compile time ----===//
//
// A layer's f16 bias is added in f32: read as f16 bits, each value would be
// widened again (vcvtph2ps) at every use in the epilogue that runs over
// every output. A small constant gets an f32 copy instead, widened here
// exactly as the target's conversion widens at run time (NaNs come out
// quiet with their payload, as F16C's and AArch64's conversions give them),
// and the code reads that copy: the add takes it from memory as it is.
// Scalars stay f16 bits, which fold into the code as immediates; large
// constants (weights) keep their f16 bits, which the contraction kernels
// widen in registers. bf16 constants too: their widening is a shift, and
// with f32 copies the DS-CNN and MobileNetV2 block bf16 epilogues took more
// instructions (1.038 M -> 1.046 M and 11.63 M -> 11.79 M per inference on
// x86-64-v3, callgrind), as LLVM vectorised them differently.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

#include "llvm/ADT/APFloat.h"

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

} // namespace

llvm::Value *FunctionEmitter::readWidenedConstant(const hlo::Instruction &constant,
                                                  IndexRef index) {
  const int64_t count = constant.shape().elementCount();
  const hlo::Literal *values = constant.constantValue();
  if (!values || constant.shape().elementType() != hlo::PrimitiveType::F16 || count < 2 ||
      count > kMaxWidenedElements || !convertsF16WithInstructions(builder_))
    return nullptr;
  auto [it, inserted] = widenedConstants_.try_emplace(&constant);
  if (inserted) {
    llvm::ArrayRef<uint8_t> bytes = values->bytes();
    std::vector<uint8_t> widened;
    widened.reserve(bytes.size() * 2);
    for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
      const uint32_t wide = widenedBits(uint16_t(bytes[i] | (bytes[i + 1] << 8)));
      for (int shift = 0; shift < 32; shift += 8)
        widened.push_back(uint8_t(wide >> shift));
    }
    it->second =
        readOnlyData(std::move(widened), "constant.f32." + constant.name(), llvm::Align(16));
  }
  llvm::Value *linear = emitLinearIndex(builder_, indexType_, constant.shape().dims(), index);
  llvm::Value *value = builder_.CreateLoad(
      builder_.getFloatTy(),
      builder_.CreateInBoundsGEP(builder_.getFloatTy(), addressOf(it->second), linear));
  return exactF16Bits(builder_, value);
}

} // namespace mote::codegen
