//===- FftEmitter.cpp - fft (FFT, IFFT, RFFT, IRFFT) ----------------------===//
//
// The reference evaluator's transform (eval/LinearAlgebra.cpp) step for step,
// so results agree bit for bit: every value widens to complex<double>; each
// transformed dimension in turn runs, line by line, a radix-2 FFT
// (bit-reversal permutation, then butterflies u + w t, u - w t per stage)
// when its length is a power of two and a direct DFT (sum over j of
// x[j] w^(jk), in order from zero) otherwise; inverse transforms divide the
// whole array by the length after each dimension. RFFT drops the upper half
// of the last dimension's spectrum; IRFFT runs the inverse over the outer
// dimensions of the half spectrum, extends the last one Hermitian-
// symmetrically and keeps the real part. Results round once to the result
// type.
//
// The twiddle factors cos/sin(+-2 pi k / L) are computed here, on the host,
// with the same expression the evaluator evaluates, and live in read-only
// data; the products w x use the C99 Annex G complex multiply, as
// std::complex<double> does. The leading (batch) dimensions are independent
// transforms, run one after the other through one double-precision work
// array on the stack that holds a single transform: kMaxWorkBytes bounds
// that (a 256 x 256 two-dimensional spectrum), not the batch.
//
//===----------------------------------------------------------------------===//

#include "codegen/ComplexOps.h"
#include "codegen/FunctionEmitter.h"

#include <algorithm>
#include <cmath>

namespace mote::codegen {

namespace {

using hlo::PrimitiveType;

/// The largest work array (16 bytes an element) one transform may use.
constexpr int64_t kMaxWorkBytes = int64_t(1) << 20;

struct FftPlan {
  hlo::FftType type = hlo::FftType::FFT;
  llvm::SmallVector<int64_t, 4> inDims;   ///< the operand's dims
  llvm::SmallVector<int64_t, 4> fullDims; ///< the full complex spectrum's dims
  int64_t first = 0;                      ///< first transformed dimension
  int64_t longest = 1;                    ///< the longest transformed dimension
  PrimitiveType inType = PrimitiveType::Invalid, outType = PrimitiveType::Invalid;

