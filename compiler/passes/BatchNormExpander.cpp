//===- BatchNormExpander.cpp - batch-norm-* as reductions and arithmetic -===//
//
// Rewrites batch-norm-training, -inference and -grad into reduce, broadcast
// and elementwise instructions with the formulas of XLA's BatchNormExpander
// (the reference evaluator's BatchNorm.cpp states them), so code generation
// needs no special case and later passes see ordinary arithmetic.
//
// f16 and bf16 operands are computed in f32 and rounded once at the end, as
// XLA's CPU backend does; f32 and f64 are computed in their own type (the
// evaluator uses double, so f32 results differ by rounding only).
//
//===----------------------------------------------------------------------===//

#include "passes/ComputationEdit.h"
#include "passes/Passes.h"

#include "hlo/Literal.h"

namespace mote::passes {

using hlo::Computation;
using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;
using hlo::Shape;

namespace {

bool isBatchNorm(Opcode opcode) {
  return opcode == Opcode::BatchNormTraining || opcode == Opcode::BatchNormInference ||
         opcode == Opcode::BatchNormGrad;
}

/// Appends instructions to one computation next to the batch norm they
/// replace. Every full-size value has the operand's dimensions and layout;
/// per-feature values are rank 1.
class Expansion {
public:
  Expansion(hlo::Module &module, Computation &computation, NameTable &names,
            const Instruction &batchNorm)
      : module_(module), computation_(computation), names_(names), batchNorm_(batchNorm) {
    const Shape &operand = batchNorm.operand(0)->shape();
    type_ = operand.elementType();
    compute_ =
        (type_ == PrimitiveType::F16 || type_ == PrimitiveType::BF16) ? PrimitiveType::F32 : type_;
    feature_ = batchNorm.attributes().featureIndex;
    full_ = operand;
    full_.setElementType(compute_);
    perFeature_ = Shape::array(compute_, {operand.dim(feature_)});
    const int64_t features = operand.dim(feature_);
    count_ = features ? double(operand.elementCount() / features) : 0.0;
  }

  Instruction *operand(size_t i) { return convert(batchNorm_.operand(i), compute_); }

  Instruction *convert(Instruction *value, PrimitiveType type) {
    if (value->shape().elementType() == type)
      return value;
    Shape shape = value->shape();
    shape.setElementType(type);
    return add(Opcode::Convert, shape, {value});
  }

  Instruction *scalar(double value) {
    auto constant = makeInstruction(Opcode::Constant, names_.unique("bn.constant"),
                                    Shape::scalar(compute_), {});
    if (compute_ == PrimitiveType::F64)
      constant->mutableAttributes().literal = hlo::Literal::scalar<double>(compute_, value);
    else
      constant->mutableAttributes().literal =
          hlo::Literal::scalar<float>(compute_, static_cast<float>(value));
    return computation_.addInstruction(std::move(constant));
  }

  /// A per-feature value (or scalar) spread over the operand's shape.
  Instruction *spread(Instruction *value) {
    auto instruction =
        makeInstruction(Opcode::Broadcast, names_.unique("bn.broadcast"), full_, {value});
    if (value->shape().rank() == 1)
      instruction->mutableAttributes().dimensions = {feature_};
    return computation_.addInstruction(std::move(instruction));
  }

  /// A scalar constant spread over the per-feature shape.
  Instruction *perFeature(double value) {
    auto instruction = makeInstruction(Opcode::Broadcast, names_.unique("bn.broadcast"),
                                       perFeature_, {scalar(value)});
    return computation_.addInstruction(std::move(instruction));
  }

  /// Sums a full-size value over every dimension but the feature's.
  Instruction *sumPerFeature(Instruction *value) {
    auto instruction =
        makeInstruction(Opcode::Reduce, names_.unique("bn.sum"), perFeature_, {value, scalar(0.0)});
    for (int64_t d = 0; d < full_.rank(); ++d)
      if (d != feature_)
        instruction->mutableAttributes().dimensions.push_back(d);
    instruction->addCalledComputation(adder());
    return computation_.addInstruction(std::move(instruction));
  }

  Instruction *binary(Opcode opcode, Instruction *a, Instruction *b) {
    return add(opcode, a->shape(), {a, b});
  }
  Instruction *unary(Opcode opcode, Instruction *a) { return add(opcode, a->shape(), {a}); }

  /// The result in the batch norm's element type.
  Instruction *result(Instruction *value) { return convert(value, type_); }

  Instruction *tuple(llvm::ArrayRef<Instruction *> elements) {
    std::vector<Shape> shapes;
    for (Instruction *element : elements)
      shapes.push_back(element->shape());
    return add(Opcode::Tuple, Shape::tuple(std::move(shapes)), elements);
  }

  double count() const { return count_; }
  double epsilon() const { return batchNorm_.attributes().epsilon; }

private:
  Instruction *add(Opcode opcode, Shape shape, llvm::ArrayRef<Instruction *> operands) {
    // Keep the operand's layout on full-size values; drop it elsewhere.
    if (shape.rank() != full_.rank() || shape.dims() != full_.dims())
      shape.setLayout(std::nullopt);
    return computation_.addInstruction(
        makeInstruction(opcode, names_.unique("bn." + std::string(hlo::opcodeName(opcode))),
                        std::move(shape), operands));
  }

