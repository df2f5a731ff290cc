//===- xnnpack_quantized.cc - The int8 models on XNNPACK's qs8/qc8 operators ===//
//
// The int8 models of bench/models/quantized_models.py: dense layers and the GEMM
// on fully_connected_nc_qs8 (one kernel scale), convolutions on
// convolution2d_nhwc_qc8 (a scale per output channel), the pooling and the
// residual on global_average_pooling_nwc_qs8 and add_nd_qs8. Each takes the
// quantization the model files hold (scales, zero points, output ranges) and
// computes what the HLO computes: XNNPACK's fp32 requantization multiplies by
// input_scale * kernel_scale / output_scale in float, as the HLO does, so only
// its quantized add (fixed point) can round differently, by one unit.
//
// The files hold each bias with the input's zero point folded in (what the HLO
// adds); XNNPACK folds it itself, so it gets the bias back unfolded.
//
//===----------------------------------------------------------------------===//

#include "xnnpack_graph.h"

#include <memory>

namespace xnnpack_peer {
namespace {

using bench::finish;
using bench::ModelFiles;
using bench::Tensor;

constexpr uint32_t kS8 = 2, kS32 = 4;

/// A tensor and the scale and zero point of its values.
struct Quantized {
  Tensor *tensor;
  float scale;
  int8_t zero;
};

float scalar(const ModelFiles &files, const std::string &name) {
  return files.load(name).data()[0];
}

Quantized quantization(const ModelFiles &files, const std::string &label, Tensor &tensor) {
  Tensor zero = files.load(label + "_zero");
  return {&tensor, scalar(files, label + "_scale"), int8_t(zero.as<int32_t>()[0])};
}

/// The layer's bias with the input zero point taken back out: b + zx * sum_k w[k, c],
/// `columns` apart for each output channel c, `count` k values each.
Tensor &unfoldedBias(Graph &g, const ModelFiles &files, const std::string &label, const Tensor &w,
                     int8_t inputZero, int64_t count, bool kMajor) {
  Tensor &bias = g.add(files.load(label + "_b"));
  const int64_t channels = int64_t(bias.size());
  for (int64_t c = 0; c < channels; ++c) {
    int64_t sum = 0;
    for (int64_t k = 0; k < count; ++k)
      sum += w.as<int8_t>()[kMajor ? k * channels + c : c * count + k];
    bias.as<int32_t>()[c] += int32_t(inputZero * sum);
  }
  return bias;
}

/// Output range and quantization of a layer, as the files give them.
struct OutputParams {
  Quantized q;
  int8_t lo = -128, hi = 127;
};

OutputParams output(Graph &g, const ModelFiles &files, const std::string &label,
                    std::vector<int64_t> dims) {
  Tensor &y = g.zeros(std::move(dims), kS8);
  OutputParams params{quantization(files, label, y)};
  Tensor range = files.load(label + "_range");
  params.lo = int8_t(range.as<int32_t>()[0]);
  params.hi = int8_t(range.as<int32_t>()[1]);
  return params;
}

/// A dense layer (weights [in, out], one scale) over `batch` rows.
Quantized dense(Graph &g, const ModelFiles &files, const std::string &label, const Quantized &x) {
  const Tensor &w = g.add(files.load(label + "_w"));
  const size_t in = size_t(w.dims[0]), out = size_t(w.dims[1]);
  const size_t batch = x.tensor->size() / in;
  Tensor &bias = unfoldedBias(g, files, label, w, x.zero, int64_t(in), true);
  OutputParams y = output(g, files, label, {int64_t(batch), int64_t(out)});
  xnn_operator_t op = nullptr;
  ok(xnn_create_fully_connected_nc_qs8(
         in, out, in, out, x.zero, x.scale, scalar(files, label + "_w_scale"), w.as<int8_t>(),
         bias.as<int32_t>(), y.q.zero, y.q.scale, y.lo, y.hi, XNN_FLAG_TRANSPOSE_WEIGHTS, &op),
     "create fully_connected_nc_qs8");
  ok(xnn_setup_fully_connected_nc_qs8(op, batch, x.tensor->as<int8_t>(), y.q.tensor->as<int8_t>(),
                                      g.pool),
     "setup fully_connected_nc_qs8");
  g.run(op);
  return y.q;
}

/// An NHWC convolution from an HWIO kernel with a scale per output channel;
/// depthwise when `groups` > 1. Padding takes the input's zero point.
Quantized conv(Graph &g, const ModelFiles &files, const std::string &label, const Quantized &x,
               uint32_t stride, uint32_t top, uint32_t bottom, uint32_t left, uint32_t right,
               uint32_t groups) {
  Tensor hwio = files.load(label + "_w");
  const Tensor &scales = g.add(files.load(label + "_w_scale"));
  const int64_t kh = hwio.dims[0], kw = hwio.dims[1], cin = hwio.dims[2], cout = hwio.dims[3];
  uint32_t flags = 0;
  Tensor *kernel = &convolutionKernel<int8_t>(g, std::move(hwio), groups, flags);
  Tensor &bias = unfoldedBias(g, files, label, *kernel, x.zero, kh * kw * cin, groups > 1);
  const Tensor &in = *x.tensor;
  const int64_t oh = (in.dims[1] + top + bottom - kh) / stride + 1;
  const int64_t ow = (in.dims[2] + left + right - kw) / stride + 1;
  OutputParams y = output(g, files, label, {in.dims[0], oh, ow, cout});
  const size_t groupIn = groups == 1 ? size_t(cin) : 1, groupOut = groups == 1 ? size_t(cout) : 1;
  xnn_operator_t op = nullptr;
  ok(xnn_create_convolution2d_nhwc_qc8(
         top, right, bottom, left, uint32_t(kh), uint32_t(kw), stride, stride, 1, 1, groups,
         groupIn, groupOut, size_t(in.dims[3]), size_t(cout), x.zero, x.scale, scales.data(),
         kernel->as<int8_t>(), bias.as<int32_t>(), y.q.zero, y.q.scale, y.lo, y.hi, flags, &op),
     "create convolution2d_nhwc_qc8");
  ok(xnn_setup_convolution2d_nhwc_qc8(op, size_t(in.dims[0]), size_t(in.dims[1]),
                                      size_t(in.dims[2]), in.as<int8_t>(), y.q.tensor->as<int8_t>(),
                                      g.pool),
     "setup convolution2d_nhwc_qc8");
  g.run(op);
  return y.q;
}

Quantized input(Graph &g, const ModelFiles &files, const std::string &label) {
  return quantization(files, label, g.add(files.load("input_0")));
}

bench::Prepared mlp(const ModelFiles &files, int threads) {
  auto g = std::make_shared<Graph>(threads);
  Quantized h = input(*g, files, "x");
  for (const char *label : {"fc1", "fc2", "fc3"})
    h = dense(*g, files, label, h);
  return finish(g, *h.tensor);
}

bench::Prepared dsCnn(const ModelFiles &files, int threads) {
  auto g = std::make_shared<Graph>(threads);
  Quantized y = conv(*g, files, "conv1", input(*g, files, "mfcc"), 2, 4, 5, 1, 1, 1);
  for (int block = 1; block <= 4; ++block) {
    const std::string n = std::to_string(block);
    y = conv(*g, files, "dw" + n, y, 1, 1, 1, 1, 1, uint32_t(y.tensor->dims[3]));
    y = conv(*g, files, "pw" + n, y, 1, 0, 0, 0, 0, 1);
  }
  const size_t channels = size_t(y.tensor->dims[3]);
  Tensor &pooled = g->zeros({1, int64_t(channels)}, kS8);
  Quantized pool = quantization(files, "pool", pooled);
  xnn_operator_t op = nullptr;
  ok(xnn_create_global_average_pooling_nwc_qs8(channels, channels, channels, y.zero, y.scale,
                                               pool.zero, pool.scale, -128, 127, 0, &op),
     "create global_average_pooling_nwc_qs8");
  ok(xnn_setup_global_average_pooling_nwc_qs8(op, 1, size_t(y.tensor->dims[1] * y.tensor->dims[2]),
                                              y.tensor->as<int8_t>(), pooled.as<int8_t>(), g->pool),
     "setup global_average_pooling_nwc_qs8");
  g->run(op);
  return finish(g, *dense(*g, files, "fc", pool).tensor);
}

bench::Prepared mobilenetBlock(const ModelFiles &files, int threads) {
  auto g = std::make_shared<Graph>(threads);
  Quantized x = input(*g, files, "x");
  Quantized e = conv(*g, files, "expand", x, 1, 0, 0, 0, 0, 1);
  Quantized d = conv(*g, files, "depthwise", e, 1, 1, 1, 1, 1, uint32_t(e.tensor->dims[3]));
  Quantized p = conv(*g, files, "project", d, 1, 0, 0, 0, 0, 1);
  Tensor &sum = g->zeros(x.tensor->dims, kS8);
  Quantized out = quantization(files, "residual", sum);
  std::vector<size_t> shape(x.tensor->dims.begin(), x.tensor->dims.end());
  xnn_operator_t op = nullptr;
  ok(xnn_create_add_nd_qs8(x.zero, x.scale, p.zero, p.scale, out.zero, out.scale, -128, 127, 0,
                           &op),
     "create add_nd_qs8");
  ok(xnn_setup_add_nd_qs8(op, shape.size(), shape.data(), shape.size(), shape.data(),
                          x.tensor->as<int8_t>(), p.tensor->as<int8_t>(), sum.as<int8_t>(),
                          g->pool),
     "setup add_nd_qs8");
  g->run(op);
  return finish(g, sum);
}

bench::Prepared gemm(const ModelFiles &files, int threads) {
  // B is the fully-connected kernel: packed once here, outside the timed run.
  auto g = std::make_shared<Graph>(threads);
  return finish(g, *dense(*g, files, "b", input(*g, files, "a")).tensor);
}

} // namespace

void addQuantizedModels(std::map<std::string, bench::Factory> &models) {
  models["mlp-int8"] = mlp;
  models["ds-cnn-int8"] = dsCnn;
  models["mobilenet-block-int8"] = mobilenetBlock;
  models["gemm-int8"] = gemm;
}

} // namespace xnnpack_peer
