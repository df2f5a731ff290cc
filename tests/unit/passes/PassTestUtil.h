//===- PassTestUtil.h - Loading, running and comparing in pass tests -*- C++ -*-===//
#ifndef MOTE_TESTS_UNIT_PASSES_PASSTESTUTIL_H
#define MOTE_TESTS_UNIT_PASSES_PASSTESTUTIL_H

#include "eval/Evaluator.h"
#include "hlo/Diagnostics.h"
#include "hlo/Literal.h"
#include "hlo/Loader.h"
#include "hlo/Printer.h"
#include "hlo/Verifier.h"
#include "passes/Pass.h"

#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace mote::passes::test {

inline std::unique_ptr<hlo::Module> load(const std::string &text) {
  auto module = hlo::loadModuleText(text);
  if (!module) {
    FAIL_CHECK("module does not load: " << hlo::errorToString(module.takeError(), nullptr));
    return nullptr;
  }
  return std::move(*module);
}

/// Runs `pass` and checks the module still verifies; returns whether it changed.
inline bool runPass(Pass &pass, hlo::Module &module) {
  llvm::Expected<bool> changed = pass.run(module);
  if (!changed) {
    FAIL_CHECK(pass.name().str() << " failed: "
                                 << hlo::errorToString(changed.takeError(), nullptr));
    return false;
  }
  if (llvm::Error error = hlo::verifyModule(module))
    FAIL_CHECK(pass.name().str() << " left an invalid module: "
                                 << hlo::errorToString(std::move(error), nullptr) << "\n"
                                 << hlo::printModule(module));
  return *changed;
}

/// Like runPass, for passes after which the entry's parameters and root hold
/// the caller's bytes in physical order (checked with the physical view).
inline bool runPassAllowingPhysicalEntry(Pass &pass, hlo::Module &module) {
  Pipeline pipeline;
  pipeline.setVerifyEachPass(true);
  struct Borrowed : Pass {
    Pass &inner;
    bool changed = false;
    explicit Borrowed(Pass &inner) : inner(inner) {}
    llvm::StringRef name() const override { return inner.name(); }
    llvm::Expected<bool> run(hlo::Module &module) override {
      auto result = inner.run(module);
      if (result)
        changed = *result;
      return result;
    }
  };
  auto borrowed = std::make_unique<Borrowed>(pass);
  Borrowed *handle = borrowed.get();
  pipeline.add(std::move(borrowed));
  if (llvm::Error error = pipeline.run(module)) {
    FAIL_CHECK(hlo::errorToString(std::move(error), nullptr));
    return false;
  }
  return handle->changed;
}

inline hlo::Literal evaluate(const hlo::Module &module, const std::vector<hlo::Literal> &args) {
  eval::Evaluator evaluator(module);
  auto result = evaluator.run(args);
  if (!result) {
    FAIL_CHECK("evaluation failed: " << hlo::errorToString(result.takeError(), nullptr));
    return hlo::Literal();
  }
  return std::move(*result);
}

/// Deterministic values for `shape` (small integers, floats with fractions,
/// negative zero and the odd NaN so exactness is really tested).
inline hlo::Literal randomLiteral(const hlo::Shape &shape, std::mt19937 &random) {
  if (shape.isTuple()) {
    std::vector<hlo::Literal> elements;
    for (const hlo::Shape &element : shape.tupleElements())
      elements.push_back(randomLiteral(element, random));
    return hlo::Literal::tuple(std::move(elements));
  }
  hlo::Shape plain = shape;
  plain.setLayout(std::nullopt);
  hlo::Literal literal(plain);
  if (!shape.isArray())
    return literal;
  std::uniform_int_distribution<int> pick(-8, 8);
  for (int64_t i = 0; i < literal.elementCount(); ++i) {
    int value = pick(random);
    if (hlo::isFloatingPoint(shape.elementType())) {
      double x = value / 4.0;
      if (value == 8)
        x = -0.0;
      if (value == -8 && i % 7 == 3)
        x = std::nan("");
      literal.setFromDouble(i, x);
    } else if (shape.elementType() == hlo::PrimitiveType::Pred) {
      literal.setFromInt64(i, value > 0);
    } else if (hlo::isUnsignedInteger(shape.elementType())) {
      literal.setFromInt64(i, value + 8);
    } else {
      literal.setFromInt64(i, value);
    }
  }
  return literal;
}

inline std::vector<hlo::Literal> randomArguments(const hlo::Module &module, unsigned seed = 1) {
  std::mt19937 random(seed);
  std::vector<hlo::Literal> args;
  for (const hlo::Instruction *parameter : module.entry()->parameters())
    args.push_back(randomLiteral(parameter->shape(), random));
  return args;
}

/// The bytes a caller holds for `logical` in the layout of `callerShape`,
/// as a row-major literal of the physical dimensions (computed by indices).
inline hlo::Literal physicalOf(const hlo::Literal &logical, const hlo::Shape &callerShape) {
  hlo::Layout layout = callerShape.layoutOrDefault();
  std::vector<int64_t> order(layout.minorToMajor.rbegin(), layout.minorToMajor.rend());
  std::vector<int64_t> physicalDims;
  for (int64_t d : order)
    physicalDims.push_back(callerShape.dim(d));
  hlo::Literal physical(hlo::Shape::array(callerShape.elementType(), physicalDims));
  int64_t rank = callerShape.rank();
  std::vector<int64_t> index(rank, 0), physicalIndex(rank);
  int storage = hlo::storageBytes(callerShape.elementType());
  for (int64_t linear = 0; linear < logical.elementCount(); ++linear) {
    for (int64_t j = 0; j < rank; ++j)
      physicalIndex[j] = index[order[j]];
    std::memcpy(physical.bytes().data() + physical.linearIndex(physicalIndex) * storage,
                logical.bytes().data() + linear * storage, storage);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < callerShape.dim(d))
        break;
      index[d] = 0;
    }
  }
  return physical;
}

/// physicalOf for every leaf of a (possibly tuple) value.
inline hlo::Literal physicalOfTree(const hlo::Literal &logical, const hlo::Shape &callerShape) {
  if (!callerShape.isTuple())
    return callerShape.isArray() ? physicalOf(logical, callerShape) : logical;
  std::vector<hlo::Literal> elements;
  for (size_t i = 0; i < callerShape.tupleSize(); ++i)
    elements.push_back(physicalOfTree(logical.element(i), callerShape.tupleElement(i)));
  return hlo::Literal::tuple(std::move(elements));
}

inline size_t countOpcode(const hlo::Computation &computation, hlo::Opcode opcode) {
  size_t count = 0;
  for (const auto &instruction : computation.instructions())
    count += instruction->opcode() == opcode;
  return count;
}

} // namespace mote::passes::test

#endif // MOTE_TESTS_UNIT_PASSES_PASSTESTUTIL_H
