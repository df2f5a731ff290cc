//===- xnnpack_peer.cc - The benchmark models on XNNPACK's operator API ---===//
//
// Debian's XNNPACK (git snapshot of 2022-02-16): operators are created once
// with their weights (which XNNPACK packs then), set up once on fixed buffers,
// and each inference runs them in order with xnn_run_operator. Weights arrive
// as the HLO holds them (dense [in, out], convolutions HWIO) and are put in
// XNNPACK's layouts here, outside the timed inference.
//
// What this snapshot has no operator for is written as plain loops (marked
// "glue"): layer norm and the polynomial around GELU's sigmoid. Products of
// two activations (attention's QK^T and PV) have no operator either; they use
// fully-connected operators created from the activation at each inference,
// packing included in the time, which is how XNNPACK itself would have to do it.
//
// The half-precision models run on the f16 operators where the machine has
// them: f16 storage and f16 arithmetic (on x86-64, F16C conversions around f32
// arithmetic, rounding to f16 after each operation), with no glue in float.
//
//===----------------------------------------------------------------------===//

#include "xnnpack_graph.h"

#include "mote/abi.h"

#include <cmath>
#include <limits>
#include <memory>

namespace {

using bench::check;
using bench::finish;
using bench::ModelFiles;
using bench::Tensor;
using xnnpack_peer::Graph;
using xnnpack_peer::ok;

constexpr float kInf = std::numeric_limits<float>::infinity();

/// XNNPACK's operators for one element type. The f16 ones take the same
/// arguments as the f32 ones (clamp bounds in float, data through void
/// pointers), so the models below are written once for both.
struct F32 {
  static constexpr uint32_t kType = MOTE_F32;
  using Element = float;
  static constexpr auto createFullyConnected = xnn_create_fully_connected_nc_f32;
  static constexpr auto setupFullyConnected = xnn_setup_fully_connected_nc_f32;
  static constexpr auto createConvolution = xnn_create_convolution2d_nhwc_f32;
  static constexpr auto setupConvolution = xnn_setup_convolution2d_nhwc_f32;
  static constexpr auto createAdd = xnn_create_add_nd_f32;
  static constexpr auto setupAdd = xnn_setup_add_nd_f32;
  static constexpr auto createAveragePool = xnn_create_global_average_pooling_nwc_f32;
  static constexpr auto setupAveragePool = xnn_setup_global_average_pooling_nwc_f32;
};

/// f16 everywhere (inputs, weights, activations), as XNNPACK runs a model
/// exported in half precision.
struct F16 {
  static constexpr uint32_t kType = MOTE_F16;
  using Element = uint16_t;
  static constexpr auto createFullyConnected = xnn_create_fully_connected_nc_f16;
  static constexpr auto setupFullyConnected = xnn_setup_fully_connected_nc_f16;
  static constexpr auto createConvolution = xnn_create_convolution2d_nhwc_f16;
  static constexpr auto setupConvolution = xnn_setup_convolution2d_nhwc_f16;
  static constexpr auto createAdd = xnn_create_add_nd_f16;
  static constexpr auto setupAdd = xnn_setup_add_nd_f16;
  static constexpr auto createAveragePool = xnn_create_global_average_pooling_nwc_f16;
  static constexpr auto setupAveragePool = xnn_setup_global_average_pooling_nwc_f16;
};

/// Whether this machine runs XNNPACK's f16 operators (on x86-64 they need F16C
/// and AVX2; elsewhere native half arithmetic): creating one says.
bool hasHalfArithmetic() {
  xnn_operator_t op = nullptr;
  if (xnn_create_add_nd_f16(-kInf, kInf, 0, &op) != xnn_status_success)
    return false;
  xnn_delete_operator(op);
  return true;
}

/// y[batch, out] = x[batch, in] * w[in, out] + b, clamped; strides in elements.
template <typename P = F32>
void fullyConnected(Graph &g, const Tensor &w, const Tensor *b, const void *x, void *y,
                    size_t batch, float lo = -kInf, float hi = kInf, size_t x_stride = 0,
                    size_t y_stride = 0) {
  size_t in = size_t(w.dims[0]), out = size_t(w.dims[1]);
  xnn_operator_t op = nullptr;
  ok(P::createFullyConnected(in, out, x_stride ? x_stride : in, y_stride ? y_stride : out,
                             w.as<typename P::Element>(),
                             b ? b->as<typename P::Element>() : nullptr, lo, hi,
                             XNN_FLAG_TRANSPOSE_WEIGHTS, &op),
     "create fully_connected");
  ok(P::setupFullyConnected(op, batch, static_cast<const typename P::Element *>(x),
                            static_cast<typename P::Element *>(y), g.pool),
     "setup fully_connected");
  g.run(op);
}

template <typename P = F32>
Tensor &dense(Graph &g, const ModelFiles &files, const std::string &label, const Tensor &x,
              float lo = -kInf, float hi = kInf) {
  const Tensor &w = g.add(files.load(label + "_w"));
  const Tensor &b = g.add(files.load(label + "_b"));
  Tensor &y = g.zeros({x.dims[0], w.dims[1]}, P::kType);
  fullyConnected<P>(g, w, &b, x.data(), y.data(), size_t(x.dims[0]), lo, hi);
  return y;
}

/// NHWC convolution + bias from an HWIO kernel; depthwise when `groups` > 1.
template <typename P>
Tensor &conv(Graph &g, const ModelFiles &files, const std::string &label, const Tensor &x,
             uint32_t stride, uint32_t pad_top, uint32_t pad_bottom, uint32_t pad_left,
             uint32_t pad_right, uint32_t groups, float lo, float hi) {
  using Element = typename P::Element;
  Tensor hwio = files.load(label + "_w");
  const Tensor &b = g.add(files.load(label + "_b"));
  int64_t kh = hwio.dims[0], kw = hwio.dims[1], cin = hwio.dims[2], cout = hwio.dims[3];
  int64_t channels = x.dims[3];
  uint32_t flags = 0;
  Tensor *kernel = &xnnpack_peer::convolutionKernel<Element>(g, std::move(hwio), groups, flags);
  int64_t oh = (x.dims[1] + pad_top + pad_bottom - kh) / stride + 1;
  int64_t ow = (x.dims[2] + pad_left + pad_right - kw) / stride + 1;
  Tensor &y = g.zeros({x.dims[0], oh, ow, cout}, P::kType);
  size_t group_in = groups == 1 ? size_t(cin) : 1, group_out = groups == 1 ? size_t(cout) : 1;
  xnn_operator_t op = nullptr;
  ok(P::createConvolution(pad_top, pad_right, pad_bottom, pad_left, uint32_t(kh), uint32_t(kw),
                          stride, stride, 1, 1, groups, group_in, group_out, size_t(channels),
                          size_t(cout), kernel->as<Element>(), b.as<Element>(), lo, hi, flags,
                          &op),
     "create convolution");
  ok(P::setupConvolution(op, size_t(x.dims[0]), size_t(x.dims[1]), size_t(x.dims[2]),
                         x.as<Element>(), y.as<Element>(), g.pool),
     "setup convolution");
  g.run(op);
  return y;
}

template <typename P = F32> Tensor &add(Graph &g, const Tensor &a, const Tensor &b) {
  using Element = typename P::Element;
  Tensor &y = g.zeros(a.dims, P::kType);
  std::vector<size_t> shape(a.dims.begin(), a.dims.end());
  xnn_operator_t op = nullptr;
  ok(P::createAdd(-kInf, kInf, 0, &op), "create add");
  ok(P::setupAdd(op, shape.size(), shape.data(), shape.size(), shape.data(), a.as<Element>(),
                 b.as<Element>(), y.as<Element>(), g.pool),
     "setup add");
  g.run(op);
  return y;
}

template <typename P> bench::Prepared mlp(const ModelFiles &files, int threads) {
  auto g = std::make_shared<Graph>(threads);
  Tensor &x = g->add(files.load("input_0"));
  Tensor &h1 = dense<P>(*g, files, "fc1", x, 0.0f);
  Tensor &h2 = dense<P>(*g, files, "fc2", h1, 0.0f);
  return finish(g, dense<P>(*g, files, "fc3", h2));
}

template <typename P> bench::Prepared dsCnn(const ModelFiles &files, int threads) {
  using Element = typename P::Element;
  auto g = std::make_shared<Graph>(threads);
  Tensor &x = g->add(files.load("input_0"));
  Tensor *y = &conv<P>(*g, files, "conv1", x, 2, 4, 5, 1, 1, 1, 0.0f, kInf);
  for (int block = 1; block <= 4; ++block) {
    std::string n = std::to_string(block);
    y = &conv<P>(*g, files, "dw" + n, *y, 1, 1, 1, 1, 1, uint32_t(y->dims[3]), 0.0f, kInf);
    y = &conv<P>(*g, files, "pw" + n, *y, 1, 0, 0, 0, 0, 1, 0.0f, kInf);
  }
  size_t channels = size_t(y->dims[3]);
  Tensor &pooled = g->zeros({1, int64_t(channels)}, P::kType);
  xnn_operator_t op = nullptr;
  ok(P::createAveragePool(channels, channels, channels, -kInf, kInf, 0, &op),
     "create global_average_pooling");
  ok(P::setupAveragePool(op, 1, size_t(y->dims[1] * y->dims[2]), y->template as<Element>(),
                         pooled.as<Element>(), g->pool),
     "setup global_average_pooling");
  g->run(op);
  return finish(g, dense<P>(*g, files, "fc", pooled));
}

template <typename P> bench::Prepared mobilenetBlock(const ModelFiles &files, int threads) {
  auto g = std::make_shared<Graph>(threads);
  Tensor &x = g->add(files.load("input_0"));
  Tensor &e = conv<P>(*g, files, "expand", x, 1, 0, 0, 0, 0, 1, 0.0f, 6.0f);
  Tensor &d = conv<P>(*g, files, "depthwise", e, 1, 1, 1, 1, 1, uint32_t(e.dims[3]), 0.0f, 6.0f);
  Tensor &p = conv<P>(*g, files, "project", d, 1, 0, 0, 0, 0, 1, -kInf, kInf);
  return finish(g, add<P>(*g, x, p));
}

/// Glue: y = (x - mean) / sqrt(var + 1e-5) * gamma + beta over each row.
void layerNorm(Graph &g, const ModelFiles &files, const std::string &label, const Tensor &x,
               Tensor &y) {
  const Tensor &gamma = g.add(files.load(label + "_gamma"));
  const Tensor &beta = g.add(files.load(label + "_beta"));
  g.steps.push_back([&x, &y, &gamma, &beta] {
    int64_t rows = x.dims[0], width = x.dims[1];
    for (int64_t r = 0; r < rows; ++r) {
      const float *in = x.data() + r * width;
      float *out = y.data() + r * width;
      float sum = 0, square = 0;
      for (int64_t i = 0; i < width; ++i)
        sum += in[i];
      float mean = sum / float(width);
      for (int64_t i = 0; i < width; ++i)
        square += (in[i] - mean) * (in[i] - mean);
      float rstd = 1.0f / std::sqrt(square / float(width) + 1e-5f);
      for (int64_t i = 0; i < width; ++i)
        out[i] = (in[i] - mean) * rstd * gamma.data()[i] + beta.data()[i];
    }
  });
}

/// The columns [first, first + count) of a [rows, cols] tensor, as [rows, count].
Tensor columns(const Tensor &t, int64_t first, int64_t count) {
  Tensor out = bench::zeros(t.dims.size() == 1 ? std::vector<int64_t>{count}
                                               : std::vector<int64_t>{t.dims[0], count});
  int64_t rows = t.dims.size() == 1 ? 1 : t.dims[0], cols = t.dims.back();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < count; ++c)
      out.data()[r * count + c] = t.data()[r * cols + first + c];
  return out;
}

