//===- HeaderWriterTest.cpp - The generated model header ------------------===//
///
/// \file
/// Checks the header's text, then compiles it with the host's C and C++
/// compilers (C99; C++17 without exceptions or RTTI) and runs a program that
/// drives a hand-written model through the generated class.
///
//===----------------------------------------------------------------------===//

#include "output/HeaderWriter.h"
#include "SourceTree.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

using namespace mote;
using codegen::ModelSignature;
using codegen::TensorSignature;
using hlo::PrimitiveType;

namespace {

std::string includeDir() { return (mote::test::sourceTree() / "include").string(); }

TensorSignature tensor(std::string name, PrimitiveType type, llvm::ArrayRef<int64_t> dims,
                       llvm::ArrayRef<int64_t> minorToMajor, uint64_t byteSize) {
  TensorSignature t;
  t.name = std::move(name);
  t.elementType = type;
  t.dims.assign(dims.begin(), dims.end());
  t.minorToMajor.assign(minorToMajor.begin(), minorToMajor.end());
  t.byteSize = byteSize;
  return t;
}

/// y = 2 * x (f32[2,3]), flags = x > 0 (pred[2,3]), bias unused (s8[4]).
ModelSignature demoSignature() {
  ModelSignature s;
  s.name = "demo";
  s.triple = "x86_64-linux-gnu";
  s.cpu = "x86-64";
  s.args.push_back(tensor("x", PrimitiveType::F32, {2, 3}, {1, 0}, 24));
  s.args.push_back(tensor("bias", PrimitiveType::S8, {4}, {0}, 4));
  s.results.push_back(tensor("y", PrimitiveType::F32, {2, 3}, {1, 0}, 24));
  s.results.push_back(tensor("flags", PrimitiveType::Pred, {2, 3}, {0, 1}, 6));
  s.scratchSize = 64;
  s.scratchAlignment = 32;
  return s;
}

/// The model side, by hand: the ABI entry and a minimal descriptor.
constexpr const char *kModelSource = R"(#include <mote/abi.h>
#include <stdint.h>
int32_t demo_entry(const mote_call *call) {
  const float *x = (const float *)call->args[0];
  float *y = (float *)call->results[0];
  uint8_t *flags = (uint8_t *)call->results[1];
  float *scratch = (float *)call->scratch;
  if (((uintptr_t)scratch) % 32 != 0) return 7;
  for (int i = 0; i < 6; ++i) { scratch[i] = 2.0f * x[i]; y[i] = scratch[i]; }
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c)
      flags[c * 2 + r] = x[r * 3 + c] > 0;
  return 0;
}
const mote_model_desc demo_model = {MOTE_MODEL_MAGIC, MOTE_ABI_VERSION};
)";

/// The caller side, through the generated class only.
constexpr const char *kMainSource = R"(#include "demo.h"
#include <stdio.h>
static_assert(demo::kScratchBytes == 64, "scratch bytes");
static_assert(demo::kScratchAlignment == 32, "scratch alignment");
static_assert(demo::kArgCount == 2 && demo::kResultCount == 2, "counts");
static_assert(demo::arg_x_bytes == 24 && demo::result_flags_elements == 6, "sizes");
static_assert(DEMO_RESULT_FLAGS_INDEX == 1 && DEMO_ARG_BIAS_BYTES == 4, "macros");
int main() {
  alignas(32) static unsigned char scratch[demo::kScratchBytes];
  float x[6] = {1, -2, 3, -4, 5, -6}, y[6] = {0};
  signed char bias[4] = {0};
  uint8_t flags[6] = {0};
  demo model(scratch);
  model.set_arg_x(x);
  model.set_arg_bias(bias);
  model.set_result_y(y);
  model.set_result_flags(flags);
  if (model.arg_x() != x || model.result_y() != y) return 10;
  if (demo::descriptor().magic != MOTE_MODEL_MAGIC) return 11;
  int32_t status = model.run();
  if (status != MOTE_CALL_OK) return 12;
  for (int i = 0; i < 6; ++i) printf("%g ", y[i]);
  for (int i = 0; i < 6; ++i) printf("%d", flags[i]);
  printf("\n");
  return 0;
}
)";

struct TempDir {
  llvm::SmallString<128> path;
  TempDir() { REQUIRE(!llvm::sys::fs::createUniqueDirectory("mote-header", path)); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> result(path);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }
};

void writeFile(const std::string &path, llvm::StringRef text) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  REQUIRE(!error);
  os << text;
}

