//===- Random.cpp - rng and rng-bit-generator -----------------------------===//
//
// rng-bit-generator is bit-exact with XLA's RngBitGeneratorExpander: the
// state is [key, counter...]; Threefry (state u64[2]) hashes counter + i for
// the elements, Philox (state u64[2], whose counter is (state[1], state[0]),
// or u64[3], counter (state[1], state[2])) hashes 128-bit counter + i into
// four words each. rng_default is Philox, as on XLA's CPU and GPU backends.
// Types narrower than 32 bits take the low bits of a 32-bit draw.
//
// rng's values are unspecified by XLA. Here they come from Philox-4x32 under
// the key EvaluatorOptions::rngSeed with the counter Evaluator::rngState(),
// which advances by the blocks used: reproducible for a given seed and
// sequence of rng ops. uniform maps 24 (53 for f64) random bits to [0, 1)
// and then to [a, b); integers take a + bits mod (b - a); normal uses the
// Box-Muller transform.
//
//===----------------------------------------------------------------------===//

#include "eval/RandomBits.h"

#include "eval/IndexSpace.h"
#include "eval/OpEvaluators.h"
#include "eval/OperandChecks.h"

#include "hlo/Diagnostics.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace mote::eval {

using hlo::errorAt;
using hlo::Literal;
using hlo::PrimitiveType;

std::array<uint32_t, 2> threeFry2x32(std::array<uint32_t, 2> key, std::array<uint32_t, 2> counter) {
  static constexpr int rotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t schedule[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  uint32_t x0 = counter[0] + schedule[0];
  uint32_t x1 = counter[1] + schedule[1];
  for (int block = 0; block < 5; ++block) {
    for (int round = 0; round < 4; ++round) {
      const int r = rotations[(block % 2) * 4 + round];
      x0 += x1;
      x1 = (x1 << r) | (x1 >> (32 - r));
      x1 ^= x0;
    }
    // Key injection after every four rounds.
    x0 += schedule[(block + 1) % 3];
    x1 += schedule[(block + 2) % 3] + uint32_t(block + 1);
  }
  return {x0, x1};
}

std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 2> key, std::array<uint32_t, 4> counter) {
  std::array<uint32_t, 4> x = counter;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(x[0]) * 0xD2511F53u;
    const uint64_t p1 = uint64_t(x[2]) * 0xCD9E8D57u;
    x = {uint32_t(p1 >> 32) ^ x[1] ^ key[0], uint32_t(p1), uint32_t(p0 >> 32) ^ x[3] ^ key[1],
         uint32_t(p0)};
    key = {key[0] + 0x9E3779B9u, key[1] + 0xBB67AE85u};
  }
  return x;
}

