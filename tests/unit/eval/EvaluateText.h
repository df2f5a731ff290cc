//===- EvaluateText.h - Running small HLO texts in evaluator tests -*- C++ -*-===//
#ifndef MOTE_TESTS_UNIT_EVAL_EVALUATETEXT_H
#define MOTE_TESTS_UNIT_EVAL_EVALUATETEXT_H

#include "eval/Evaluator.h"
#include "hlo/Diagnostics.h"
#include "hlo/Literal.h"
#include "hlo/Loader.h"
#include "hlo/Parser.h"

#include <doctest/doctest.h>

#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace mote::eval::test {

/// Parses and verifies `text`; a failure fails the test with the message.
inline std::unique_ptr<hlo::Module> load(const std::string &text) {
  auto module = hlo::loadModuleText(text);
  if (!module) {
    std::string message = hlo::errorToString(module.takeError(), nullptr);
    FAIL_CHECK("module does not load: " << message);
    return nullptr;
  }
  return std::move(*module);
}

/// Evaluates `text` on `arguments`; the error text (with file:line:col) on
/// failure. `verify` = false skips the verifier, to test what the evaluator
/// itself says about invalid modules.
inline llvm::Expected<hlo::Literal> tryEvaluate(const std::string &text,
                                                std::vector<hlo::Literal> arguments = {},
                                                EvaluatorOptions options = {}, bool verify = true) {
  auto module = verify ? hlo::loadModuleText(text) : hlo::parseModuleText(text);
  if (!module)
    return module.takeError();
  Evaluator evaluator(**module, options);
  auto result = evaluator.run(arguments);
  if (!result) // Keep the location printable: the source dies with the module.
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        hlo::errorToString(result.takeError(), (*module)->sourceManager().get()).c_str());
  return result;
}

/// Evaluates `text`, failing the test (and returning an empty literal) on error.
inline hlo::Literal evaluate(const std::string &text, std::vector<hlo::Literal> arguments = {},
                             EvaluatorOptions options = {}) {
  auto result = tryEvaluate(text, std::move(arguments), options);
  if (!result) {
    FAIL_CHECK("evaluation failed: " << llvm::toString(result.takeError()));
    return hlo::Literal();
  }
  return std::move(*result);
}

/// The error evaluating `text` gives, or "" if it succeeds.
inline std::string evaluationError(const std::string &text,
                                   std::vector<hlo::Literal> arguments = {},
                                   EvaluatorOptions options = {}, bool verify = true) {
  auto result = tryEvaluate(text, std::move(arguments), options, verify);
  if (result)
    return "";
  return llvm::toString(result.takeError());
}

/// An array literal of `dims` holding `values` (as T) in row-major order.
template <typename T>
hlo::Literal literal(hlo::PrimitiveType type, std::vector<int64_t> dims,
                     std::initializer_list<T> values) {
  hlo::Literal result(hlo::Shape::array(type, dims));
  REQUIRE(static_cast<int64_t>(values.size()) == result.elementCount());
  int64_t i = 0;
  for (T value : values)
    result.set<T>(i++, value);
  return result;
}

/// The elements of an array literal as T (T must be its storage type).
template <typename T> std::vector<T> elements(const hlo::Literal &literal) {
  std::vector<T> values;
  if (!literal.shape().isArray())
    return values;
  REQUIRE(sizeof(T) == static_cast<size_t>(hlo::storageBytes(literal.shape().elementType())));
  for (int64_t i = 0; i < literal.elementCount(); ++i)
    values.push_back(literal.get<T>(i));
  return values;
}

/// Raw bits of a float, to compare NaN payloads and signed zeros exactly.
inline uint32_t bitsOf(float value) { return hlo::floatBits(value); }

/// The bf16 / f16 results as floats.
template <typename Half> std::vector<float> halfElements(const hlo::Literal &literal) {
  std::vector<float> values;
  for (Half value : elements<Half>(literal))
    values.push_back(static_cast<float>(value));
  return values;
}

} // namespace mote::eval::test

#endif // MOTE_TESTS_UNIT_EVAL_EVALUATETEXT_H
