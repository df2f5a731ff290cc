//===- LinearAlgebra.cpp - cholesky, triangular-solve, fft ----------------===//
//
// All three compute in double (complex<double>) and round once to the result
// type, which makes them at least as accurate as XLA's f32 expansions.
//
// cholesky follows XLA's CholeskyExpander: `lower` factors A = L L^H reading
// only the lower triangle; otherwise A = U^H U reading only the upper one
// (computed as the lower factor of A^T, transposed). The other triangle of
// the result is zero, and a matrix whose pivot is negative or NaN becomes all
// NaN. triangular-solve solves op(a) x = b (left_side) or x op(a) = b for
// op = identity, transpose or adjoint, reading only the `lower` (or upper)
// triangle of a and taking its diagonal as ones when unit_diagonal. fft
// transforms the last fft_length.size() dimensions; IFFT and IRFFT scale by
// 1/N; IRFFT treats its input as the non-negative half of a Hermitian
// spectrum (imaginary parts of the self-conjugate bins are ignored).
//
//===----------------------------------------------------------------------===//

#include "eval/IndexSpace.h"
#include "eval/OpEvaluators.h"
#include "eval/OperandChecks.h"

#include "hlo/Diagnostics.h"

#include <cmath>
#include <complex>
#include <limits>
#include <vector>

namespace mote::eval {

using hlo::errorAt;
using hlo::Literal;
using hlo::PrimitiveType;
using Complex = std::complex<double>;

namespace {

/// The elements of a float or complex literal as complex<double>.
std::vector<Complex> loadComplex(const Literal &literal) {
  std::vector<Complex> values(static_cast<size_t>(literal.elementCount()));
  hlo::visitElementType(
      literal.shape().elementType(),
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T *data = literal.data<T>();
        for (size_t i = 0; i < values.size(); ++i) {
          if constexpr (std::is_same_v<T, std::complex<float>> ||
                        std::is_same_v<T, std::complex<double>>)
            values[i] = Complex(data[i].real(), data[i].imag());
          else if constexpr (std::is_same_v<T, hlo::BFloat16> || std::is_same_v<T, hlo::Float16>)
            values[i] = Complex(static_cast<float>(data[i]), 0);
          else
            values[i] = Complex(static_cast<double>(data[i]), 0);
        }
      },
      [] {});
  return values;
}

/// Stores complex values into a float (real part) or complex literal.
void storeComplex(const std::vector<Complex> &values, Literal &literal) {
  hlo::visitElementType(
      literal.shape().elementType(),
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        T *data = literal.data<T>();
        for (size_t i = 0; i < values.size(); ++i) {
          if constexpr (std::is_same_v<T, std::complex<float>>)
            data[i] = T(float(values[i].real()), float(values[i].imag()));
          else if constexpr (std::is_same_v<T, std::complex<double>>)
            data[i] = values[i];
          else if constexpr (std::is_same_v<T, hlo::BFloat16> || std::is_same_v<T, hlo::Float16>)
            data[i] = T(float(values[i].real()));
          else
            data[i] = static_cast<T>(values[i].real());
        }
      },
      [] {});
}

bool isFloatOrComplex(PrimitiveType type) {
  return type == PrimitiveType::F16 || type == PrimitiveType::BF16 || type == PrimitiveType::F32 ||
         type == PrimitiveType::F64 || hlo::isComplex(type);
}

/// Checks a batch of square matrices: [..., n, n].
llvm::Expected<int64_t> squareSize(const hlo::Instruction &instruction, const hlo::Shape &shape) {
  if (shape.rank() < 2 || shape.dims().back() != shape.dim(shape.rank() - 2))
    return errorAt(instruction,
                   "expected a batch of square matrices, got " + shape.toString(false));
  if (!isFloatOrComplex(shape.elementType()))
    return unsupportedElementType(instruction, shape.elementType());
  return shape.dims().back();
}

} // namespace

