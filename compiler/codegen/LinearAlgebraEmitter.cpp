//===- LinearAlgebraEmitter.cpp - cholesky and triangular-solve -----------===//
//
// Both run the reference evaluator's algorithms (eval/LinearAlgebra.cpp)
// step for step: every element widened to complex<double>, the same loops in
// the same order, complex multiply and divide as std::complex computes them
// (ComplexOps.h), and one rounding to the result type at the end. So results
// are bit-identical to the evaluator's, signs of zero included. The double
// work arrays (the factor, the op(a) matrix and one solution vector) live on
// the stack; matrices whose work would pass kMaxWorkBytes are refused.
//
//===----------------------------------------------------------------------===//

#include "codegen/ComplexOps.h"
#include "codegen/FunctionEmitter.h"

namespace mote::codegen {

using hlo::PrimitiveType;

namespace {

constexpr int64_t kMaxWorkBytes = int64_t(1) << 20;

bool fail(std::string *why, const std::string &message) {
  if (why)
    *why = message;
  return false;
}

bool isFloatOrComplex(PrimitiveType type) {
  return type == PrimitiveType::F16 || type == PrimitiveType::BF16 || type == PrimitiveType::F32 ||
         type == PrimitiveType::F64 || hlo::isComplex(type);
}

/// Complex<double> values in registers and in stack arrays of {re, im}.
class ComplexDouble {
public:
  ComplexDouble(llvm::IRBuilderBase &b, llvm::Type *indexType)
      : b_(b), indexType_(indexType),
        type_(llvm::StructType::get(b.getContext(), {b.getDoubleTy(), b.getDoubleTy()})) {}

  llvm::StructType *type() const { return type_; }
  Complex constant(double re, double im) {
    return {llvm::ConstantFP::get(b_.getDoubleTy(), re),
            llvm::ConstantFP::get(b_.getDoubleTy(), im)};
  }
  Complex load(llvm::Value *array, llvm::Value *index) {
    llvm::Value *slot = b_.CreateInBoundsGEP(type_, array, index);
    return {b_.CreateLoad(b_.getDoubleTy(), b_.CreateStructGEP(type_, slot, 0)),
            b_.CreateLoad(b_.getDoubleTy(), b_.CreateStructGEP(type_, slot, 1))};
  }
  void store(Complex value, llvm::Value *array, llvm::Value *index) {
    llvm::Value *slot = b_.CreateInBoundsGEP(type_, array, index);
    b_.CreateStore(value.re, b_.CreateStructGEP(type_, slot, 0));
    b_.CreateStore(value.im, b_.CreateStructGEP(type_, slot, 1));
  }
  Complex subtract(Complex x, Complex y) {
    return {b_.CreateFSub(x.re, y.re), b_.CreateFSub(x.im, y.im)};
  }
  Complex conj(Complex x) { return {x.re, b_.CreateFNeg(x.im)}; }

  /// Element `linear` of a `type` array, widened as the evaluator loads it.
  Complex widen(PrimitiveType type, llvm::Value *base, llvm::Value *linear) {
    llvm::Value *value =
        loadElement(b_, type, b_.CreateInBoundsGEP(storageType(b_.getContext(), type), base, linear));
    if (hlo::isComplex(type)) {
      Complex parts = splitComplex(b_, value);
      return {b_.CreateFPExt(parts.re, b_.getDoubleTy()), b_.CreateFPExt(parts.im, b_.getDoubleTy())};
    }
    llvm::Value *real = toCompute(b_, type, value);
    if (!real->getType()->isDoubleTy())
      real = b_.CreateFPExt(real, b_.getDoubleTy());
    return {real, llvm::ConstantFP::get(b_.getDoubleTy(), 0.0)};
  }