bench::Prepared transformer(const ModelFiles &files, int threads) {
  constexpr int64_t kSeq = 128, kModel = 256, kHeads = 4, kHead = 64, kFfn = 1024;
  auto g = std::make_shared<Graph>(threads);
  Tensor &x = g->add(files.load("input_0"));
  // Q with 1/sqrt(d_head) = 1/8 folded into its weights (exact: a power of two).
  Tensor &wq = g->add(files.load("q_w")), &bq = g->add(files.load("q_b"));
  for (Tensor *t : {&wq, &bq})
    for (size_t i = 0; i < t->size(); ++i)
      t->data()[i] *= 1.0f / std::sqrt(float(kHead));
  Tensor &q = g->zeros({kSeq, kModel});
  fullyConnected(*g, wq, &bq, x.data(), q.data(), kSeq);
  // K and V one head at a time, so each head's [seq, 64] block is contiguous.
  std::vector<Tensor *> k, v;
  for (const char *p : {"k", "v"}) {
    Tensor w = files.load(std::string(p) + "_w"), b = files.load(std::string(p) + "_b");
    for (int64_t h = 0; h < kHeads; ++h) {
      Tensor &wh = g->add(columns(w, h * kHead, kHead)), &bh = g->add(columns(b, h * kHead, kHead));
      Tensor &out = g->zeros({kSeq, kHead});
      fullyConnected(*g, wh, &bh, x.data(), out.data(), kSeq);
      (*p == 'k' ? k : v).push_back(&out);
    }
  }
  Tensor &scores = g->zeros({kHeads, kSeq, kSeq}), &probs = g->zeros({kHeads, kSeq, kSeq});
  Tensor &context = g->zeros({kSeq, kModel});
  Graph *raw = g.get();
  // Per head: scores_h = q_h k_h^T (k_h is the [out, in] kernel as it stands).
  g->steps.push_back([raw, &q, k, &scores] {
    for (int64_t h = 0; h < kHeads; ++h) {
      xnn_operator_t op = nullptr;
      ok(xnn_create_fully_connected_nc_f32(kHead, kSeq, kModel, kSeq, k[h]->data(), nullptr,
                                           -kInf, kInf, 0, &op),
         "create fully_connected (QK^T)");
      ok(xnn_setup_fully_connected_nc_f32(op, kSeq, q.data() + h * kHead,
                                          scores.data() + h * kSeq * kSeq, raw->pool),
         "setup fully_connected (QK^T)");
      ok(xnn_run_operator(op, raw->pool), "run fully_connected (QK^T)");
      xnn_delete_operator(op);
    }
  });
  xnn_operator_t softmax = nullptr;
  ok(xnn_create_softmax_nc_f32(kSeq, kSeq, kSeq, 0, &softmax), "create softmax");
  ok(xnn_setup_softmax_nc_f32(softmax, kHeads * kSeq, scores.data(), probs.data(), g->pool),
     "setup softmax");
  g->run(softmax);
  // Per head: context[:, h*64:(h+1)*64] = probs_h v_h (v_h is the [in, out] kernel).
  g->steps.push_back([raw, &probs, v, &context] {
    for (int64_t h = 0; h < kHeads; ++h) {
      xnn_operator_t op = nullptr;
      ok(xnn_create_fully_connected_nc_f32(kSeq, kHead, kSeq, kModel, v[h]->data(), nullptr,
                                           -kInf, kInf, XNN_FLAG_TRANSPOSE_WEIGHTS, &op),
         "create fully_connected (PV)");
      ok(xnn_setup_fully_connected_nc_f32(op, kSeq, probs.data() + h * kSeq * kSeq,
                                          context.data() + h * kHead, raw->pool),
         "setup fully_connected (PV)");
      ok(xnn_run_operator(op, raw->pool), "run fully_connected (PV)");
      xnn_delete_operator(op);
    }
  });
  Tensor &attended = dense(*g, files, "o", context);
  Tensor &y1 = g->zeros({kSeq, kModel});
  layerNorm(*g, files, "ln1", add(*g, x, attended), y1);
  Tensor &f = dense(*g, files, "ffn1", y1);
  // GELU (tanh form) = f * sigmoid(2 sqrt(2/pi) (f + 0.044715 f^3)): glue + sigmoid.
  Tensor &z = g->zeros({kSeq, kFfn}), &s = g->zeros({kSeq, kFfn}), &gelu = g->zeros({kSeq, kFfn});
  g->steps.push_back([&f, &z] {
    const float c = 2.0f * std::sqrt(2.0f / float(M_PI));
    for (size_t i = 0; i < f.size(); ++i) {
      float a = f.data()[i];
      z.data()[i] = c * (a + 0.044715f * a * a * a);
    }
  });
  xnn_operator_t sigmoid = nullptr;
  ok(xnn_create_sigmoid_nc_f32(kFfn, kFfn, kFfn, 0, &sigmoid), "create sigmoid");
  ok(xnn_setup_sigmoid_nc_f32(sigmoid, kSeq, z.data(), s.data(), g->pool), "setup sigmoid");
  g->run(sigmoid);
  g->steps.push_back([&f, &s, &gelu] {
    for (size_t i = 0; i < f.size(); ++i)
      gelu.data()[i] = f.data()[i] * s.data()[i];
  });
  Tensor &ffn = dense(*g, files, "ffn2", gelu);
  Tensor &out = g->zeros({kSeq, kModel});
  layerNorm(*g, files, "ln2", add(*g, y1, ffn), out);
  return finish(g, out);
}

