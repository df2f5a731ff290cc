//===- ParserTest.cpp - HLO text grammar: modules, shapes, instructions ---===//
//
// Small hand-written modules, one grammar feature each. Expected values come
// from reading the text, not from running the parser.
//
//===----------------------------------------------------------------------===//

#include "ParserTestUtil.h"

#include "hlo/Printer.h"

using namespace mote::hlo;
using namespace mote::hlo::testing;

TEST_CASE("parser: module header with entry_computation_layout and raw attributes") {
  auto module = parseOk(
      R"(HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[2]{0}, s32[3,4]{0,1}, /*index=2*/pred[], (f32[], u8[1]{0}))->(f32[2]{0}, s32[])}, input_output_alias={ {0}: (0, {}, may-alias) }, replica_count=1

ENTRY %main (a: f32[2], b: s32[3,4], c: pred[], d: (f32[], u8[1])) -> (f32[2], s32[]) {
  %a = f32[2]{0} parameter(0)
  %b = s32[3,4]{0,1} parameter(1)
  %c = pred[] parameter(2)
  %d = (f32[], u8[1]{0}) parameter(3)
  %z = s32[] constant(0)
  ROOT %t = (f32[2]{0}, s32[]) tuple(%a, %z)
}
)");
  REQUIRE(module);
  CHECK(module->name() == "jit_f");
  REQUIRE(module->entryComputationLayout());
  const ProgramShape &layout = *module->entryComputationLayout();
  REQUIRE(layout.parameters.size() == 4);
  CHECK(layout.parameters[1].toString() == "s32[3,4]{0,1}");
  CHECK(layout.parameters[2].toString() == "pred[]");
  CHECK(layout.parameters[3].isTuple());
  CHECK(layout.parameters[3].tupleElement(1).toString() == "u8[1]{0}");
  CHECK(layout.result.toString() == "(f32[2]{0}, s32[])");
  const auto &raw = module->headerAttributes();
  REQUIRE(raw.size() == 3);
  CHECK(raw[0].key == "is_scheduled");
  CHECK(raw[0].value == "true");
  CHECK(raw[1].key == "input_output_alias");
  CHECK(raw[1].value == "{ {0}: (0, {}, may-alias) }");
  CHECK(raw[2].key == "replica_count");
  CHECK(raw[2].value == "1");
  CHECK(module->entry()->name() == "main");
}

TEST_CASE("parser: no header, no ENTRY, no ROOT, trailing colon") {
  auto headless = parseOk(R"(
first {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}
second {
  p = f32[] parameter(0)
  q = f32[] exponential(p)
}
)");
  REQUIRE(headless);
  REQUIRE(headless->computations().size() == 2);
  // The last computation is the entry, its last instruction the root.
  CHECK(headless->entry()->name() == "second");
  CHECK(headless->entry()->root()->name() == "q");

  auto colon = parseOk("HloModule old_style:\nENTRY e {\n  ROOT c = s32[] constant(7)\n}\n");
  REQUIRE(colon);
  CHECK(colon->name() == "old_style");
}

TEST_CASE("parser: stack frame tables before the first computation are skipped") {
  auto module = parseOk(R"(HloModule framed

FileNames
1 "a.py"
2 "b \"quoted\" name.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=0 end_column=9}
2 {file_name_id=2 function_name_id=1 line=5 end_line=6 column=1 end_column=2}

StackFrames
1 {file_location_id=1 parent_frame_id=0}
2 {file_location_id=2 parent_frame_id=1}

ENTRY %e {
  ROOT %c = f32[] constant(1), metadata={op_name="c" stack_frame_id=2}
}
)");
  REQUIRE(module);
  CHECK(module->computations().size() == 1);
  CHECK(module->entry()->root()->attributes().findRaw("metadata")->value ==
        "{op_name=\"c\" stack_frame_id=2}");
}

TEST_CASE("parser: computation headers, forward references, names with and without %") {
  auto module = parseOk(R"(HloModule m

ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4] parameter(0)
  %zero = f32[] constant(0)
  ROOT %sum = f32[] reduce(%p, %zero), dimensions={0}, to_apply=add_later
}