  /// `value` rounded to `type` into element `linear` (real types keep the
  /// real part; halves go through float, as the evaluator converts them).
  void narrow(PrimitiveType type, Complex value, llvm::Value *base, llvm::Value *linear) {
    llvm::Value *address = b_.CreateInBoundsGEP(storageType(b_.getContext(), type), base, linear);
    llvm::Value *stored;
    if (hlo::isComplex(type)) {
      if (type == PrimitiveType::C64)
        value = {b_.CreateFPTrunc(value.re, b_.getFloatTy()),
                 b_.CreateFPTrunc(value.im, b_.getFloatTy())};
      stored = joinComplex(b_, value);
    } else if (type == PrimitiveType::F64) {
      stored = value.re;
    } else {
      stored = fromCompute(b_, type, b_.CreateFPTrunc(value.re, b_.getFloatTy()));
    }
    storeElement(b_, type, stored, address);
  }

  llvm::Value *index(int64_t value) { return llvm::ConstantInt::get(indexType_, value); }

private:
  llvm::IRBuilderBase &b_;
  llvm::Type *indexType_;
  llvm::StructType *type_;
};

/// Batch of square matrices [..., n, n] of a float or complex type.
bool squareMatrices(const hlo::Shape &shape, std::string *why) {
  if (!shape.isArray() || shape.rank() < 2 || shape.dims().back() != shape.dim(shape.rank() - 2))
    return fail(why, "expected a batch of square matrices, got " + shape.toString(false));
  if (!isFloatOrComplex(shape.elementType()))
    return fail(why, "code generation does not support values of type " + shape.toString(false));
  if (shape.dims().back() * shape.dims().back() * 16 > kMaxWorkBytes)
    return fail(why, "matrices of " + std::to_string(shape.dims().back()) +
                         " rows are too big for code generation's stack work area");
  return true;
}

} // namespace

bool isLinearAlgebraSupported(const hlo::Instruction &instruction, std::string *why) {
  if (instruction.opcode() == Opcode::Cholesky)
    return instruction.operandCount() == 1 &&
           squareMatrices(instruction.operand(0)->shape(), why);
  if (instruction.opcode() != Opcode::TriangularSolve || instruction.operandCount() != 2)
    return fail(why, "not cholesky or triangular-solve");
  const hlo::Shape &a = instruction.operand(0)->shape(), &b = instruction.operand(1)->shape();
  if (!squareMatrices(a, why))
    return false;
  const int64_t rank = a.rank(), m = a.dims().back();
  const bool left = instruction.attributes().leftSide;
  if (!b.isArray() || b.rank() != rank || b.elementType() != a.elementType() ||
      b.dims().drop_back(2) != a.dims().drop_back(2) ||
      (left ? b.dim(rank - 2) : b.dim(rank - 1)) != m)
    return fail(why, "triangular-solve operands " + a.toString(false) + " and " +
                         b.toString(false) + " do not match");
  return true;
}

void FunctionEmitter::emitCholesky(const hlo::Instruction &instruction) {
  const BufferSlice &out = assignment_.slice(&instruction);
  if (out.kind == BufferSlice::Kind::Empty || !isLinearAlgebraSupported(instruction, nullptr))
    return;
  emitOutlined(instruction, [&] {
    llvm::IRBuilderBase &b = builder_;
    ComplexDouble c(b, indexType_);
    const hlo::Shape &shape = instruction.operand(0)->shape();
    const PrimitiveType type = shape.elementType();
    const int64_t n = shape.dims().back();
    const int64_t matrices = n == 0 ? 0 : shape.elementCount() / (n * n);
    const bool lower = instruction.attributes().lower;
    llvm::Value *work = createLocal(llvm::ArrayType::get(c.type(), std::max<int64_t>(n * n, 1)),
                                    "cholesky.factor");
    llvm::AllocaInst *failed = createLocal(b.getInt1Ty(), "cholesky.failed");
    llvm::Value *input = address(assignment_.slice(instruction.operand(0)));
    llvm::Value *result = address(out);
    auto add = [&](llvm::Value *x, llvm::Value *y) { return b.CreateAdd(x, y); };
    auto mul = [&](llvm::Value *x, int64_t y) { return b.CreateMul(x, c.index(y)); };
    emitCountedLoop(b, c.index(matrices), [&](llvm::Value *batch) {
      llvm::Value *first = mul(batch, n * n);
      // (i, j) of M = lower ? A : A^T, and of the factor, stored transposed
      // for the upper case.
      auto at = [&](llvm::Value *i, llvm::Value *j) {
        return lower ? add(mul(i, n), j) : add(mul(j, n), i);
      };
      auto in = [&](llvm::Value *i, llvm::Value *j) { return c.widen(type, input, add(first, at(i, j))); };
      emitCountedLoop(b, c.index(n * n),
                      [&](llvm::Value *k) { c.store(c.constant(0, 0), work, k); }, "zero");
      b.CreateStore(b.getFalse(), failed);
      emitCountedLoop(b, c.index(n), [&](llvm::Value *j) {
        llvm::AllocaInst *pivot = createLocal(c.type(), "pivot");
        c.store(in(j, j), pivot, c.index(0));
        emitCountedLoop(b, j, [&](llvm::Value *k) {
          Complex f = c.load(work, at(j, k));
          c.store(c.subtract(c.load(pivot, c.index(0)), emitComplexMultiply(b, f, c.conj(f))),
                  pivot, c.index(0));
        }, "k");
        llvm::Value *diagonal =
            emitUnaryOp(b, Opcode::Sqrt, PrimitiveType::F64, c.load(pivot, c.index(0)).re);
        b.CreateStore(b.CreateOr(b.CreateLoad(b.getInt1Ty(), failed),
                                 b.CreateFCmpUNO(diagonal, diagonal)),
                      failed);
        c.store({diagonal, llvm::ConstantFP::get(b.getDoubleTy(), 0.0)}, work, at(j, j));
        llvm::Value *below = add(j, c.index(1));
        emitCountedLoop(b, b.CreateSub(c.index(n), below), [&](llvm::Value *t) {
          llvm::Value *i = add(below, t);
          llvm::AllocaInst *sum = createLocal(c.type(), "sum");
          c.store(in(i, j), sum, c.index(0));
          emitCountedLoop(b, j, [&](llvm::Value *k) {
            Complex product = emitComplexMultiply(b, c.load(work, at(i, k)),
                                                  c.conj(c.load(work, at(j, k))));
            c.store(c.subtract(c.load(sum, c.index(0)), product), sum, c.index(0));
          }, "k");
          Complex s = c.load(sum, c.index(0));
          c.store({b.CreateFDiv(s.re, diagonal), b.CreateFDiv(s.im, diagonal)}, work, at(i, j));
        }, "i");
      }, "j");
      // A failed factorization (a negative or NaN pivot) is all NaN.
      llvm::Value *nan = llvm::ConstantFP::getQNaN(b.getDoubleTy());
      Complex nanValue = {nan, hlo::isComplex(type) ? nan : llvm::ConstantFP::get(b.getDoubleTy(), 0.0)};
      llvm::Value *isFailed = b.CreateLoad(b.getInt1Ty(), failed);
      emitCountedLoop(b, c.index(n * n), [&](llvm::Value *k) {
        Complex value = c.load(work, k);
        value = {b.CreateSelect(isFailed, nanValue.re, value.re),
                 b.CreateSelect(isFailed, nanValue.im, value.im)};
        c.narrow(type, value, result, add(first, k));
      }, "store");
    }, "batch");
  });
}

void FunctionEmitter::emitTriangularSolve(const hlo::Instruction &instruction) {
  const BufferSlice &out = assignment_.slice(&instruction);
  if (out.kind == BufferSlice::Kind::Empty || !isLinearAlgebraSupported(instruction, nullptr))
    return;
  emitOutlined(instruction, [&] {
    llvm::IRBuilderBase &b = builder_;
    ComplexDouble c(b, indexType_);
    const hlo::Shape &aShape = instruction.operand(0)->shape();
    const hlo::Shape &bShape = instruction.operand(1)->shape();
    const PrimitiveType type = aShape.elementType();
    const hlo::InstructionAttributes &attributes = instruction.attributes();
    const int64_t rank = aShape.rank(), m = aShape.dims().back();
    const int64_t rows = bShape.dim(rank - 2), columns = bShape.dim(rank - 1);
    const int64_t vectors = attributes.leftSide ? columns : rows;
    const int64_t matrices = m == 0 ? 0 : aShape.elementCount() / (m * m);
    const hlo::TriangularSolveTranspose transpose = attributes.transposeA;
    // s = op(triangle of a), transposed again for the right side, so every
    // case solves s x = rhs for a triangular s (the evaluator's reduction).
    const bool transposed = transpose != hlo::TriangularSolveTranspose::NoTranspose;
    const bool sLower = attributes.lower != transposed != !attributes.leftSide;
    llvm::Value *s = createLocal(llvm::ArrayType::get(c.type(), std::max<int64_t>(m * m, 1)),
                                 "solve.matrix");
    llvm::Value *x = createLocal(llvm::ArrayType::get(c.type(), std::max<int64_t>(m, 1)),
                                 "solve.x");
    llvm::Value *aBase = address(assignment_.slice(instruction.operand(0)));
    llvm::Value *bBase = address(assignment_.slice(instruction.operand(1)));
    llvm::Value *result = address(out);
    auto add = [&](llvm::Value *p, llvm::Value *q) { return b.CreateAdd(p, q); };
    auto mul = [&](llvm::Value *p, int64_t q) { return b.CreateMul(p, c.index(q)); };
    emitCountedLoop(b, c.index(matrices), [&](llvm::Value *batch) {
      llvm::Value *aFirst = mul(batch, m * m), *bFirst = mul(batch, rows * columns);
      emitLoopNest(b, indexType_, {m, m}, [&](IndexRef ij) {
        // Element (i, j) of op(T), where T is the used triangle of a.
        llvm::Value *i = ij[0], *j = ij[1];
        llvm::Value *r = transposed ? j : i, *col = transposed ? i : j;
        llvm::Value *inTriangle =
            attributes.lower ? b.CreateICmpULE(col, r) : b.CreateICmpUGE(col, r);
        llvm::Value *diagonal = b.CreateICmpEQ(r, col);
        // Read a only inside the triangle (the element is in bounds anyway).
        Complex element = c.widen(type, aBase, add(aFirst, add(mul(r, m), col)));
        Complex zero = c.constant(0, 0), one = c.constant(1, 0);
        llvm::Value *useOne = attributes.unitDiagonal ? diagonal : b.getFalse();
        Complex value = {
            b.CreateSelect(inTriangle, b.CreateSelect(useOne, one.re, element.re), zero.re),
            b.CreateSelect(inTriangle, b.CreateSelect(useOne, one.im, element.im), zero.im)};
        if (transpose == hlo::TriangularSolveTranspose::Adjoint)
          value = c.conj(value);
        c.store(value, s, attributes.leftSide ? add(mul(i, m), j) : add(mul(j, m), i));
      });
      emitCountedLoop(b, c.index(vectors), [&](llvm::Value *v) {
        // Element i of the right-hand side v: column v of b, or row v.
        auto element = [&](llvm::Value *i) {
          return add(bFirst, attributes.leftSide ? add(mul(i, columns), v) : add(mul(v, columns), i));
        };
        emitCountedLoop(b, c.index(m), [&](llvm::Value *step) {
          llvm::Value *i = sLower ? step : b.CreateSub(c.index(m - 1), step);
          llvm::AllocaInst *sum = createLocal(c.type(), "sum");
          c.store(c.widen(type, bBase, element(i)), sum, c.index(0));
          // k < i below the diagonal, k > i above it, ascending either way.
          llvm::Value *kBegin = sLower ? c.index(0) : add(i, c.index(1));
          llvm::Value *kCount = sLower ? i : b.CreateSub(c.index(m), kBegin);
          emitCountedLoop(b, kCount, [&](llvm::Value *t) {
            llvm::Value *k = add(kBegin, t);
            Complex product = emitComplexMultiply(b, c.load(s, add(mul(i, m), k)), c.load(x, k));
            c.store(c.subtract(c.load(sum, c.index(0)), product), sum, c.index(0));
          }, "k");
          c.store(emitComplexDivide(b, c.load(sum, c.index(0)), c.load(s, add(mul(i, m), i))), x,
                  i);
        }, "step");
        emitCountedLoop(b, c.index(m), [&](llvm::Value *i) {
          c.narrow(type, c.load(x, i), result, element(i));
        }, "store");
      }, "vector");
    }, "batch");
  });
}

} // namespace mote::codegen
