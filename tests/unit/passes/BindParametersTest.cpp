//===- BindParametersTest.cpp - Bound weights and chosen outputs ----------===//

#include "PassTestUtil.h"

#include "passes/BindParameters.h"

#include "hlo/InputOutputAlias.h"

namespace mote::passes::test {
namespace {

constexpr const char *kPredictStep = R"(
HloModule step, input_output_alias={ {1}: (0, {}, may-alias), {2}: (2, {}, must-alias) }, entry_computation_layout={(f32[2,3]{0,1}, f32[3]{0}, f32[4]{0}, f32[2]{0})->(f32[3]{0}, f32[2,3]{0,1}, f32[4]{0})}
ENTRY %main (w: f32[2,3], b: f32[3], state: f32[4], x: f32[2]) -> (f32[3], f32[2,3], f32[4]) {
  %w = f32[2,3]{0,1} parameter(0)
  %b = f32[3] parameter(1)
  %state = f32[4] parameter(2)
  %x = f32[2] parameter(3)
  %y = f32[3] dot(%x, %w), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  %z = f32[3] add(%y, %b)
  %next = f32[4] negate(%state)
  ROOT %r = (f32[3], f32[2,3]{0,1}, f32[4]) tuple(%z, %w, %next)
}
)";

hlo::Literal filled(const hlo::Shape &shape, float first) {
  hlo::Literal literal(shape);
  for (int64_t i = 0; i < literal.elementCount(); ++i)
    literal.set<float>(i, first + float(i));
  return literal;
}

std::string aliasText(const hlo::Module &module) {
  auto entries = hlo::inputOutputAlias(module);
  REQUIRE(bool(entries));
  return hlo::formatInputOutputAlias(*entries);
}

TEST_CASE("bind-parameters: bound parameters become constants, the rest are renumbered") {
  auto module = load(kPredictStep);
  REQUIRE(module);
  std::vector<BoundParameter> bindings;
  bindings.push_back({0, filled(hlo::Shape::array(hlo::PrimitiveType::F32, {2, 3}), 1)});
  bindings.push_back({1, filled(hlo::Shape::array(hlo::PrimitiveType::F32, {3}), 10)});
  InterfaceChanges changes;
  BindParameters bind(std::move(bindings), &changes);
  CHECK(runPass(bind, *module));

  const hlo::Computation &entry = *module->entry();
  REQUIRE(entry.parameterCount() == 2);
  CHECK(entry.parameter(0)->name() == "state");
  CHECK(entry.parameter(1)->name() == "x");
  const hlo::Instruction *w = entry.findInstruction("w");
  REQUIRE(w);
  CHECK(w->opcode() == hlo::Opcode::Constant);
  // The literal holds logical values; the layout is the parameter's.
  CHECK(w->attributes().literal->get<float>(1) == 2.0f);
  CHECK(w->shape().layout() == hlo::Layout{{0, 1}});
  CHECK(module->entryComputationLayout()->toString() ==
        "(f32[4]{0}, f32[2]{0}) -> (f32[3]{0}, f32[2,3]{0,1}, f32[4]{0})");
  // The alias of bound parameter 0 goes; parameter 2 is now 0.
  CHECK(aliasText(*module) == "{ {2}: (0, {}, must-alias) }");
  REQUIRE(changes.bound.size() == 2);
  CHECK(changes.bound[0].name == "w");
  CHECK(changes.bound[0].bytes == 24);

  // The bound module computes what the unbound one does with those arguments.
  auto original = load(kPredictStep);
  std::vector<hlo::Literal> all = {filled(hlo::Shape::array(hlo::PrimitiveType::F32, {2, 3}), 1),
                                   filled(hlo::Shape::array(hlo::PrimitiveType::F32, {3}), 10),
                                   filled(hlo::Shape::array(hlo::PrimitiveType::F32, {4}), -2),
                                   filled(hlo::Shape::array(hlo::PrimitiveType::F32, {2}), 0.5)};
  std::vector<hlo::Literal> rest = {all[2], all[3]};
  auto expected = eval::Evaluator(*original).run(all);
  auto actual = eval::Evaluator(*module).run(rest);
  REQUIRE(bool(expected));
  REQUIRE(bool(actual));
  CHECK(actual->bitwiseEqual(*expected));
}

TEST_CASE("bind-parameters: wrong shapes, types, numbers and tuples are refused by name") {
  auto check = [](int64_t number, hlo::Shape shape, const std::string &message) {
    auto module = load(kPredictStep);
    REQUIRE(module);
    std::vector<BoundParameter> bindings;
    bindings.push_back({number, hlo::Literal(shape)});
    auto changed = BindParameters(std::move(bindings)).run(*module);
    REQUIRE(!changed);
    CHECK(hlo::errorToString(changed.takeError(), nullptr) == message);
  };
  check(0, hlo::Shape::array(hlo::PrimitiveType::F32, {3, 2}),
        "parameter 0 (%w, f32[2,3]) cannot be bound to f32[3,2] (type and dimensions must "
        "match exactly)");
  check(1, hlo::Shape::array(hlo::PrimitiveType::F64, {3}),
        "parameter 1 (%b, f32[3]) cannot be bound to f64[3] (type and dimensions must match "
        "exactly)");
  check(4, hlo::Shape::array(hlo::PrimitiveType::F32, {3}),
        "there is no parameter 4 to bind (the entry has 4)");

  auto module = load(kPredictStep);
  std::vector<BoundParameter> twice;
  twice.push_back({1, hlo::Literal(hlo::Shape::array(hlo::PrimitiveType::F32, {3}))});
  twice.push_back({1, hlo::Literal(hlo::Shape::array(hlo::PrimitiveType::F32, {3}))});
  auto changed = BindParameters(std::move(twice)).run(*module);
  REQUIRE(!changed);
  CHECK(hlo::errorToString(changed.takeError(), nullptr) ==
        "parameter 1 (%b, f32[3]) is bound twice");
}

TEST_CASE("select-outputs: chosen elements, in order; aliases follow") {
  auto module = load(kPredictStep);
  REQUIRE(module);
  SelectOutputs select(std::vector<int64_t>{2, 0});
  CHECK(runPass(select, *module));
  CHECK(module->entry()->root()->shape().toString(false) == "(f32[4], f32[3])");
  CHECK(module->entryComputationLayout()->result.toString() == "(f32[4]{0}, f32[3]{0})");
  CHECK(aliasText(*module) == "{ {0}: (2, {}, must-alias) }");

  auto identity = load(kPredictStep);
  SelectOutputs all(std::vector<int64_t>{0, 1, 2});
  CHECK(!runPass(all, *identity));
}

TEST_CASE("select-outputs: by default drops results that return a bound parameter") {
  auto module = load(kPredictStep);
  REQUIRE(module);
  Pipeline pipeline;
  InterfaceChanges changes;
  InterfaceOptions options;
  options.bindings.push_back({0, filled(hlo::Shape::array(hlo::PrimitiveType::F32, {2, 3}), 1)});
  buildInterfacePipeline(pipeline, std::move(options), &changes);
  REQUIRE(!pipeline.run(*module));
  CHECK(module->entry()->root()->shape().toString(false) == "(f32[3], f32[4])");
  REQUIRE(changes.droppedResults.size() == 1);
  CHECK(changes.droppedResults[0].index == 1);
  CHECK(changes.droppedResults[0].reason == "returns bound parameter 0 (%w) unchanged");
  // Result 2 (the state) is now result 1; the state parameter is now 1.
  CHECK(aliasText(*module) == "{ {1}: (1, {}, must-alias) }");
}

TEST_CASE("input_output_alias: parsed, printed back, leaves found") {
  auto entries = hlo::parseInputOutputAlias("{ {0}: (17, {}, may-alias), {1, 2}: (3, {0}), "
                                            "{3}: (4, {1, 0}, must-alias) }");
  REQUIRE(bool(entries));
  REQUIRE(entries->size() == 3);
  CHECK((*entries)[1].output == hlo::ShapeIndex{1, 2});
  CHECK(!(*entries)[1].mustAlias);
  CHECK((*entries)[2].mustAlias);
  CHECK(hlo::formatInputOutputAlias(*entries) ==
        "{ {0}: (17, {}, may-alias), {1, 2}: (3, {0}, may-alias), {3}: (4, {1, 0}, "
        "must-alias) }");
  auto empty = hlo::parseInputOutputAlias("{}");
  REQUIRE(bool(empty));
  CHECK(empty->empty());
  auto bad = hlo::parseInputOutputAlias("{ {0}: (x, {}) }");
  REQUIRE(!bad);
  CHECK(hlo::errorToString(bad.takeError(), nullptr) ==
        "input_output_alias: expected a parameter number before 'x, {}) }'");

  hlo::Shape f32 = hlo::Shape::array(hlo::PrimitiveType::F32, {2});
  hlo::Shape nested = hlo::Shape::tuple({f32, hlo::Shape::tuple({f32, f32}), f32});
  CHECK(hlo::flatLeafIndex(nested, {0}) == 0);
  CHECK(hlo::flatLeafIndex(nested, {1, 1}) == 2);
  CHECK(hlo::flatLeafIndex(nested, {2}) == 3);
  CHECK(hlo::flatLeafIndex(nested, {1}) == -1);
  CHECK(hlo::flatLeafIndex(nested, {3}) == -1);
  CHECK(hlo::flatLeafIndex(f32, {}) == 0);
}

} // namespace
} // namespace mote::passes::test
