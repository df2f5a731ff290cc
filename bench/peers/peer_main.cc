//===- peer_main.cc - Command line, timing and files of the C++ peers -----===//

#include "peer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "file_io.h" // runtime/tools: the same files code mote-run uses
#include "mote/mote.h"
#include "npy.h"

namespace bench {
namespace {

const char *g_peer = "peer";

double nowMs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

struct Options {
  std::string model, dir, output;
  int threads = 1;
  long bench = 0;
  bool info = false;
};

[[noreturn]] void usage(const char *problem) {
  fprintf(stderr,
          "%s: %s\nusage: %s --model NAME --dir MODEL_DIR [--threads K] [--bench N] "
          "[--output y.npy] | --info\n",
          g_peer, problem, g_peer);
  exit(2);
}

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--info") {
      options.info = true;
      continue;
    }
    if (i + 1 >= argc)
      usage(("missing value after " + arg).c_str());
    const char *value = argv[++i];
    if (arg == "--model")
      options.model = value;
    else if (arg == "--dir")
      options.dir = value;
    else if (arg == "--output")
      options.output = value;
    else if (arg == "--threads")
      options.threads = atoi(value);
    else if (arg == "--bench")
      options.bench = atol(value);
    else
      usage(("unknown option " + arg).c_str());
  }
  if (!options.info && (options.model.empty() || options.dir.empty()))
    usage("--model and --dir are needed");
  if (options.threads < 1 || options.bench < 0)
    usage("--threads needs a count of at least 1, --bench a count of runs");
  return options;
}

static_assert(MOTE_F32 == 12, "peer.h spells MOTE_F32 as 12");

size_t elementBytes(uint32_t type) {
  return type == MOTE_S8 ? 1 : type == MOTE_F16 ? 2 : 4;
}

void writeOutput(const std::string &path, const Tensor &tensor) {
  const uint8_t *bytes = reinterpret_cast<const uint8_t *>(tensor.data());
  std::vector<uint8_t> encoded =
      mote::npy::encode(tensor.type, tensor.dims.data(), uint32_t(tensor.dims.size()), bytes,
                        tensor.size() * elementBytes(tensor.type));
  std::string error;
  check(mote::io::writeWholeFile(path.c_str(), encoded.data(), encoded.size(), &error),
        path + ": " + error);
}

} // namespace

size_t Tensor::size() const {
  size_t n = 1;
  for (int64_t d : dims)
    n *= size_t(d);
  return n;
}

Tensor zeros(std::vector<int64_t> dims, uint32_t type) {
  Tensor tensor;
  tensor.dims = std::move(dims);
  tensor.type = type;
  const size_t words = (tensor.size() * elementBytes(type) + 3) / 4;
  tensor.storage.assign(words + 4, 0.0f); // + 16 bytes XNNPACK may read
  return tensor;
}

Tensor &Program::add(Tensor tensor) {
  tensors.push_back(std::move(tensor));
  return tensors.back();
}

Tensor &Program::zeros(std::vector<int64_t> dims, uint32_t type) {
  return add(bench::zeros(std::move(dims), type));
}

Prepared finish(std::shared_ptr<Program> program, Tensor &output) {
  Prepared prepared;
  prepared.output = &output;
  prepared.infer = [program] {
    for (auto &step : program->steps)
      step();
  };
  return prepared;
}

void check(bool ok, const std::string &what) {
  if (ok)
    return;
  fprintf(stderr, "%s: %s\n", g_peer, what.c_str());
  exit(1);
}

Tensor ModelFiles::load(const std::string &name) const {
  std::string path = dir_ + "/" + name + ".npy", error;
  std::vector<uint8_t> bytes;
  mote::npy::Array array;
  check(mote::io::readWholeFile(path.c_str(), uint64_t(1) << 34, &bytes, &error) &&
            mote::npy::decode(bytes.data(), bytes.size(), &array, &error),
        path + ": " + error);
  check(array.element_type == MOTE_F32 || array.element_type == MOTE_F16 ||
            array.element_type == MOTE_S8 || array.element_type == MOTE_S32,
        path + ": expected float32, float16, int8 or int32 data");
  Tensor tensor = zeros(array.dims, array.element_type);
  memcpy(tensor.data(), array.data.data(), array.data.size());
  return tensor;
}

int peerMain(int argc, char **argv, const char *peer, const std::map<std::string, Factory> &models,
             const std::function<std::string()> &describe) {
  g_peer = peer;
  Options options = parseOptions(argc, argv);
  if (options.info) {
    std::string names;
    for (const auto &entry : models)
      names += (names.empty() ? "" : ",") + entry.first;
    printf("models=%s%s%s\n", names.c_str(), describe ? " " : "",
           describe ? describe().c_str() : "");
    return 0;
  }
  auto factory = models.find(options.model);
  if (factory == models.end()) {
    fprintf(stderr, "%s: no implementation of model '%s'\n", peer, options.model.c_str());
    return 3;
  }
  Prepared prepared = factory->second(ModelFiles(options.dir), options.threads);
  prepared.infer(); // warm-up, as mote-run does
  if (options.bench > 0) {
    std::vector<double> times;
    for (long i = 0; i < options.bench; ++i) {
      double start = nowMs();
      prepared.infer();
      times.push_back(nowMs() - start);
    }
    std::sort(times.begin(), times.end());
    size_t n = times.size();
    double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    printf("latency_ms min=%.4f median=%.4f runs=%zu\n", times[0], median, n);
  }
  if (!options.output.empty())
    writeOutput(options.output, *prepared.output);
  return 0;
}

} // namespace bench