add_later (a: f32[], b: (s32[], f32[])) -> f32[] {
  a = f32[] parameter(0)
  b = (s32[], f32[]) parameter(1)
  ROOT r = f32[] add(a, a)
}
)");
  REQUIRE(module);
  Computation *callee = module->findComputation("add_later");
  REQUIRE(callee);
  CHECK(callee->hasSignature());
  Instruction *sum = find(*module, "sum");
  REQUIRE(sum->calledComputations().size() == 1);
  CHECK(sum->calledComputation(0) == callee);
  CHECK(module->entry()->name() == "main");
  // Locations: a computation starts at ENTRY or its name, an instruction at
  // ROOT or its name.
  CHECK(lineColumn(*module, module->entry()->location()) == "3:1");
  CHECK(lineColumn(*module, callee->location()) == "9:1");
  CHECK(lineColumn(*module, sum->location()) == "6:3");
  CHECK(lineColumn(*module, find(*module, "zero")->location()) == "5:3");
}

TEST_CASE("parser: shapes with layouts, tiling suffixes, dynamic dimensions, tuples, tokens") {
  auto shape = [](const char *text) {
    auto parsed = parseShape(text);
    if (!parsed) {
      FAIL_CHECK(llvm::toString(parsed.takeError()));
      return Shape();
    }
    return *parsed;
  };
  Shape tiled = shape("f32[8,128]{1,0:T(8,128)S(1)}");
  REQUIRE(tiled.layout());
  CHECK(tiled.layout()->minorToMajor == llvm::SmallVector<int64_t, 4>{1, 0});
  CHECK(tiled.layout()->suffix == "T(8,128)S(1)");

  Shape dynamic = shape("s32[<=10,3]");
  CHECK(dynamic.dim(0) == 10);
  CHECK(dynamic.isDynamicDim(0));
  CHECK_FALSE(dynamic.isDynamicDim(1));
  CHECK_FALSE(dynamic.layout());

  Shape nested = shape("(f32[], (s8[2]{0}, token[]), ())");
  REQUIRE(nested.tupleSize() == 3);
  CHECK(nested.tupleElement(1).tupleElement(1).isToken());
  CHECK(nested.tupleElement(2).tupleSize() == 0);

  Shape columnMajor = shape("bf16[2,3,4]{0,1,2}");
  CHECK(columnMajor.layout()->minorToMajor == llvm::SmallVector<int64_t, 4>{0, 1, 2});
  CHECK(shape("f32[]{:T(256)}").layout()->suffix == "T(256)");

  for (const char *type :
       {"pred",       "s2",     "s4",        "s8",       "s16",           "s32",
        "s64",        "u2",     "u4",        "u8",       "u16",           "u32",
        "u64",        "f8e5m2", "f8e4m3",    "f8e4m3fn", "f8e4m3b11fnuz", "f8e5m2fnuz",
        "f8e4m3fnuz", "f8e3m4", "f8e8m0fnu", "bf16",     "f16",           "f32",
        "f64",        "c64",    "c128"}) {
    Shape array = shape((std::string(type) + "[3]").c_str());
    CHECK(primitiveTypeName(array.elementType()) == type);
    CHECK(array.dims() == llvm::ArrayRef<int64_t>{3});
  }

  auto bad = parseShape("f32[2,3]{0}");
  REQUIRE_FALSE(bad);
  CHECK(llvm::toString(bad.takeError()) ==
        "column 9: layout lists 1 dimensions but the shape has 2");
}

TEST_CASE("parser: old typed operands, comments, several instructions on one line") {
  auto module = parseOk(R"(HloModule typed
ENTRY %e (a: f32[2], b: f32[2]) -> f32[2] {
  %a = f32[2]{0} parameter(0) /* a block
  comment */ %b = f32[2]{0} parameter(1) // a line comment
  %s = f32[2]{0} add(f32[2]{0} %a, f32[2]{0} %b), /*index=0*/ metadata={op_name="s"} %t = (f32[2], f32[2]) tuple(%s, %a)
  %g = f32[2] get-tuple-element((f32[2], f32[2]) %t), index=1 ROOT %r = f32[2] multiply(%g, %s)
}
)");
  REQUIRE(module);
  Computation *entry = module->entry();
  REQUIRE(entry->instructionCount() == 6);
  CHECK(entry->root()->name() == "r");
  Instruction *s = find(*module, "s");
  CHECK(s->operand(0)->name() == "a");
  CHECK(s->operand(1)->name() == "b");
  CHECK(s->attributes().findRaw("metadata")->value == "{op_name=\"s\"}");
  CHECK(find(*module, "g")->attributes().tupleIndex == 1);
}

