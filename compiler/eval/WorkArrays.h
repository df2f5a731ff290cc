//===- WorkArrays.h - Typed work arrays for dot and convolution -*- C++ -*-===//
///
/// \file
/// Internal to Dot.cpp and Convolution.cpp. Their operands are copied once
/// into contiguous arrays of the accumulation type, in the dimension order the
/// matrix kernel wants, and the result is converted back once at the end.
///
/// The accumulation type follows XLA's CPU backend: operands are converted to
/// the wider of their own type and the result type (OperandUpcaster /
/// ResultCaster); bf16 and f16 compute in f32 and round once; integers wrap
/// in two's complement, which is the same modulo 2^n whatever the width we
/// compute in, so every integer result accumulates in u32 or u64.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_EVAL_WORKARRAYS_H
#define MOTE_EVAL_WORKARRAYS_H

#include "eval/IndexSpace.h"
#include "hlo/Literal.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace mote::eval {

template <typename T>
inline constexpr bool isComplexAccumulator =
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

/// Calls `fn(Acc{})` with the accumulation type for a dot or convolution of
/// `lhs` and `rhs` operands producing `result`.
template <typename Fn>
decltype(auto) visitAccumulator(hlo::PrimitiveType result, hlo::PrimitiveType lhs,
                                hlo::PrimitiveType rhs, Fn &&fn) {
  using hlo::PrimitiveType;
  auto any = [&](auto predicate) { return predicate(result) || predicate(lhs) || predicate(rhs); };
  bool wide =
      any([](PrimitiveType t) { return t == PrimitiveType::F64 || t == PrimitiveType::C128; });
  if (any([](PrimitiveType t) { return hlo::isComplex(t); }))
    return wide ? fn(std::complex<double>{}) : fn(std::complex<float>{});
  if (wide)
    return fn(double{});
  if (any([](PrimitiveType t) { return hlo::isFloatingPoint(t); }))
    return fn(float{});
  if (any([](PrimitiveType t) { return hlo::bitWidth(t) > 32; }) || result == PrimitiveType::Pred)
    return fn(uint64_t{});
  return fn(uint32_t{});
}

/// One stored element converted to the accumulation type.
template <typename Acc, typename From> inline Acc toAccumulator(From value) {
  if constexpr (std::is_same_v<From, bool>)
    return Acc(value ? 1 : 0);
  else if constexpr (std::is_same_v<From, hlo::BFloat16> || std::is_same_v<From, hlo::Float16>)
    return Acc(static_cast<float>(value));
  else if constexpr (isComplexAccumulator<From>) {
    if constexpr (isComplexAccumulator<Acc>)
      return Acc(value.real(), value.imag());
    else
      return static_cast<Acc>(value.real());
  } else if constexpr (isComplexAccumulator<Acc>)
    return Acc(static_cast<typename Acc::value_type>(value), 0);
  else
    return static_cast<Acc>(value);
}

