//===- BatchNormExpander.cpp - batch-norm-* as reductions and arithmetic -===//
//
// Rewrites batch-norm-training, -inference and -grad into reduce, broadcast
// and elementwise instructions with the formulas of XLA's BatchNormExpander
// (the reference evaluator's BatchNorm.cpp states them), so code generation
// needs no special case and later passes see ordinary arithmetic.
//
// Training and gradients compute in f64 and round once, exactly as the
// reference evaluator does: a float sum over a whole batch of images (a
// million elements per feature) would lose digits, E[x^2] - E[x]^2 cancels,
// and the errors of a training step compound layer after layer. The f64
// values read their inputs through converts that fuse into the loops, so
// nothing full-size is stored in f64. Inference, which deployed models run
// on FPUs without f64, computes element-wise in the operand's type (f32 for
// f16 and bf16, rounded once at the end, as XLA's CPU backend does), with
// the per-feature factor from f64.
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

  Instruction *scalar(double value, PrimitiveType type) {
    auto constant =
        makeInstruction(Opcode::Constant, names_.unique("bn.constant"), Shape::scalar(type), {});
    if (type == PrimitiveType::F64)
      constant->mutableAttributes().literal = hlo::Literal::scalar<double>(type, value);
    else
      constant->mutableAttributes().literal =
          hlo::Literal::scalar<float>(type, static_cast<float>(value));
    return computation_.addInstruction(std::move(constant));
  }
  Instruction *scalar(double value) { return scalar(value, compute_); }

  /// `value` in f64, for sums and per-feature arithmetic.
  Instruction *wide(Instruction *value) { return convert(value, PrimitiveType::F64); }

  /// A per-feature value (or scalar) spread over the operand's shape, in
  /// the element-wise compute type.
  Instruction *spread(Instruction *value) {
    value = convert(value, compute_);
    auto instruction =
        makeInstruction(Opcode::Broadcast, names_.unique("bn.broadcast"), full_, {value});
    instruction->mutableAttributes().hasDimensions = true;
    if (value->shape().rank() == 1)
      instruction->mutableAttributes().dimensions = {feature_};
    instruction->mutableAttributes().hasDimensions = true;
    return computation_.addInstruction(std::move(instruction));
  }

  /// A per-feature value spread over the operand's shape in f64.
  Instruction *wideSpread(Instruction *value) {
    Shape shape = full_;
    shape.setElementType(PrimitiveType::F64);
    auto instruction =
        makeInstruction(Opcode::Broadcast, names_.unique("bn.broadcast"), shape, {wide(value)});
    instruction->mutableAttributes().dimensions = {feature_};
    instruction->mutableAttributes().hasDimensions = true;
    return computation_.addInstruction(std::move(instruction));
  }

  /// A scalar constant spread over the per-feature shape, in f64.
  Instruction *perFeature(double value) {
    Shape shape = Shape::array(PrimitiveType::F64, perFeature_.dims());
    auto instruction = makeInstruction(Opcode::Broadcast, names_.unique("bn.broadcast"), shape,
                                       {scalar(value, PrimitiveType::F64)});
    instruction->mutableAttributes().hasDimensions = true;
    return computation_.addInstruction(std::move(instruction));
  }

  /// Sums a full-size value over every dimension but the feature's, in f64.
  Instruction *sumPerFeature(Instruction *value) {
    value = wide(value);
    Shape shape = Shape::array(PrimitiveType::F64, perFeature_.dims());
    auto instruction = makeInstruction(Opcode::Reduce, names_.unique("bn.sum"), shape,
                                       {value, scalar(0.0, PrimitiveType::F64)});
    instruction->mutableAttributes().hasDimensions = true;
    for (int64_t d = 0; d < full_.rank(); ++d)
      if (d != feature_)
        instruction->mutableAttributes().dimensions.push_back(d);
    instruction->addCalledComputation(adder(PrimitiveType::F64));
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
  /// Epsilon rounded to the element type first, as XLA's expander makes it
  /// a constant of that type.
  double epsilon() const {
    hlo::Literal rounded(Shape::scalar(type_));
    rounded.setFromDouble(0, batchNorm_.attributes().epsilon);
    return rounded.getAsDouble(0);
  }

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
  Computation *adder(PrimitiveType type) {
    std::string name = "bn.add." + std::string(hlo::primitiveTypeName(type));
    if (Computation *existing = module_.findComputation(name))
      return existing;
    auto computation = std::make_unique<Computation>(name);
    Shape scalarShape = Shape::scalar(type);
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

/// scale / sqrt(variance + epsilon) per feature, in f64.
Instruction *normalizingFactor(Expansion &e, Instruction *scale, Instruction *varianceEpsilon) {
  return e.binary(Opcode::Divide, e.wide(scale), e.unary(Opcode::Sqrt, varianceEpsilon));
}

/// y = (x - mean) * factor + offset. Inference computes it in the
/// element-wise type (deployed models run it, on FPUs without f64);
/// training in f64, rounded once, exactly as the evaluator does.
Instruction *normalize(Expansion &e, Instruction *x, Instruction *offset, Instruction *mean,
                       Instruction *factor, bool wide) {
  if (!wide) {
    Instruction *centered = e.binary(Opcode::Subtract, x, e.spread(mean));
    Instruction *scaled = e.binary(Opcode::Multiply, centered, e.spread(factor));
    return e.binary(Opcode::Add, scaled, e.spread(offset));
  }
  Instruction *centered = e.binary(Opcode::Subtract, e.wide(x), e.wideSpread(mean));
  Instruction *scaled = e.binary(Opcode::Multiply, centered, e.wideSpread(factor));
  return e.binary(Opcode::Add, scaled, e.wideSpread(offset));
}

Instruction *expandInference(Expansion &e) {
  Instruction *varianceEpsilon =
      e.binary(Opcode::Add, e.wide(e.operand(4)), e.perFeature(e.epsilon()));
  Instruction *factor = normalizingFactor(e, e.operand(1), varianceEpsilon);
  return e.result(normalize(e, e.operand(0), e.operand(2), e.operand(3), factor, false));
}

Instruction *expandTraining(Expansion &e) {
  Instruction *x = e.operand(0);
  Instruction *count = e.perFeature(e.count());
  Instruction *mean = e.binary(Opcode::Divide, e.sumPerFeature(x), count);
  Instruction *wideX = e.wide(x);
  Instruction *meanOfSquares =
      e.binary(Opcode::Divide, e.sumPerFeature(e.binary(Opcode::Multiply, wideX, wideX)), count);
  // var = E[x^2] - E[x]^2, as XLA computes it.
  Instruction *variance =
      e.binary(Opcode::Subtract, meanOfSquares, e.binary(Opcode::Multiply, mean, mean));
  Instruction *factor = normalizingFactor(
      e, e.operand(1), e.binary(Opcode::Add, variance, e.perFeature(e.epsilon())));
  Instruction *y = normalize(e, x, e.operand(2), mean, factor, true);
  return e.tuple({e.result(y), e.result(mean), e.result(variance)});
}

Instruction *expandGrad(Expansion &e) {
  Instruction *x = e.operand(0), *scale = e.operand(1), *mean = e.operand(2);
  Instruction *variance = e.operand(3), *dy = e.operand(4);
  Instruction *sumDy = e.sumPerFeature(dy);
  // x - mean and every product in f64.
  Instruction *centered = e.binary(Opcode::Subtract, e.wide(x), e.wideSpread(mean));
  Instruction *wideDy = e.wide(dy);
  Instruction *sumDyCentered = e.sumPerFeature(e.binary(Opcode::Multiply, wideDy, centered));
  Instruction *varianceEpsilon =
      e.binary(Opcode::Add, e.wide(variance), e.perFeature(e.epsilon()));
  Instruction *deviation = e.unary(Opcode::Sqrt, varianceEpsilon);
  Instruction *gradScale = e.binary(Opcode::Divide, sumDyCentered, deviation);
  // dx = scale / sqrt(var + eps) / N * (N dy - sum(dy) - (x - mean) *
  //      sum(dy (x - mean)) / (var + eps)), in f64 and rounded once.
  Instruction *factor = e.binary(Opcode::Divide, e.binary(Opcode::Divide, e.wide(scale), deviation),
                                 e.perFeature(e.count()));
  Instruction *centeredFactor = e.binary(Opcode::Divide, sumDyCentered, varianceEpsilon);
  Instruction *inner = e.binary(Opcode::Multiply, e.wideSpread(e.perFeature(e.count())), wideDy);
  inner = e.binary(Opcode::Subtract, inner, e.wideSpread(sumDy));
  inner = e.binary(Opcode::Subtract, inner,
                   e.binary(Opcode::Multiply, centered, e.wideSpread(centeredFactor)));
  Instruction *dx = e.binary(Opcode::Multiply, e.wideSpread(factor), inner);
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