/// Runs `program args...`; returns its exit status, its stdout in `output`.
int run(llvm::StringRef program, std::vector<std::string> args, const TempDir &dir,
        std::string *output = nullptr) {
  auto found = llvm::sys::findProgramByName(program);
  REQUIRE_MESSAGE(bool(found), "not found: " << program.str());
  std::vector<llvm::StringRef> argv = {*found};
  for (const std::string &arg : args)
    argv.push_back(arg);
  std::string outPath = dir.file("stdout.txt");
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(outPath),
                                                std::nullopt};
  int status = llvm::sys::ExecuteAndWait(*found, argv, std::nullopt, redirects, 60);
  if (output) {
    auto buffer = llvm::MemoryBuffer::getFile(outPath);
    REQUIRE(bool(buffer));
    *output = (*buffer)->getBuffer().str();
  }
  return status;
}

} // namespace

TEST_CASE("the header declares the ABI symbols and size constants") {
  std::string text = output::writeHeader(demoSignature());
  CHECK(text.find("#ifndef MOTE_MODEL_DEMO_H") != std::string::npos);
  CHECK(text.find("#include <mote/abi.h>") != std::string::npos);
  CHECK(text.find("int32_t demo_entry(const mote_call *call);") != std::string::npos);
  CHECK(text.find("extern const mote_model_desc demo_model;") != std::string::npos);
  CHECK(text.find("#define DEMO_SCRATCH_BYTES 64ull") != std::string::npos);
  CHECK(text.find("#define DEMO_ARG_X_BYTES 24ull") != std::string::npos);
  CHECK(text.find("#define DEMO_RESULT_FLAGS_INDEX 1") != std::string::npos);
  CHECK(text.find("flags pred[2,3]{0,1}, 6 bytes of uint8_t") != std::string::npos);
  CHECK(text.find("class demo {") != std::string::npos);
  CHECK(text.find("const float *arg_x() const") != std::string::npos);
  CHECK(text.find("void set_arg_bias(const int8_t *data)") != std::string::npos);
  CHECK(text.find("uint8_t *result_flags() const") != std::string::npos);
}

TEST_CASE("a model named like a C++ keyword gets a usable class name") {
  ModelSignature s = demoSignature();
  s.name = "delete";
  std::string text = output::writeHeader(s);
  CHECK(text.find("class delete_ {") != std::string::npos);
  CHECK(text.find("int32_t delete_entry(") != std::string::npos);
}

TEST_CASE("the header compiles as C99 and as C++17 without exceptions or RTTI") {
  TempDir dir;
  ModelSignature empty;
  empty.name = "nothing"; // no arguments, no results: zero-length arrays must not appear
  writeFile(dir.file("demo.h"), output::writeHeader(demoSignature()));
  writeFile(dir.file("nothing.h"), output::writeHeader(empty));
  writeFile(dir.file("use.c"), "#include \"demo.h\"\n#include \"nothing.h\"\n"
                               "int f(const mote_call *c) { return demo_entry(c) + "
                               "DEMO_ARG_COUNT + (int)demo_model.magic + nothing_entry(c); }\n");
  writeFile(dir.file("use.cpp"), "#include \"demo.h\"\n#include \"nothing.h\"\n"
                                 "int g() { nothing n(nullptr); return n.run(); }\n");
  std::string include = "-I" + includeDir();
  CHECK(run("gcc",
            {"-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", include, "-c",
             dir.file("use.c"), "-o", dir.file("use.o")},
            dir) == 0);
  CHECK(run("g++",
            {"-std=c++17", "-fno-exceptions", "-fno-rtti", "-pedantic", "-Wall", "-Wextra",
             "-Werror", include, "-c", dir.file("use.cpp"), "-o", dir.file("usecpp.o")},
            dir) == 0);
}

TEST_CASE("a C++ program runs a model through the generated class") {
  TempDir dir;
  writeFile(dir.file("demo.h"), output::writeHeader(demoSignature()));
  writeFile(dir.file("model.c"), kModelSource);
  writeFile(dir.file("main.cpp"), kMainSource);
  std::string include = "-I" + includeDir();
  REQUIRE(run("gcc",
              {"-std=c99", "-O1", include, "-c", dir.file("model.c"), "-o", dir.file("model.o")},
              dir) == 0);
  REQUIRE(run("g++",
              {"-std=c++17", "-fno-exceptions", "-fno-rtti", "-Wall", "-Werror", include,
               dir.file("main.cpp"), dir.file("model.o"), "-o", dir.file("main")},
              dir) == 0);
  std::string output;
  REQUIRE(run(dir.file("main"), {}, dir, &output) == 0);
  // y = 2x; flags are x > 0 stored column-major ({0,1} layout): (0,0) (1,0) (0,1)...
  CHECK(output == "2 -4 6 -8 10 -12 100110\n");
}