TEST_CASE("parser: instructions without a shape get the inferred one") {
  auto module = parseOk(R"(HloModule shapeless
ENTRY e {
  p0 = f32[8,5,5,4] parameter(0)
  p1 = f32[3,3,4,32] parameter(1)
  conv = convolution(p0, p1), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT e = exponential(conv)
}
)");
  REQUIRE(module);
  // SAME padding keeps 5x5; the kernel's output feature count is 32.
  CHECK(find(*module, "conv")->shape().toString() == "f32[8,5,5,32]");
  CHECK(find(*module, "e")->shape().toString() == "f32[8,5,5,32]");
}

TEST_CASE("parser: nested unnamed operand instructions") {
  auto module = parseOk(R"(HloModule nested
body {
  ROOT add = s32[] add(s32[] parameter(0), s32[] constant(1))
}
ENTRY e {
  x = s32[4] parameter(0)
  ROOT m = s32[4] multiply(x, s32[4] broadcast(s32[] constant(3)), dimensions={})
}
)");
  REQUIRE(module);
  Computation *body = module->findComputation("body");
  REQUIRE(body->instructionCount() == 3);
  Instruction *add = body->root();
  CHECK(add->operand(0)->opcode() == Opcode::Parameter);
  CHECK(add->operand(0)->attributes().parameterNumber == 0);
  CHECK(body->parameterCount() == 1);
  CHECK(add->operand(1)->opcode() == Opcode::Constant);
  CHECK(add->operand(1)->attributes().literal->get<int32_t>(0) == 1);

  Instruction *m = module->entry()->root();
  REQUIRE(m->operandCount() == 2);
  Instruction *broadcast = m->operand(1);
  CHECK(broadcast->opcode() == Opcode::Broadcast);
  CHECK(broadcast->attributes().hasDimensions);
  CHECK(broadcast->attributes().dimensions.empty());
  CHECK(broadcast->operand(0)->attributes().literal->get<int32_t>(0) == 3);
  // Nested instructions come before their user, so text order stays topological.
  CHECK(module->entry()->instructions()[1].get() == broadcast->operand(0));
  CHECK(module->entry()->instructions()[2].get() == broadcast);
}

TEST_CASE("parser: a made-up nested name gives way to a later explicit one") {
  auto module = parseOk(R"(HloModule clash
ENTRY e {
  a = s32[] add(s32[] constant(1), s32[] constant(2))
  constant.1 = s32[] constant(5)
  ROOT r = s32[] add(a, constant.1)
}
)");
  REQUIRE(module);
  Instruction *explicitOne = find(*module, "constant.1");
  CHECK(explicitOne->attributes().literal->get<int32_t>(0) == 5);
  Instruction *a = find(*module, "a");
  CHECK(a->operand(0)->name() != "constant.1");
  CHECK(a->operand(0)->attributes().literal->get<int32_t>(0) == 1);
}

TEST_CASE("parser: called computations in the documented order") {
  auto module = parseOk(R"(HloModule calls
c { p = s32[] parameter(0)
    ROOT lt = pred[] compare(p, p), direction=LT }
b { p = s32[] parameter(0)
    ROOT n = s32[] negate(p) }
sel { x = f32[] parameter(0)
      y = f32[] parameter(1)
      ROOT ge = pred[] compare(x, y), direction=GE }
sum { x = f32[] parameter(0)
      y = f32[] parameter(1)
      ROOT s = f32[] add(x, y) }
t { x = f32[] parameter(0)
    ROOT n = f32[] negate(x) }
f { x = f32[] parameter(0)
    ROOT c = f32[] copy(x) }
ENTRY e {
  i = s32[] parameter(0)
  w = s32[] while(i), body=b, condition=c
  v = f32[4,4] parameter(1)
  src = f32[2,2] parameter(2)
  z = f32[] constant(0)
  sas = f32[4,4] select-and-scatter(v, src, z), window={size=2x2 stride=2x2}, scatter=sum, select=sel
  flag = pred[] parameter(3)
  k = f32[] conditional(flag, z, z), false_computation=f, true_computation=t
  which = s32[] parameter(4)
  br = f32[] conditional(which, z, z, z), branch_computations={t, f, %t}
  fu = f32[] fusion(z), kind=kLoop, calls=t
  cc = f32[] custom-call(z, z), custom_call_target="two", called_computations={sum, %sum}
  ROOT r = f32[] call(z), to_apply=%t
}
)");
  REQUIRE(module);
  auto names = [&](const char *instruction) {
    std::string text;
    for (Computation *callee : find(*module, instruction)->calledComputations())
      text += (text.empty() ? "" : ",") + callee->name().str();
    return text;
  };
  CHECK(names("w") == "c,b");
  CHECK(names("sas") == "sel,sum");
  CHECK(names("k") == "t,f");
  CHECK(names("br") == "t,f,t");
  CHECK(names("fu") == "t");
  CHECK(find(*module, "fu")->attributes().fusionKind == "kLoop");
  CHECK(names("cc") == "sum,sum");
  CHECK(names("r") == "t");
}