namespace {

std::array<uint32_t, 2> split(uint64_t value) { return {uint32_t(value), uint32_t(value >> 32)}; }

/// A 128-bit counter as (low, high).
struct Counter128 {
  uint64_t low, high;
  Counter128 plus(uint64_t n) const {
    uint64_t sum = low + n;
    return {sum, high + (sum < low ? 1 : 0)};
  }
  std::array<uint32_t, 4> words() const {
    return {uint32_t(low), uint32_t(low >> 32), uint32_t(high), uint32_t(high >> 32)};
  }
};

/// Philox bits: `count` values of 32 (or 64) bits starting at `counter`;
/// returns the number of 128-bit blocks used.
uint64_t philoxBits(std::array<uint32_t, 2> key, Counter128 counter, int64_t count, bool wide,
                    std::vector<uint64_t> &bits) {
  bits.resize(count);
  const int64_t words = wide ? 2 * count : count;
  const uint64_t blocks = uint64_t(words + 3) / 4;
  for (uint64_t i = 0; i < blocks; ++i) {
    std::array<uint32_t, 4> out = philox4x32(key, counter.plus(i).words());
    if (wide) {
      for (int j = 0; j < 2; ++j)
        if (int64_t(2 * i + j) < count)
          bits[2 * i + j] = uint64_t(out[2 * j]) | (uint64_t(out[2 * j + 1]) << 32);
    } else {
      for (int j = 0; j < 4; ++j)
        if (int64_t(4 * i + j) < count)
          bits[4 * i + j] = out[j];
    }
  }
  return blocks;
}

/// Threefry bits for `dims` (see GetThreeFryInputsAndUpdatedState and
/// SplitShapeIntoHalves in prng.cc); returns how far the counter advances.
uint64_t threeFryBits(std::array<uint32_t, 2> key, uint64_t counter, llvm::ArrayRef<int64_t> dims,
                      bool wide, std::vector<uint64_t> &bits) {
  int64_t count = 1;
  for (int64_t d : dims)
    count *= d;
  bits.resize(count);
  if (wide) {
    for (int64_t i = 0; i < count; ++i) {
      std::array<uint32_t, 2> out = threeFry2x32(key, split(counter + uint64_t(i)));
      bits[i] = uint64_t(out[0]) | (uint64_t(out[1]) << 32);
    }
    return uint64_t(count);
  }
  // 32-bit values: each hash gives two, for neighbours along a split
  // dimension (the first even one, else the first largest).
  if (dims.empty()) {
    bits[0] = threeFry2x32(key, split(counter))[0];
    return 1;
  }
  int64_t splitDim = -1;
  for (size_t d = 0; d < dims.size() && splitDim < 0; ++d)
    if (dims[d] % 2 == 0)
      splitDim = int64_t(d);
  if (splitDim < 0) {
    splitDim = 0;
    for (size_t d = 1; d < dims.size(); ++d)
      if (dims[d] > dims[splitDim])
        splitDim = int64_t(d);
  }
  Index half(dims.begin(), dims.end());
  half[splitDim] = (dims[splitDim] + 1) / 2;
  const Index halfStrides = rowMajorStrides(half);
  int64_t linear = 0;
  forEachIndex(dims, [&](llvm::ArrayRef<int64_t> index) {
    int64_t h = 0;
    for (size_t d = 0; d < index.size(); ++d)
      h += (int64_t(d) == splitDim ? index[d] / 2 : index[d]) * halfStrides[d];
    bits[linear++] = threeFry2x32(key, split(counter + uint64_t(h)))[index[splitDim] % 2];
  });
  int64_t halfCount = 1;
  for (int64_t d : half)
    halfCount *= d;
  return uint64_t(halfCount);
}

/// Stores the low bits of `bits` as the result's elements.
void storeBits(const std::vector<uint64_t> &bits, Literal &result) {
  const int size = hlo::storageBytes(result.shape().elementType());
  for (size_t i = 0; i < bits.size(); ++i)
    std::memcpy(result.bytes().data() + i * size, &bits[i], size); // little-endian host
}

} // namespace

Result evaluateRngBitGenerator(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 1))
    return std::move(error);
  const Literal &state = *operands[0];
  const hlo::Shape &shape = instruction.shape();
  if (state.shape().elementType() != PrimitiveType::U64 || state.shape().rank() != 1)
    return errorAt(instruction, "rng-bit-generator state must be u64[N]");
  if (!shape.isTuple() || shape.tupleSize() != 2 || !shape.tupleElement(1).isArray() ||
      !shape.tupleElement(0).compatible(state.shape()))
    return errorAt(instruction, "rng-bit-generator returns (state, bits) with the state's shape");
  const hlo::Shape &dataShape = shape.tupleElement(1);
  const int bits = hlo::bitWidth(dataShape.elementType());
  if (dataShape.elementType() == PrimitiveType::Pred || hlo::isComplex(dataShape.elementType()) ||
      (bits != 8 && bits != 16 && bits != 32 && bits != 64))
    return unsupportedElementType(instruction, dataShape.elementType());
  const bool wide = bits == 64;
  const int64_t stateSize = state.shape().dim(0);
  const bool philox = instruction.attributes().rngAlgorithm != hlo::RandomAlgorithm::ThreeFry;
  if (philox ? (stateSize != 2 && stateSize != 3) : stateSize != 2)
    return errorAt(instruction, llvm::Twine(philox ? "Philox needs a u64[2] or u64[3]"
                                                   : "Threefry needs a u64[2]") +
                                    " state, got u64[" + llvm::Twine(stateSize) + "]");
  const uint64_t *s = state.data<uint64_t>();
  const std::array<uint32_t, 2> key = split(s[0]);

  Literal newState(shape.tupleElement(0));
  Literal data(dataShape);
  std::vector<uint64_t> values;
  uint64_t *next = newState.data<uint64_t>();
  next[0] = s[0];
  if (philox) {
    Counter128 counter = stateSize == 3 ? Counter128{s[1], s[2]} : Counter128{s[1], s[0]};
    uint64_t blocks = philoxBits(key, counter, dataShape.elementCount(), wide, values);
    Counter128 advanced = counter.plus(blocks);
    next[1] = advanced.low;
    if (stateSize == 3)
      next[2] = advanced.high;
  } else {
    next[1] = s[1] + threeFryBits(key, s[1], dataShape.dims(), wide, values);
  }
  storeBits(values, data);
  std::vector<Literal> elements;
  elements.push_back(std::move(newState));
  elements.push_back(std::move(data));
  return Literal::tuple(std::move(elements));
}