  /// The batch dimensions, before `first`.
  llvm::ArrayRef<int64_t> batchDims() const { return llvm::ArrayRef(fullDims).take_front(first); }
  /// The transformed dimensions of `dims` (the operand's, the spectrum's or
  /// the result's), from `first` on.
  llvm::ArrayRef<int64_t> transformed(llvm::ArrayRef<int64_t> dims) const {
    return dims.drop_front(first);
  }
};

int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t result = 1;
  for (int64_t d : dims)
    result *= d;
  return result;
}

bool fail(std::string *why, const std::string &message) {
  if (why)
    *why = message;
  return false;
}

bool planFft(const hlo::Instruction &instruction, FftPlan &plan, std::string *why) {
  if (instruction.operandCount() != 1 || !instruction.operand(0)->shape().isArray() ||
      !instruction.shape().isArray())
    return fail(why, "fft takes one array and returns one");
  const hlo::Shape &in = instruction.operand(0)->shape();
  const hlo::Shape &out = instruction.shape();
  const hlo::DimVector &lengths = instruction.attributes().fftLength;
  const int64_t count = static_cast<int64_t>(lengths.size());
  plan.type = instruction.attributes().fftType;
  if (count < 1 || count > 3 || in.rank() < count || out.rank() != in.rank())
    return fail(why, "fft transforms 1 to 3 trailing dimensions of its operand");
  const bool real = plan.type == hlo::FftType::RFFT;
  const bool inverseReal = plan.type == hlo::FftType::IRFFT;
  plan.first = in.rank() - count;
  plan.inDims.assign(in.dims().begin(), in.dims().end());
  plan.fullDims = plan.inDims;
  plan.fullDims.back() = lengths.back();
  for (int64_t i = 0; i < count; ++i) {
    const int64_t dim = plan.first + i, length = lengths[i];
    const bool last = i == count - 1;
    if (length < 1)
      return fail(why, "fft of length " + std::to_string(length) +
                           " is not supported by code generation");
    if (in.dim(dim) != (last && inverseReal ? length / 2 + 1 : length))
      return fail(why, "fft_length does not match the operand " + in.toString(false));
    plan.longest = std::max(plan.longest, length);
  }
  llvm::SmallVector<int64_t, 4> outDims = plan.fullDims;
  if (real)
    outDims.back() = lengths.back() / 2 + 1;
  if (out.dims() != llvm::ArrayRef<int64_t>(outDims))
    return fail(why, "fft result " + out.toString(false) + " does not match its operand");
  plan.inType = in.elementType();
  plan.outType = out.elementType();
  const bool wide = plan.inType == PrimitiveType::F64 || plan.inType == PrimitiveType::C128;
  const PrimitiveType complexType = wide ? PrimitiveType::C128 : PrimitiveType::C64;
  const PrimitiveType realType = wide ? PrimitiveType::F64 : PrimitiveType::F32;
  if (plan.inType != (real ? realType : complexType) ||
      plan.outType != (inverseReal ? realType : complexType))
    return fail(why, "fft " + hlo::fftTypeName(plan.type).str() + " cannot take " +
                         hlo::primitiveTypeName(plan.inType).str() + " to " +
                         hlo::primitiveTypeName(plan.outType).str());
  // One transform's spectrum (the transformed dimensions are at least 1 long).
  int64_t elements = 1;
  for (int64_t d : plan.transformed(plan.fullDims)) {
    if (elements > kMaxWorkBytes / 16 / d)
      return fail(why, "an fft of " + in.toString(false) + " needs a work array of more than " +
                           std::to_string(kMaxWorkBytes >> 10) +
                           " KiB per transform, more than code generation puts on the stack");
    elements *= d;
  }
  return true;
}

bool isPowerOfTwo(int64_t n) { return n > 1 && (n & (n - 1)) == 0; }

/// Emits the transforms of one fft over its work array of complex<double>.
class FftKernel {
public:
  FftKernel(llvm::IRBuilderBase &b, llvm::Module &module, llvm::Type *indexType, llvm::Value *work)
      : b_(b), module_(module), indexType_(indexType), work_(work),
        element_(llvm::StructType::get(b.getContext(), {b.getDoubleTy(), b.getDoubleTy()})) {}

  llvm::Type *elementType() const { return element_; }
  llvm::Value *at(llvm::Value *linear) { return b_.CreateInBoundsGEP(element_, work_, linear); }
  Complex load(llvm::Value *linear) {
    return splitComplex(b_, b_.CreateLoad(element_, at(linear)));
  }
  void store(llvm::Value *linear, Complex value) {
    b_.CreateStore(joinComplex(b_, value), at(linear));
  }
  llvm::Value *constant(int64_t value) { return llvm::ConstantInt::get(indexType_, value); }

  /// Transforms along `dim` every line of the positions in `space` (row
  /// major), the array being laid out row-major with `layout` dims.
  void transformDimension(llvm::ArrayRef<int64_t> layout, llvm::ArrayRef<int64_t> space,
                          int64_t dim, bool inverse, llvm::Value *lineBuffer) {
    llvm::SmallVector<int64_t, 4> outer(space.begin(), space.end());
    outer[dim] = 1;
    const int64_t n = layout[dim];
    int64_t stride = 1;
    for (size_t d = dim + 1; d < layout.size(); ++d)
      stride *= layout[d];
    emitLoopNest(b_, indexType_, outer, [&](IndexRef index) {
      llvm::Value *base = emitLinearIndex(b_, indexType_, layout, index);
      if (isPowerOfTwo(n))
        radix2(base, n, stride, inverse);
      else // also n = 1, where the product with w = 1 - 0i normalises -0
        direct(base, n, stride, inverse, lineBuffer);
    });
    if (!inverse)
      return;
    // value /= n on every value the evaluator holds at this point.
    llvm::Value *length = llvm::ConstantFP::get(b_.getDoubleTy(), double(n));
    emitLoopNest(b_, indexType_, space, [&](IndexRef index) {
      llvm::Value *linear = emitLinearIndex(b_, indexType_, layout, index);
      Complex value = load(linear);
      store(linear, {b_.CreateFDiv(value.re, length), b_.CreateFDiv(value.im, length)});
    });
  }

private:
  /// cos and sin of sign * 2 pi * m / length for the given (m, length)
  /// pairs, interleaved, as a read-only table.
  llvm::GlobalVariable *twiddles(llvm::ArrayRef<std::pair<int64_t, int64_t>> angles, bool inverse,
                                 const llvm::Twine &name) {
    const double sign = inverse ? 1.0 : -1.0;
    std::vector<double> values;
    for (auto [m, length] : angles) {
      // The evaluator's expression, evaluated in the same order.
      const double angle = sign * 2.0 * M_PI * double(m) / double(length);
      values.push_back(std::cos(angle));
      values.push_back(std::sin(angle));
    }
    llvm::Constant *data = llvm::ConstantDataArray::get(b_.getContext(), values);
    auto *global = new llvm::GlobalVariable(module_, data->getType(), /*isConstant=*/true,
                                            llvm::GlobalValue::PrivateLinkage, data, name);
    global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return global;
  }