TEST_CASE("parser: multi-device and host ops parse") {
  auto module = parseOk(R"(HloModule collectives, num_partitions=2
add { a = f32[] parameter(0)
      b = f32[] parameter(1)
      ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[8] parameter(0)
  ar = f32[8] all-reduce(x), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add
  ag = f32[16] all-gather(ar), channel_id=2, replica_groups={{0,1}}, dimensions={0}
  tok = token[] after-all()
  inf = ((f32[8]), token[]) infeed(tok), infeed_config="cfg"
  snd = (f32[8], u32[], token[]) send(x, tok), channel_id=3
  done = token[] send-done(snd), channel_id=3
  ROOT out = token[] outfeed(x, tok), outfeed_shape=f32[8]{0}, outfeed_config=""
}
)");
  REQUIRE(module);
  Instruction *allReduce = find(*module, "ar");
  CHECK(allReduce->opcode() == Opcode::AllReduce);
  CHECK(allReduce->calledComputation(0)->name() == "add");
  CHECK(allReduce->attributes().findRaw("replica_groups")->value == "{{0,1}}");
  CHECK(find(*module, "ag")->attributes().dimensions == DimVector{0});
  CHECK(find(*module, "out")->attributes().findRaw("outfeed_shape")->value == "f32[8]{0}");
  CHECK(module->headerAttributes()[0].value == "2");
}

TEST_CASE("parser: unknown and multi-token attributes are kept verbatim and in order") {
  auto module = parseOk(R"(HloModule raw
ENTRY e {
  a = f32[2] parameter(0), sharding={devices=[2]0,1}, frontend_attributes={k="v, w"}
  b = f32[2] negate(a), control-predecessors={a}, backend_config={"x": [1, {"y": "}"}]}
  ROOT c = f32[2] custom-call(b), custom_call_target="SetBound", literal=s32[] 1, backend_config="{\"n\": 2}", schedule=SCHEDULE_LATEST
}
)");
  REQUIRE(module);
  const auto &a = find(*module, "a")->attributes().raw;
  REQUIRE(a.size() == 2);
  CHECK(a[0].key == "sharding");
  CHECK(a[0].value == "{devices=[2]0,1}");
  CHECK(a[1].value == "{k=\"v, w\"}");
  const auto &b = find(*module, "b")->attributes().raw;
  REQUIRE(b.size() == 2);
  CHECK(b[0].key == "control-predecessors");
  CHECK(b[1].value == R"({"x": [1, {"y": "}"}]})");
  const InstructionAttributes &c = find(*module, "c")->attributes();
  CHECK(c.customCallTarget == "SetBound");
  REQUIRE(c.raw.size() == 3);
  CHECK(c.raw[0].key == "literal");
  CHECK(c.raw[0].value == "s32[] 1");
  CHECK(c.raw[1].value == R"("{\"n\": 2}")");
  CHECK(c.customCallBackendConfig == R"({"n": 2})");
  CHECK(c.raw[2].value == "SCHEDULE_LATEST");
}

TEST_CASE("parser: a computation's trailing attributes are accepted") {
  auto module = parseOk(R"(HloModule threads
helper {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}, execution_thread="side"
ENTRY e {
  ROOT z = f32[] constant(1)
}
)");
  REQUIRE(module);
  CHECK(module->computations().size() == 2);
}

TEST_CASE("parser: byte order mark and CRLF line ends") {
  auto module = parseOk("\xEF\xBB\xBFHloModule bom\r\nENTRY e {\r\n  x = f32[] parameter(0)\r\n"
                        "  ROOT y = f32[] negate(x)\r\n}\r\n");
  REQUIRE(module);
  CHECK(module->name() == "bom");
  CHECK(lineColumn(*module, module->entry()->root()->location()) == "4:3");
}