Result evaluateCholesky(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 1))
    return std::move(error);
  const Literal &operand = *operands[0];
  auto size = squareSize(instruction, operand.shape());
  if (!size)
    return size.takeError();
  const int64_t n = *size;
  auto result = makeArrayResult(instruction, operand.shape().elementType(), operand.shape().dims());
  if (!result)
    return result.takeError();
  const bool lower = instruction.attributes().lower;
  std::vector<Complex> a = loadComplex(operand);
  std::vector<Complex> out(a.size(), Complex(0));
  const int64_t matrices = n == 0 ? 0 : static_cast<int64_t>(a.size()) / (n * n);
  for (int64_t batch = 0; batch < matrices; ++batch) {
    const Complex *m = a.data() + batch * n * n;
    Complex *l = out.data() + batch * n * n;
    // The lower factor of M = lower ? A : A^T, written transposed when upper.
    auto input = [&](int64_t i, int64_t j) { return lower ? m[i * n + j] : m[j * n + i]; };
    auto factor = [&](int64_t i, int64_t j) -> Complex & {
      return lower ? l[i * n + j] : l[j * n + i];
    };
    bool failed = false;
    for (int64_t j = 0; j < n; ++j) {
      Complex pivot = input(j, j);
      for (int64_t k = 0; k < j; ++k)
        pivot -= factor(j, k) * std::conj(factor(j, k));
      const double diagonal = std::sqrt(pivot.real());
      failed |= std::isnan(diagonal);
      factor(j, j) = diagonal;
      for (int64_t i = j + 1; i < n; ++i) {
        Complex sum = input(i, j);
        for (int64_t k = 0; k < j; ++k)
          sum -= factor(i, k) * std::conj(factor(j, k));
        factor(i, j) = sum / diagonal;
      }
    }
    if (failed)
      std::fill(l, l + n * n,
                Complex(std::numeric_limits<double>::quiet_NaN(),
                        hlo::isComplex(operand.shape().elementType())
                            ? std::numeric_limits<double>::quiet_NaN()
                            : 0.0));
  }
  storeComplex(out, *result);
  return result;
}

Result evaluateTriangularSolve(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 2))
    return std::move(error);
  const Literal &aLiteral = *operands[0];
  const Literal &bLiteral = *operands[1];
  auto size = squareSize(instruction, aLiteral.shape());
  if (!size)
    return size.takeError();
  const int64_t m = *size;
  const hlo::Shape &bShape = bLiteral.shape();
  const hlo::InstructionAttributes &attributes = instruction.attributes();
  const int64_t rank = aLiteral.shape().rank();
  if (bShape.rank() != rank || bShape.elementType() != aLiteral.shape().elementType() ||
      bShape.dims().drop_back(2) != aLiteral.shape().dims().drop_back(2) ||
      (attributes.leftSide ? bShape.dim(rank - 2) : bShape.dim(rank - 1)) != m)
    return errorAt(instruction, "triangular-solve operands " + aLiteral.shape().toString(false) +
                                    " and " + bShape.toString(false) + " do not match");
  auto result = makeArrayResult(instruction, bShape.elementType(), bShape.dims());
  if (!result)
    return result.takeError();
  const int64_t rows = bShape.dim(rank - 2), columns = bShape.dim(rank - 1);
  const int64_t vectors = attributes.leftSide ? columns : rows; // right-hand sides per matrix
  std::vector<Complex> a = loadComplex(aLiteral);
  std::vector<Complex> b = loadComplex(bLiteral);
  const int64_t matrices = m == 0 ? 0 : static_cast<int64_t>(a.size()) / (m * m);
  const hlo::TriangularSolveTranspose transpose = attributes.transposeA;
  // s = op(triangle of a), transposed again for the right side (x s = b is
  // s^T x^T = b^T), so every case solves s x = rhs for a triangular s.
  const bool transposed = transpose != hlo::TriangularSolveTranspose::NoTranspose;
  const bool sLower = attributes.lower != transposed != !attributes.leftSide;
  std::vector<Complex> s(static_cast<size_t>(m * m));
  std::vector<Complex> x(static_cast<size_t>(m));
  for (int64_t batch = 0; batch < matrices; ++batch) {
    const Complex *am = a.data() + batch * m * m;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < m; ++j) {
        // Element (i, j) of op(T), where T is the used triangle of a.
        int64_t r = transposed ? j : i, c = transposed ? i : j;
        bool inTriangle = attributes.lower ? c <= r : c >= r;
        Complex value = !inTriangle                           ? Complex(0)
                        : (r == c && attributes.unitDiagonal) ? Complex(1)
                                                              : am[r * m + c];
        if (transpose == hlo::TriangularSolveTranspose::Adjoint)
          value = std::conj(value);
        if (attributes.leftSide)
          s[i * m + j] = value;
        else
          s[j * m + i] = value;
      }
    Complex *bm = b.data() + batch * rows * columns;
    for (int64_t v = 0; v < vectors; ++v) {
      // The right-hand side: column v of b (left side) or row v (right side).
      auto element = [&](int64_t i) -> Complex & {
        return attributes.leftSide ? bm[i * columns + v] : bm[v * columns + i];
      };
      for (int64_t step = 0; step < m; ++step) {
        const int64_t i = sLower ? step : m - 1 - step;
        Complex sum = element(i);
        for (int64_t k = 0; k < m; ++k)
          if (k != i && (sLower ? k < i : k > i))
            sum -= s[i * m + k] * x[k];
        x[i] = sum / s[i * m + i];
      }
      for (int64_t i = 0; i < m; ++i)
        element(i) = x[i];
    }
  }
  storeComplex(b, *result);
  return result;
}