  Complex twiddle(llvm::GlobalVariable *table, llvm::Value *index) {
    llvm::Type *f64 = b_.getDoubleTy();
    llvm::Value *at = b_.CreateShl(index, 1);
    return {b_.CreateLoad(f64, b_.CreateInBoundsGEP(f64, table, at)),
            b_.CreateLoad(f64, b_.CreateInBoundsGEP(f64, table, b_.CreateAdd(at, constant(1))))};
  }

  llvm::Value *position(llvm::Value *base, llvm::Value *i, int64_t stride) {
    return b_.CreateAdd(base, b_.CreateMul(i, constant(stride)));
  }

  void radix2(llvm::Value *base, int64_t n, int64_t stride, bool inverse) {
    // Bit-reversal permutation: swap i and j = reverse(i) when i < j.
    std::vector<int32_t> reversed(n);
    for (int64_t i = 1, j = 0; i < n; ++i) {
      int64_t bit = n >> 1;
      for (; j & bit; bit >>= 1)
        j ^= bit;
      j ^= bit;
      reversed[i] = int32_t(j);
    }
    llvm::Constant *data = llvm::ConstantDataArray::get(b_.getContext(), reversed);
    auto *table = new llvm::GlobalVariable(module_, data->getType(), true,
                                           llvm::GlobalValue::PrivateLinkage, data, "fft.reverse");
    table->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    emitCountedLoop(
        b_, constant(n),
        [&](llvm::Value *i) {
          llvm::Value *j = b_.CreateZExtOrTrunc(
              b_.CreateLoad(b_.getInt32Ty(), b_.CreateInBoundsGEP(b_.getInt32Ty(), table, i)),
              indexType_);
          llvm::Function *function = b_.GetInsertBlock()->getParent();
          llvm::BasicBlock *swap = llvm::BasicBlock::Create(b_.getContext(), "fft.swap", function);
          llvm::BasicBlock *next = llvm::BasicBlock::Create(b_.getContext(), "fft.next", function);
          b_.CreateCondBr(b_.CreateICmpULT(i, j), swap, next);
          b_.SetInsertPoint(swap);
          llvm::Value *pi = position(base, i, stride), *pj = position(base, j, stride);
          llvm::Value *vi = b_.CreateLoad(element_, at(pi)), *vj = b_.CreateLoad(element_, at(pj));
          b_.CreateStore(vj, at(pi));
          b_.CreateStore(vi, at(pj));
          b_.CreateBr(next);
          b_.SetInsertPoint(next);
        },
        "fft.rev");

    // Stage by stage; the table holds every stage's factors, stage `length`
    // starting at length / 2 - 1.
    std::vector<std::pair<int64_t, int64_t>> angles;
    for (int64_t length = 2; length <= n; length <<= 1)
      for (int64_t k = 0; k < length / 2; ++k)
        angles.push_back({k, length});
    llvm::GlobalVariable *factors = twiddles(angles, inverse, "fft.twiddles");
    for (int64_t length = 2; length <= n; length <<= 1) {
      const int64_t half = length / 2;
      emitCountedLoop(
          b_, constant(n / length),
          [&](llvm::Value *block) {
            llvm::Value *start = b_.CreateMul(block, constant(length));
            emitCountedLoop(
                b_, constant(half),
                [&](llvm::Value *k) {
                  Complex w = twiddle(factors, b_.CreateAdd(k, constant(half - 1)));
                  llvm::Value *lo = position(base, b_.CreateAdd(start, k), stride);
                  llvm::Value *hi =
                      position(base, b_.CreateAdd(b_.CreateAdd(start, k), constant(half)), stride);
                  Complex u = load(lo);
                  Complex t = emitComplexMultiply(b_, w, load(hi));
                  store(lo, {b_.CreateFAdd(u.re, t.re), b_.CreateFAdd(u.im, t.im)});
                  store(hi, {b_.CreateFSub(u.re, t.re), b_.CreateFSub(u.im, t.im)});
                },
                "fft.k");
          },
          "fft.block");
    }
  }