  /// The scalar addition every sum uses, one per element type and module.
  Computation *adder() {
    std::string name = "bn.add." + std::string(hlo::primitiveTypeName(compute_));
    if (Computation *existing = module_.findComputation(name))
      return existing;
    auto computation = std::make_unique<Computation>(name);
    Shape scalarShape = Shape::scalar(compute_);
    Instruction *lhs =
        computation->addInstruction(makeInstruction(Opcode::Parameter, "lhs", scalarShape, {}));
    auto rhsOwned = makeInstruction(Opcode::Parameter, "rhs", scalarShape, {});
    rhsOwned->mutableAttributes().parameterNumber = 1;
    Instruction *rhs = computation->addInstruction(std::move(rhsOwned));
    computation->setRoot(
        computation->addInstruction(makeInstruction(Opcode::Add, "sum", scalarShape, {lhs, rhs})));
    return module_.addComputation(std::move(computation));
  }

  hlo::Module &module_;
  Computation &computation_;
  NameTable &names_;
  const Instruction &batchNorm_;
  PrimitiveType type_, compute_;
  int64_t feature_ = 0;
  Shape full_, perFeature_;
  double count_ = 0;
};

/// y = (x - mean) * scale * rsqrt(variance + epsilon) + offset.
Instruction *normalize(Expansion &e, Instruction *x, Instruction *scale, Instruction *offset,
                       Instruction *mean, Instruction *variance) {
  Instruction *shifted = e.binary(Opcode::Add, variance, e.perFeature(e.epsilon()));
  Instruction *factor = e.binary(Opcode::Multiply, scale, e.unary(Opcode::Rsqrt, shifted));
  Instruction *centered = e.binary(Opcode::Subtract, x, e.spread(mean));
  Instruction *scaled = e.binary(Opcode::Multiply, centered, e.spread(factor));
  return e.binary(Opcode::Add, scaled, e.spread(offset));
}

Instruction *expandInference(Expansion &e) {
  return e.result(
      normalize(e, e.operand(0), e.operand(1), e.operand(2), e.operand(3), e.operand(4)));
}

Instruction *expandTraining(Expansion &e) {
  Instruction *x = e.operand(0);
  Instruction *inverseCount = e.perFeature(e.count() ? 1.0 / e.count() : 0.0);
  Instruction *mean = e.binary(Opcode::Multiply, e.sumPerFeature(x), inverseCount);
  Instruction *meanOfSquares =
      e.binary(Opcode::Multiply, e.sumPerFeature(e.binary(Opcode::Multiply, x, x)), inverseCount);
  // var = E[x^2] - E[x]^2, as XLA computes it.
  Instruction *variance =
      e.binary(Opcode::Subtract, meanOfSquares, e.binary(Opcode::Multiply, mean, mean));
  Instruction *y = normalize(e, x, e.operand(1), e.operand(2), mean, variance);
  return e.tuple({e.result(y), e.result(mean), e.result(variance)});
}

Instruction *expandGrad(Expansion &e) {
  Instruction *x = e.operand(0), *scale = e.operand(1), *mean = e.operand(2);
  Instruction *variance = e.operand(3), *dy = e.operand(4);
  Instruction *sumDy = e.sumPerFeature(dy);
  Instruction *centered = e.binary(Opcode::Subtract, x, e.spread(mean));
  Instruction *sumDyCentered = e.sumPerFeature(e.binary(Opcode::Multiply, dy, centered));
  Instruction *varianceEpsilon = e.binary(Opcode::Add, variance, e.perFeature(e.epsilon()));
  Instruction *inverseDeviation = e.unary(Opcode::Rsqrt, varianceEpsilon);
  Instruction *gradScale = e.binary(Opcode::Multiply, sumDyCentered, inverseDeviation);
  // dx = scale * rsqrt(var + eps) / N * (N dy - sum(dy) - (x - mean) *
  //      sum(dy (x - mean)) / (var + eps)).
  Instruction *factor =
      e.binary(Opcode::Multiply, e.binary(Opcode::Multiply, scale, inverseDeviation),
               e.perFeature(e.count() ? 1.0 / e.count() : 0.0));
  Instruction *centeredFactor = e.binary(Opcode::Divide, sumDyCentered, varianceEpsilon);
  Instruction *scaledDy = e.binary(Opcode::Multiply, dy, e.spread(e.scalar(e.count())));
  Instruction *inner = e.binary(Opcode::Subtract, scaledDy, e.spread(sumDy));
  inner = e.binary(Opcode::Subtract, inner,
                   e.binary(Opcode::Multiply, centered, e.spread(centeredFactor)));
  Instruction *dx = e.binary(Opcode::Multiply, e.spread(factor), inner);
  return e.tuple({e.result(dx), e.result(gradScale), e.result(sumDy)});
}

} // namespace

llvm::Expected<bool> BatchNormExpander::run(hlo::Module &module) {
  NameTable names(module);
  bool changed = false;
  // Computations are appended (the adders) while iterating: walk by index.
  for (size_t c = 0; c < module.computations().size(); ++c) {
    Computation &computation = *module.computations()[c];
    std::vector<Instruction *> batchNorms;
    for (const auto &instruction : computation.instructions())
      if (isBatchNorm(instruction->opcode()) &&
          hlo::isFloatingPoint(instruction->operand(0)->shape().elementType()))
        batchNorms.push_back(instruction.get());
    for (Instruction *batchNorm : batchNorms) {
      Expansion expansion(module, computation, names, *batchNorm);
      Instruction *replacement =
          batchNorm->opcode() == Opcode::BatchNormInference  ? expandInference(expansion)
          : batchNorm->opcode() == Opcode::BatchNormTraining ? expandTraining(expansion)
                                                             : expandGrad(expansion);
      replaceAllUses(computation, batchNorm, replacement);
      changed = true;
    }
    if (!batchNorms.empty())
      restoreDefinitionOrder(computation);
  }
  return changed;
}

} // namespace mote::passes