namespace {

/// In-place DFT of `n` values spaced `stride` apart; `inverse` uses the
/// positive exponent (no scaling). Radix-2 for powers of two, else direct.
void transformLine(Complex *data, int64_t n, int64_t stride, bool inverse,
                   std::vector<Complex> &line, std::vector<Complex> &output) {
  line.resize(n);
  for (int64_t i = 0; i < n; ++i)
    line[i] = data[i * stride];
  const double sign = inverse ? 1.0 : -1.0;
  if (n > 1 && (n & (n - 1)) == 0) {
    for (int64_t i = 1, j = 0; i < n; ++i) { // bit-reversal permutation
      int64_t bit = n >> 1;
      for (; j & bit; bit >>= 1)
        j ^= bit;
      j ^= bit;
      if (i < j)
        std::swap(line[i], line[j]);
    }
    for (int64_t length = 2; length <= n; length <<= 1)
      for (int64_t start = 0; start < n; start += length)
        for (int64_t k = 0; k < length / 2; ++k) {
          const double angle = sign * 2.0 * M_PI * double(k) / double(length);
          const Complex w(std::cos(angle), std::sin(angle));
          const Complex u = line[start + k], t = w * line[start + k + length / 2];
          line[start + k] = u + t;
          line[start + k + length / 2] = u - t;
        }
  } else {
    output.assign(n, Complex(0));
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < n; ++j) {
        const double angle = sign * 2.0 * M_PI * double((j * k) % n) / double(n);
        output[k] += line[j] * Complex(std::cos(angle), std::sin(angle));
      }
    line.swap(output);
  }
  for (int64_t i = 0; i < n; ++i)
    data[i * stride] = line[i];
}

/// Transforms `values` (row-major `dims`) along dimension `dim`.
void transformDimension(std::vector<Complex> &values, llvm::ArrayRef<int64_t> dims, int64_t dim,
                        bool inverse) {
  const int64_t n = dims[dim];
  const Index strides = rowMajorStrides(dims);
  Index outer(dims.begin(), dims.end());
  outer[dim] = 1;
  std::vector<Complex> line, scratch;
  forEachIndex(outer, [&](llvm::ArrayRef<int64_t> index) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset += index[d] * strides[d];
    transformLine(values.data() + offset, n, strides[dim], inverse, line, scratch);
  });
  if (inverse)
    for (Complex &value : values)
      value /= double(n);
}