  void direct(llvm::Value *base, int64_t n, int64_t stride, bool inverse, llvm::Value *line) {
    emitCountedLoop(
        b_, constant(n),
        [&](llvm::Value *j) {
          b_.CreateStore(b_.CreateLoad(element_, at(position(base, j, stride))),
                         b_.CreateInBoundsGEP(element_, line, j));
        },
        "fft.copy");
    std::vector<std::pair<int64_t, int64_t>> angles;
    for (int64_t m = 0; m < n; ++m)
      angles.push_back({m, n});
    llvm::GlobalVariable *factors = twiddles(angles, inverse, "fft.dft");
    llvm::Value *zero = llvm::ConstantFP::get(b_.getDoubleTy(), 0.0);
    emitCountedLoop(
        b_, constant(n),
        [&](llvm::Value *k) {
          llvm::Value *sum = joinComplex(b_, {zero, zero});
          llvm::BasicBlock *entry = b_.GetInsertBlock();
          // The sum is carried through memory of the outlined function's
          // frame: a stack slot LLVM promotes to registers.
          llvm::Function *function = entry->getParent();
          llvm::IRBuilder<> front(&function->getEntryBlock(), function->getEntryBlock().begin());
          llvm::AllocaInst *slot = front.CreateAlloca(element_, nullptr, "fft.sum");
          b_.CreateStore(sum, slot);
          emitCountedLoop(
              b_, constant(n),
              [&](llvm::Value *j) {
                llvm::Value *m = b_.CreateURem(b_.CreateMul(j, k), constant(n));
                Complex x = splitComplex(
                    b_, b_.CreateLoad(element_, b_.CreateInBoundsGEP(element_, line, j)));
                Complex product = emitComplexMultiply(b_, x, twiddle(factors, m));
                Complex current = splitComplex(b_, b_.CreateLoad(element_, slot));
                b_.CreateStore(joinComplex(b_, {b_.CreateFAdd(current.re, product.re),
                                                b_.CreateFAdd(current.im, product.im)}),
                               slot);
              },
              "fft.j");
          b_.CreateStore(b_.CreateLoad(element_, slot), at(position(base, k, stride)));
        },
        "fft.out");
  }

  llvm::IRBuilderBase &b_;
  llvm::Module &module_;
  llvm::Type *indexType_;
  llvm::Value *work_;
  llvm::StructType *element_;
};

} // namespace

bool isFftSupported(const hlo::Instruction &instruction, std::string *why) {
  FftPlan plan;
  return planFft(instruction, plan, why);
}