/// An accumulated value converted to the stored result type: floats round to
/// nearest even, integers wrap, floats become integers the way XLA's convert
/// does (truncate toward zero, saturate, NaN to 0).
template <typename To, typename Acc> inline To fromAccumulator(Acc value) {
  if constexpr (isComplexAccumulator<To>) {
    if constexpr (isComplexAccumulator<Acc>)
      return To(static_cast<typename To::value_type>(value.real()),
                static_cast<typename To::value_type>(value.imag()));
    else
      return To(static_cast<typename To::value_type>(value), 0);
  } else if constexpr (isComplexAccumulator<Acc>) {
    return fromAccumulator<To>(value.real());
  } else if constexpr (std::is_same_v<To, bool>) {
    return value != Acc(0);
  } else if constexpr (std::is_same_v<To, hlo::BFloat16> || std::is_same_v<To, hlo::Float16>) {
    return To(static_cast<float>(value));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<Acc>) {
    if (std::isnan(value))
      return To(0);
    if (value <= static_cast<Acc>(std::numeric_limits<To>::lowest()))
      return std::numeric_limits<To>::lowest();
    if (value >= static_cast<Acc>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
    return static_cast<To>(value);
  } else {
    return static_cast<To>(value);
  }
}

/// The row-major walk over `source` dims taken in `order`: the element at
/// position i of the walk is source element `offset(i)`. Reversed dims run
/// from their last index to their first.
struct PermutedWalk {
  Index dims;    ///< sizes in walk order
  Index strides; ///< source strides in walk order (negative when reversed)
  int64_t start = 0;

  PermutedWalk(llvm::ArrayRef<int64_t> sourceDims, llvm::ArrayRef<int64_t> order,
               llvm::ArrayRef<bool> reversed = {}) {
    Index sourceStrides = rowMajorStrides(sourceDims);
    for (int64_t dim : order) {
      dims.push_back(sourceDims[dim]);
      bool reverse = !reversed.empty() && reversed[dim];
      strides.push_back(reverse ? -sourceStrides[dim] : sourceStrides[dim]);
      if (reverse && sourceDims[dim] > 0)
        start += (sourceDims[dim] - 1) * sourceStrides[dim];
    }
  }

  /// Calls `fn(sourceOffset, walkPosition, innerCount, innerStride)` once per
  /// row of the innermost walk dimension.
  template <typename Fn> void forEachRow(Fn &&fn) const {
    for (int64_t d : dims)
      if (d == 0)
        return;
    if (dims.empty()) {
      fn(start, int64_t(0), int64_t(1), int64_t(0));
      return;
    }
    const int64_t rank = static_cast<int64_t>(dims.size());
    const int64_t inner = dims.back();
    Index index(rank - 1, 0);
    llvm::ArrayRef<int64_t> outerDims = llvm::ArrayRef<int64_t>(dims).drop_back();
    int64_t position = 0;
    do {
      int64_t offset = start;
      for (int64_t i = 0; i < rank - 1; ++i)
        offset += index[i] * strides[i];
      fn(offset, position, inner, strides.back());
      position += inner;
    } while (nextIndex(index, outerDims));
  }

  /// The walk dimension the source stores contiguously (stride +-1), if it
  /// is not the innermost one: copying row by row would then read one
  /// element per cache line.
  int64_t transposedDimension() const {
    const int64_t rank = static_cast<int64_t>(dims.size());
    for (int64_t d = 0; d + 1 < rank; ++d)
      if ((strides[d] == 1 || strides[d] == -1) && dims[d] > 1 && dims.back() > 1)
        return d;
    return -1;
  }

  /// Calls fn(sourceOffset, walkPosition) for every element, in 32 x 32
  /// tiles of dimension `q` (see transposedDimension) and the innermost one,
  /// so that both sides of the copy stay in cache.
  template <typename Fn> void forEachTiled(int64_t q, Fn &&fn) const {
    constexpr int64_t tile = 32;
    const int64_t last = static_cast<int64_t>(dims.size()) - 1;
    const Index positionStrides = rowMajorStrides(dims);
    Index outer(dims.begin(), dims.end());
    outer[q] = 1;
    outer[last] = 1;
    forEachIndex(outer, [&](llvm::ArrayRef<int64_t> index) {
      int64_t offset = start, position = 0;
      for (size_t d = 0; d < index.size(); ++d) {
        offset += index[d] * strides[d];
        position += index[d] * positionStrides[d];
      }
      for (int64_t q0 = 0; q0 < dims[q]; q0 += tile)
        for (int64_t l0 = 0; l0 < dims[last]; l0 += tile)
          for (int64_t i = q0; i < std::min(q0 + tile, dims[q]); ++i)
            for (int64_t j = l0; j < std::min(l0 + tile, dims[last]); ++j)
              fn(offset + i * strides[q] + j * strides[last],
                 position + i * positionStrides[q] + j);
    });
  }
};

/// Copies `source` into `destination`, converting to Acc, so that
/// `destination` is row-major over the source dims listed in `order`.
template <typename Acc>
void packPermuted(const hlo::Literal &source, llvm::ArrayRef<int64_t> order, Acc *destination,
                  llvm::ArrayRef<bool> reversed = {}) {
  PermutedWalk walk(source.shape().dims(), order, reversed);
  hlo::visitElementType(
      source.shape().elementType(),
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T *data = source.data<T>();
        if (int64_t q = walk.transposedDimension(); q >= 0) {
          walk.forEachTiled(q, [&](int64_t offset, int64_t position) {
            destination[position] = toAccumulator<Acc>(data[offset]);
          });
          return;
        }
        walk.forEachRow([&](int64_t offset, int64_t position, int64_t count, int64_t stride) {
          const T *from = data + offset;
          Acc *to = destination + position;
          if (stride == 1)
            for (int64_t i = 0; i < count; ++i)
              to[i] = toAccumulator<Acc>(from[i]);
          else
            for (int64_t i = 0; i < count; ++i)
              to[i] = toAccumulator<Acc>(from[i * stride]);
        });
      },
      [] {});
}

/// packPermuted into `storage`, unless `source` already is that array (its
/// elements are Acc and `order` is the identity): then it is read in place.
template <typename Acc>
const Acc *packedView(const hlo::Literal &source, llvm::ArrayRef<int64_t> order,
                      std::vector<Acc> &storage, llvm::ArrayRef<bool> reversed = {}) {
  bool inPlace = llvm::none_of(reversed, [](bool r) { return r; });
  for (size_t i = 0; i < order.size() && inPlace; ++i)
    inPlace = order[i] == static_cast<int64_t>(i);
  inPlace =
      inPlace && hlo::visitElementType(
                     source.shape().elementType(),
                     [](auto tag) { return std::is_same_v<typename decltype(tag)::type, Acc>; },
                     [] { return false; });
  if (inPlace)
    return source.data<Acc>();
  storage.resize(static_cast<size_t>(source.elementCount()));
  packPermuted(source, order, storage.data(), reversed);
  return storage.data();
}

/// The inverse of packPermuted: `source` is row-major over the dims of
/// `result` listed in `order`; each element is converted and stored.
template <typename Acc>
void unpackPermuted(const Acc *source, llvm::ArrayRef<int64_t> order, hlo::Literal &result) {
  PermutedWalk walk(result.shape().dims(), order);
  hlo::visitElementType(
      result.shape().elementType(),
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        T *data = result.data<T>();
        if (int64_t q = walk.transposedDimension(); q >= 0) {
          walk.forEachTiled(q, [&](int64_t offset, int64_t position) {
            data[offset] = fromAccumulator<T>(source[position]);
          });
          return;
        }
        walk.forEachRow([&](int64_t offset, int64_t position, int64_t count, int64_t stride) {
          for (int64_t i = 0; i < count; ++i)
            data[offset + i * stride] = fromAccumulator<T>(source[position + i]);
        });
      },
      [] {});
}

} // namespace mote::eval

#endif // MOTE_EVAL_WORKARRAYS_H