/// Copies `from` (dims `fromDims`) into a zero array of dims `toDims` (same
/// rank, last dimension may differ) along the common prefix of the last one.
std::vector<Complex> resizeLast(const std::vector<Complex> &from, llvm::ArrayRef<int64_t> fromDims,
                                llvm::ArrayRef<int64_t> toDims) {
  int64_t total = 1;
  for (int64_t d : toDims)
    total *= d;
  std::vector<Complex> to(static_cast<size_t>(total), Complex(0));
  const int64_t fromLast = fromDims.back(), toLast = toDims.back();
  const int64_t rows = fromLast == 0 ? 0 : static_cast<int64_t>(from.size()) / fromLast;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < std::min(fromLast, toLast); ++i)
      to[r * toLast + i] = from[r * fromLast + i];
  return to;
}

} // namespace

Result evaluateFft(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 1))
    return std::move(error);
  const Literal &operand = *operands[0];
  const hlo::Shape &in = operand.shape();
  const hlo::Shape &out = instruction.shape();
  const hlo::DimVector &lengths = instruction.attributes().fftLength;
  const hlo::FftType type = instruction.attributes().fftType;
  const int64_t count = static_cast<int64_t>(lengths.size());
  if (count < 1 || count > 3 || in.rank() < count || !out.isArray() || out.rank() != in.rank())
    return errorAt(instruction, "fft transforms 1 to 3 trailing dimensions of its operand");
  const bool real = type == hlo::FftType::RFFT, inverseReal = type == hlo::FftType::IRFFT;
  // The full complex spectrum's dims: the operand's, or for RFFT/IRFFT with
  // the last dimension at full length.
  Index fullDims(in.dims().begin(), in.dims().end());
  fullDims.back() = lengths.back();
  Index expectedOut = fullDims;
  if (real)
    expectedOut.back() = lengths.back() / 2 + 1;
  bool lengthsMatch = true;
  for (int64_t i = 0; i < count; ++i) {
    int64_t dim = in.rank() - count + i;
    bool last = i == count - 1;
    if (lengths[i] < 0 || (!(last && inverseReal) && in.dim(dim) != lengths[i]) ||
        (last && inverseReal && in.dim(dim) != lengths[i] / 2 + 1))
      lengthsMatch = false;
  }
  if (!lengthsMatch)
    return errorAt(instruction, "fft_length does not match the operand " + in.toString(false));
  const PrimitiveType inType = in.elementType(), outType = out.elementType();
  const bool wide = inType == PrimitiveType::F64 || inType == PrimitiveType::C128;
  const PrimitiveType complexType = wide ? PrimitiveType::C128 : PrimitiveType::C64;
  const PrimitiveType realType = wide ? PrimitiveType::F64 : PrimitiveType::F32;
  const PrimitiveType wantIn = real ? realType : complexType;
  const PrimitiveType wantOut = inverseReal ? realType : complexType;
  if (inType != wantIn || outType != wantOut ||
      (inType != PrimitiveType::F32 && inType != PrimitiveType::F64 && !hlo::isComplex(inType)))
    return errorAt(instruction, "fft " + hlo::fftTypeName(type) + " cannot take " +
                                    hlo::primitiveTypeName(inType) + " to " +
                                    hlo::primitiveTypeName(outType));
  auto result = makeArrayResult(instruction, outType, expectedOut);
  if (!result)
    return result.takeError();

  std::vector<Complex> values = loadComplex(operand);
  const int64_t first = in.rank() - count;
  if (inverseReal) {
    // Inverse over the outer transformed dims on the half spectrum, then
    // extend the last one Hermitian-symmetrically and take the real part.
    for (int64_t d = first; d < in.rank() - 1; ++d)
      transformDimension(values, in.dims(), d, true);
    std::vector<Complex> full = resizeLast(values, in.dims(), fullDims);
    const int64_t n = fullDims.back(), half = in.dims().back();
    const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(full.size()) / n;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = half; k < n; ++k)
        full[r * n + k] = std::conj(full[r * n + (n - k)]);
    transformDimension(full, fullDims, in.rank() - 1, true);
    storeComplex(full, *result);
    return result;
  }
  const bool inverse = type == hlo::FftType::IFFT;
  for (int64_t d = first; d < in.rank(); ++d)
    transformDimension(values, fullDims, d, inverse);
  if (real)
    values = resizeLast(values, fullDims, expectedOut);
  storeComplex(values, *result);
  return result;
}

} // namespace mote::eval