void FunctionEmitter::emitFft(const hlo::Instruction &instruction) {
  const BufferSlice &out = assignment_.slice(&instruction);
  FftPlan plan;
  // An empty result (a zero-length batch dimension) has nothing to compute.
  if (out.kind == BufferSlice::Kind::Empty || !planFft(instruction, plan, nullptr) ||
      instruction.shape().elementCount() == 0)
    return;
  emitOutlined(instruction, [&] {
    llvm::IRBuilderBase &b = builder_;
    llvm::LLVMContext &context = module_.getContext();
    const hlo::Shape &shape = instruction.shape();
    llvm::ArrayRef<int64_t> inDims = plan.transformed(plan.inDims);
    llvm::ArrayRef<int64_t> fullDims = plan.transformed(plan.fullDims);
    llvm::ArrayRef<int64_t> outDims = plan.transformed(shape.dims());
    llvm::StructType *element = llvm::StructType::get(context, {b.getDoubleTy(), b.getDoubleTy()});
    llvm::Value *work = createLocal(llvm::ArrayType::get(element, product(fullDims)), "fft.work");
    llvm::Value *line = createLocal(llvm::ArrayType::get(element, plan.longest), "fft.line");
    FftKernel kernel(b, module_, indexType_, work);
    const hlo::Instruction &operand = *instruction.operand(0);
    llvm::Value *in = address(assignment_.slice(&operand));
    llvm::Value *result = address(out);
    const bool inverseReal = plan.type == hlo::FftType::IRFFT;
    const int rank = static_cast<int>(fullDims.size());

    emitLoopNest(b, indexType_, plan.batchDims(), [&](IndexRef batch) {
      llvm::Value *position = emitLinearIndex(b, indexType_, plan.batchDims(), batch);
      llvm::Value *inBase = b.CreateMul(position, kernel.constant(product(inDims)));
      llvm::Value *outBase = b.CreateMul(position, kernel.constant(product(outDims)));

      // Load: the transform's operand values widened to complex<double>, at
      // their places in the full spectrum's layout (IRFFT's half spectrum
      // fills the start of each last-dimension row).
      emitLoopNest(b, indexType_, inDims, [&](IndexRef index) {
        llvm::Value *at = b.CreateAdd(inBase, emitLinearIndex(b, indexType_, inDims, index));
        llvm::Value *value = loadElement(b, plan.inType, elementAt(plan.inType, in, at));
        value = emitConvertOp(b, plan.inType, PrimitiveType::C128, value);
        b.CreateStore(value, kernel.at(emitLinearIndex(b, indexType_, fullDims, index)));
      });

      if (inverseReal) {
        for (int d = 0; d < rank - 1; ++d)
          kernel.transformDimension(fullDims, inDims, d, /*inverse=*/true, line);
        // Hermitian extension: x[k] = conj(x[n - k]) for k >= n / 2 + 1.
        const int64_t n = fullDims.back(), half = inDims.back();
        llvm::SmallVector<int64_t, 4> upper(fullDims.begin(), fullDims.end());
        upper.back() = n - half;
        if (n > half)
          emitLoopNest(b, indexType_, upper, [&](IndexRef index) {
            llvm::SmallVector<llvm::Value *, 4> to(index.begin(), index.end()), from = to;
            to.back() = b.CreateAdd(index.back(), kernel.constant(half));
            from.back() = b.CreateSub(kernel.constant(n - half), index.back());
            Complex value = kernel.load(emitLinearIndex(b, indexType_, fullDims, from));
            kernel.store(emitLinearIndex(b, indexType_, fullDims, to),
                         {value.re, b.CreateFNeg(value.im)});
          });
        kernel.transformDimension(fullDims, fullDims, rank - 1, /*inverse=*/true, line);
      } else {
        const bool inverse = plan.type == hlo::FftType::IFFT;
        for (int d = 0; d < rank; ++d)
          kernel.transformDimension(fullDims, fullDims, d, inverse, line);
      }

      // Store, rounding once: RFFT keeps the first n / 2 + 1 of each row,
      // IRFFT the real parts.
      emitLoopNest(b, indexType_, outDims, [&](IndexRef index) {
        llvm::Value *value =
            b.CreateLoad(element, kernel.at(emitLinearIndex(b, indexType_, fullDims, index)));
        llvm::Value *stored =
            inverseReal
                ? emitConvertOp(b, PrimitiveType::F64, plan.outType, splitComplex(b, value).re)
                : emitConvertOp(b, PrimitiveType::C128, plan.outType, value);
        llvm::Value *at = b.CreateAdd(outBase, emitLinearIndex(b, indexType_, outDims, index));
        storeElement(b, plan.outType, stored, elementAt(plan.outType, result, at));
      });
    });
  });
}

} // namespace mote::codegen