namespace {

/// The largest value of T below `bound` (for results that rounded up to b).
template <typename T> T below(T bound) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return std::nextafter(bound, -std::numeric_limits<T>::infinity());
  } else {
    // bf16/f16: step the sign-magnitude bits toward -inf.
    uint16_t b = bound.bits;
    if ((b & 0x7fffu) == 0)
      b = 0x8001u;
    else if (b & 0x8000u)
      b = uint16_t(b + 1);
    else
      b = uint16_t(b - 1);
    return T::fromBits(b);
  }
}

template <typename T>
llvm::Error fillRandom(const hlo::Instruction &instruction, hlo::RandomDistribution distribution,
                       T a, T b, const std::vector<uint64_t> &bits, Literal &result) {
  T *out = result.data<T>();
  const size_t count = static_cast<size_t>(result.elementCount());
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (distribution != hlo::RandomDistribution::Uniform)
      return errorAt(instruction, "rng_normal needs a floating-point result");
    using U = std::make_unsigned_t<T>;
    const uint64_t range = uint64_t(U(U(b) - U(a)));
    for (size_t i = 0; i < count; ++i)
      out[i] = (b <= a || range == 0) ? a : T(U(U(a) + U(bits[i] % range)));
    return llvm::Error::success();
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                       std::is_same_v<T, hlo::BFloat16> || std::is_same_v<T, hlo::Float16>) {
    // bf16 and f16 compute in f32, like the elementwise ops.
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const double low = double(C(a)), high = double(C(b));
    const int mantissa = std::is_same_v<T, double> ? 53 : 24;
    auto unit = [&](uint64_t x) { return std::ldexp(double(x >> (64 - mantissa)), -mantissa); };
    for (size_t i = 0; i < count; ++i) {
      if (distribution == hlo::RandomDistribution::Uniform) {
        T value = T(C(low + unit(bits[i]) * (high - low)));
        if (low < high && double(C(value)) >= high) // rounded up to b
          value = below(b);
        out[i] = value;
      } else {
        // Box-Muller: u1 in (0, 1] from the high bits, u2 from the low bits.
        const double u1 = 1.0 - unit(bits[i]);
        const double u2 = std::ldexp(double(bits[i] & 0xffffffffu), -32);
        const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
        out[i] = T(C(low + high * z));
      }
    }
    return llvm::Error::success();
  } else {
    return unsupportedElementType(instruction, result.shape().elementType());
  }
}

} // namespace

Result evaluateRng(Evaluator &evaluator, const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 2))
    return std::move(error);
  const PrimitiveType type = instruction.shape().elementType();
  if (!instruction.shape().isArray() || !operands[0]->shape().isScalar() ||
      !operands[1]->shape().isScalar() || operands[0]->shape().elementType() != type ||
      operands[1]->shape().elementType() != type)
    return errorAt(instruction, "rng takes two scalars of its result's element type");
  Literal result(instruction.shape());
  std::vector<uint64_t> bits;
  const Counter128 counter{evaluator.rngState(), 0};
  evaluator.rngState() +=
      philoxBits(split(evaluator.options().rngSeed), counter, result.elementCount(), true, bits);
  const hlo::RandomDistribution distribution = instruction.attributes().distribution;
  llvm::Error error = hlo::visitElementType(
      type,
      [&](auto tag) -> llvm::Error {
        using T = typename decltype(tag)::type;
        return fillRandom<T>(instruction, distribution, operands[0]->get<T>(0),
                             operands[1]->get<T>(0), bits, result);
      },
      [&]() -> llvm::Error { return unsupportedElementType(instruction, type); });
  if (error)
    return std::move(error);
  return result;
}

} // namespace mote::eval