template <typename P> bench::Prepared gemm(const ModelFiles &files, int threads) {
  // B is the fully-connected kernel: packed once here, outside the timed run.
  auto g = std::make_shared<Graph>(threads);
  Tensor &a = g->add(files.load("input_0"));
  Tensor &b = g->add(files.load("input_1"));
  Tensor &c = g->zeros({a.dims[0], b.dims[1]}, P::kType);
  fullyConnected<P>(*g, b, nullptr, a.data(), c.data(), size_t(a.dims[0]));
  return finish(g, c);
}

} // namespace

int main(int argc, char **argv) {
  ok(xnn_initialize(nullptr), "initialize");
  std::map<std::string, bench::Factory> models = {{"mlp", mlp<F32>},
                                                  {"mlp-batch64", mlp<F32>},
                                                  {"ds-cnn", dsCnn<F32>},
                                                  {"mobilenet-block", mobilenetBlock<F32>},
                                                  {"transformer", transformer},
                                                  {"gemm", gemm<F32>}};
  // The half-precision models (bench --half) where this XNNPACK has every
  // operator in f16: its softmax and sigmoid are f32 only, so not the transformer.
  if (hasHalfArithmetic()) {
    for (const char *name : {"mlp", "mlp-batch64"})
      models[std::string(name) + "-f16"] = mlp<F16>;
    models["ds-cnn-f16"] = dsCnn<F16>;
    models["mobilenet-block-f16"] = mobilenetBlock<F16>;
    models["gemm-f16"] = gemm<F16>;
  }
  xnnpack_peer::addQuantizedModels(models);
  return bench::peerMain(argc, argv, "xnnpack-peer", models);
}
