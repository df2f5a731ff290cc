//===- peer.h - What every C++ peer of the benchmark shares ---------------===//
//
// A peer is one program per library (XNNPACK, Eigen, OpenBLAS) that runs the
// benchmark models from the files bench/models/generate_models.py writes, with
// the same command line and the same output line as `mote-run --bench`:
//
//   peer --model NAME --dir MODEL_DIR [--threads K] [--bench N] [--output y.npy]
//        -> latency_ms min=<x> median=<y> runs=<N>
//
// A peer file defines one factory per model it supports. The factory does all
// the one-time work (reading weights, repacking them, creating operators,
// binding buffers) and returns the inference alone, which is what is timed.
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_BENCH_PEERS_PEER_H
#define MOTE_BENCH_PEERS_PEER_H

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace bench {

/// An array read from MODEL_DIR/<name>.npy, row-major: float32 (the f32 models),
/// float16 (the f16 models), or int8 / int32 (the int8 models' activations, weights
/// and biases), `type` in
/// mote/abi.h's numbering. The storage has 16 spare bytes after the data because
/// XNNPACK may read (never write) there.
struct Tensor {
  std::vector<int64_t> dims;
  uint32_t type = 12; // MOTE_F32
  std::vector<float> storage;
  float *data() { return storage.data(); }
  const float *data() const { return storage.data(); }
  template <typename T> T *as() { return reinterpret_cast<T *>(storage.data()); }
  template <typename T> const T *as() const { return reinterpret_cast<const T *>(storage.data()); }
  size_t size() const;
};

/// A zeroed tensor of the given dims (with the same spare bytes), float32 or of
/// `type` (MOTE_F16, MOTE_S8, MOTE_S32).
Tensor zeros(std::vector<int64_t> dims, uint32_t type = 12);

/// The model folder: reads weights and inputs by name, exits on any error.
class ModelFiles {
public:
  explicit ModelFiles(std::string dir) : dir_(std::move(dir)) {}
  Tensor load(const std::string &name) const;

private:
  std::string dir_;
};

/// One prepared model: `infer` runs one inference from the bound input into
/// `output`, which the harness compares with Mote's result.
struct Prepared {
  std::function<void()> infer;
  Tensor *output = nullptr;
};

using Factory = std::function<Prepared(const ModelFiles &, int threads)>;

/// What a factory builds: tensors at stable addresses, and the inference as
/// steps run in order.
struct Program {
  std::deque<Tensor> tensors;
  std::vector<std::function<void()>> steps;
  Tensor &add(Tensor tensor);
  Tensor &zeros(std::vector<int64_t> dims, uint32_t type = 12);
};

/// The prepared model that runs `program`'s steps and then holds `output`.
Prepared finish(std::shared_ptr<Program> program, Tensor &output);

/// Parses the command line, prepares the model, runs one warm-up and N timed
/// inferences, prints the latency line, writes the output. `describe`, when
/// set, prints a line about the library's configuration for --info.
int peerMain(int argc, char **argv, const char *peer,
             const std::map<std::string, Factory> &models,
             const std::function<std::string()> &describe = nullptr);

/// Exits with a message naming the peer when `ok` is false.
void check(bool ok, const std::string &what);

} // namespace bench

#endif // MOTE_BENCH_PEERS_PEER_H
