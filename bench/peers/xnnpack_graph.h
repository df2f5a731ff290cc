//===- xnnpack_graph.h - What the XNNPACK peer's model files share --------===//
//
// An inference on XNNPACK's operator API: operators created once (XNNPACK packs
// the weights then), set up once on fixed buffers, and run in order.
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_BENCH_PEERS_XNNPACK_GRAPH_H
#define MOTE_BENCH_PEERS_XNNPACK_GRAPH_H

#include "peer.h"

#include <pthreadpool.h>
#include <xnnpack.h>

namespace xnnpack_peer {

inline void ok(xnn_status status, const char *what) {
  bench::check(status == xnn_status_success, std::string("XNNPACK ") + what +
                                                 " failed with status " +
                                                 std::to_string(int(status)));
}

/// The operators and buffers of one model, and the steps of one inference.
struct Graph : bench::Program {
  pthreadpool_t pool = nullptr;

  explicit Graph(int threads) {
    if (threads > 1)
      pool = pthreadpool_create(size_t(threads));
  }
  void run(xnn_operator_t op) {
    steps.push_back([op, pool = pool] { ok(xnn_run_operator(op, pool), "run"); });
  }
};

/// A convolution's HWIO kernel of element type T in XNNPACK's layout: as it
/// is for a depthwise one (HWIO with I = 1 is XNNPACK's HWGo; `flags` gets
/// XNN_FLAG_DEPTHWISE_CONVOLUTION), else OHWI.
template <typename T>
bench::Tensor &convolutionKernel(Graph &g, bench::Tensor hwio, uint32_t groups, uint32_t &flags) {
  if (groups > 1) {
    flags |= XNN_FLAG_DEPTHWISE_CONVOLUTION;
    return g.add(std::move(hwio));
  }
  const int64_t kh = hwio.dims[0], kw = hwio.dims[1], cin = hwio.dims[2], cout = hwio.dims[3];
  bench::Tensor &kernel = g.zeros({cout, kh, kw, cin}, hwio.type);
  for (int64_t o = 0; o < cout; ++o)
    for (int64_t k = 0; k < kh * kw * cin; ++k)
      kernel.as<T>()[o * kh * kw * cin + k] = hwio.as<T>()[k * cout + o];
  return kernel;
}

/// The int8 models (xnnpack_quantized.cc), added to `models`.
void addQuantizedModels(std::map<std::string, bench::Factory> &models);

} // namespace xnnpack_peer

#endif // MOTE_BENCH_PEERS_XNNPACK_GRAPH_H
