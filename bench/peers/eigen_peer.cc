//===- eigen_peer.cc - The benchmark models written with Eigen 3.4 --------===//
//
// Dense layers and 1x1 convolutions are Eigen matrix products on row-major
// maps of the NHWC buffers; the strided first convolution of DS-CNN is an
// im2col copy and a product; depthwise convolutions are per-tap array
// multiply-adds over whole rows of pixels; softmax, layer norm and GELU are
// array expressions (Eigen vectorises exp and tanh). Threads: Eigen
// parallelises its matrix products with OpenMP (Eigen::setNbThreads); the
// rest runs on one thread, as Eigen has it.
//
//===----------------------------------------------------------------------===//

#include "peer.h"

#include <cmath>
#include <memory>

#include <Eigen/Dense>

namespace {

using bench::finish;
using bench::ModelFiles;
using Model = bench::Program;
using bench::Tensor;
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Map = Eigen::Map<Matrix>;
using ConstMap = Eigen::Map<const Matrix>;
using RowVector = Eigen::Map<const Eigen::RowVectorXf>;

/// A tensor seen as a matrix: every dim but the last are rows.
Map rows(Tensor &t) {
  return Map(t.data(), Eigen::Index(t.size() / size_t(t.dims.back())), Eigen::Index(t.dims.back()));
}
ConstMap rows(const Tensor &t) {
  return ConstMap(t.data(), Eigen::Index(t.size() / size_t(t.dims.back())),
                  Eigen::Index(t.dims.back()));
}

enum class Act { None, Relu, Relu6 };

void activate(Map y, Act act) {
  if (act == Act::Relu)
    y = y.cwiseMax(0.0f);
  else if (act == Act::Relu6)
    y = y.cwiseMax(0.0f).cwiseMin(6.0f);
}

/// y = act(x * w + b) with x seen as [rows, in] (dense layers and 1x1 convolutions).
Tensor &dense(Model &m, const ModelFiles &files, const std::string &label, Tensor &x,
              Act act = Act::None) {
  const Tensor &w = m.add(files.load(label + "_w"));
  const Tensor &b = m.add(files.load(label + "_b"));
  std::vector<int64_t> dims = x.dims;
  dims.back() = w.dims.back();
  Tensor &y = m.zeros(dims);
  m.steps.push_back([&x, &w, &b, &y, act] {
    Map out = rows(y);
    out.noalias() = rows(x) * rows(w);
    out.rowwise() += RowVector(b.data(), Eigen::Index(b.size()));
    activate(out, act);
  });
  return y;
}

/// A 1x1 convolution: its HWIO kernel [1, 1, in, out] is a dense layer's [in, out].
Tensor &pointwise(Model &m, const ModelFiles &files, const std::string &label, Tensor &x,
                  Act act) {
  return dense(m, files, label, x, act);
}

/// Depthwise 3x3, stride 1, padding 1, NHWC: per output row and tap, a block
/// of whole pixels times the tap's per-channel weights.
Tensor &depthwise(Model &m, const ModelFiles &files, const std::string &label, Tensor &x,
                  Act act) {
  const Tensor &w = m.add(files.load(label + "_w")); // [3, 3, 1, C]
  const Tensor &b = m.add(files.load(label + "_b"));
  Tensor &y = m.zeros(x.dims);
  m.steps.push_back([&x, &w, &b, &y, act] {
    const Eigen::Index h = x.dims[1], wd = x.dims[2], c = x.dims[3];
    using Block = Eigen::Map<Eigen::ArrayXXf>; // [C, pixels], column-major = NHWC order
    using ConstBlock = Eigen::Map<const Eigen::ArrayXXf>;
    Eigen::Map<const Eigen::ArrayXf> bias(b.data(), c);
    for (Eigen::Index oy = 0; oy < h; ++oy) {
      Block out(y.data() + oy * wd * c, c, wd);
      out.colwise() = bias;
      for (Eigen::Index ky = 0; ky < 3; ++ky) {
        Eigen::Index iy = oy + ky - 1;
        if (iy < 0 || iy >= h)
          continue;
        for (Eigen::Index kx = 0; kx < 3; ++kx) {
          // Output columns [x0, x1) read input columns shifted by kx - 1.
          Eigen::Index x0 = kx == 0 ? 1 : 0, x1 = kx == 2 ? wd - 1 : wd;
          Eigen::Map<const Eigen::ArrayXf> tap(w.data() + (ky * 3 + kx) * c, c);
          ConstBlock in(x.data() + (iy * wd + x0 + kx - 1) * c, c, x1 - x0);
          out.middleCols(x0, x1 - x0) += in.colwise() * tap;
        }
      }
    }
    activate(rows(y), act);
  });
  return y;
}

bench::Prepared mlp(const ModelFiles &files, int) {
  auto m = std::make_shared<Model>();
  Tensor &x = m->add(files.load("input_0"));
  Tensor &h1 = dense(*m, files, "fc1", x, Act::Relu);
  Tensor &h2 = dense(*m, files, "fc2", h1, Act::Relu);
  return finish(m, dense(*m, files, "fc3", h2));
}

bench::Prepared dsCnn(const ModelFiles &files, int) {
  auto m = std::make_shared<Model>();
  Tensor &x = m->add(files.load("input_0")); // [1, 49, 10, 1]
  const Tensor &w = m->add(files.load("conv1_w")); // [10, 4, 1, 64]
  const Tensor &b = m->add(files.load("conv1_b"));
  constexpr int64_t kH = 49, kW = 10, kKh = 10, kKw = 4, kOh = 25, kOw = 5, kC = 64;
  Tensor &patches = m->zeros({kOh * kOw, kKh * kKw}); // im2col, zero padding 4_5 x 1_1
  Tensor &y = m->zeros({1, kOh, kOw, kC});
  m->steps.push_back([&x, &w, &b, &patches, &y] {
    for (int64_t oy = 0; oy < kOh; ++oy)
      for (int64_t ox = 0; ox < kOw; ++ox)
        for (int64_t ky = 0; ky < kKh; ++ky)
          for (int64_t kx = 0; kx < kKw; ++kx) {
            int64_t iy = oy * 2 + ky - 4, ix = ox * 2 + kx - 1;
            bool inside = iy >= 0 && iy < kH && ix >= 0 && ix < kW;
            patches.data()[(oy * kOw + ox) * kKh * kKw + ky * kKw + kx] =
                inside ? x.data()[iy * kW + ix] : 0.0f;
          }
    Map out = rows(y);
    out.noalias() = rows(patches) * ConstMap(w.data(), kKh * kKw, kC);
    out.rowwise() += RowVector(b.data(), kC);
    activate(out, Act::Relu);
  });
  Tensor *h = &y;
  for (int block = 1; block <= 4; ++block) {
    h = &depthwise(*m, files, "dw" + std::to_string(block), *h, Act::Relu);
    h = &pointwise(*m, files, "pw" + std::to_string(block), *h, Act::Relu);
  }
  Tensor &pooled = m->zeros({1, kC});
  m->steps.push_back([h, &pooled] { rows(pooled) = rows(*h).colwise().mean(); });
  return finish(m, dense(*m, files, "fc", pooled));
}

bench::Prepared mobilenetBlock(const ModelFiles &files, int) {
  auto m = std::make_shared<Model>();
  Tensor &x = m->add(files.load("input_0"));
  Tensor &e = pointwise(*m, files, "expand", x, Act::Relu6);
  Tensor &d = depthwise(*m, files, "depthwise", e, Act::Relu6);
  Tensor &p = pointwise(*m, files, "project", d, Act::None);
  m->steps.push_back([&x, &p] { rows(p) += rows(x); });
  return finish(m, p);
}

/// y = (x - mean) / sqrt(var + 1e-5) * gamma + beta over each row, in place.
void layerNorm(Model &m, const ModelFiles &files, const std::string &label, Tensor &x) {
  const Tensor &gamma = m.add(files.load(label + "_gamma"));
  const Tensor &beta = m.add(files.load(label + "_beta"));
  m.steps.push_back([&x, &gamma, &beta] {
    auto a = rows(x).array();
    const float n = float(x.dims.back());
    Eigen::ArrayXf mean = a.rowwise().sum() / n;
    a.colwise() -= mean;
    Eigen::ArrayXf rstd = ((a.square().rowwise().sum() / n) + 1e-5f).rsqrt();
    a.colwise() *= rstd;
    a.rowwise() *= RowVector(gamma.data(), Eigen::Index(gamma.size())).array();
    a.rowwise() += RowVector(beta.data(), Eigen::Index(beta.size())).array();
  });
}

bench::Prepared transformer(const ModelFiles &files, int) {
  constexpr Eigen::Index kSeq = 128, kHeads = 4, kHead = 64;
  auto m = std::make_shared<Model>();
  Tensor &x = m->add(files.load("input_0"));
  Tensor &q = dense(*m, files, "q", x), &k = dense(*m, files, "k", x), &v = dense(*m, files, "v", x);
  Tensor &scores = m->zeros({kSeq, kSeq}), &context = m->zeros({kSeq, kHeads * kHead});
  m->steps.push_back([&q, &k, &v, &scores, &context] {
    Map s = rows(scores);
    for (Eigen::Index h = 0; h < kHeads; ++h) {
      s.noalias() = rows(q).middleCols(h * kHead, kHead) *
                    rows(k).middleCols(h * kHead, kHead).transpose();
      auto a = s.array();
      a *= 1.0f / std::sqrt(float(kHead));
      Eigen::ArrayXf top = a.rowwise().maxCoeff(); // reductions first: no aliasing
      a.colwise() -= top;
      a = a.exp();
      Eigen::ArrayXf total = a.rowwise().sum();
      a.colwise() /= total;
      rows(context).middleCols(h * kHead, kHead).noalias() =
          s * rows(v).middleCols(h * kHead, kHead);
    }
  });
  Tensor &attended = dense(*m, files, "o", context);
  m->steps.push_back([&x, &attended] { rows(attended) += rows(x); });
  layerNorm(*m, files, "ln1", attended);
  Tensor &f = dense(*m, files, "ffn1", attended);
  m->steps.push_back([&f] {
    auto a = rows(f).array();
    const float c = std::sqrt(2.0f / float(M_PI));
    a = a * (0.5f * (1.0f + (c * (a + 0.044715f * a.cube())).tanh()));
  });
  Tensor &out = dense(*m, files, "ffn2", f);
  m->steps.push_back([&attended, &out] { rows(out) += rows(attended); });
  layerNorm(*m, files, "ln2", out);
  return finish(m, out);
}

bench::Prepared gemm(const ModelFiles &files, int) {
  auto m = std::make_shared<Model>();
  Tensor &a = m->add(files.load("input_0"));
  Tensor &b = m->add(files.load("input_1"));
  Tensor &c = m->zeros({a.dims[0], b.dims[1]});
  m->steps.push_back([&a, &b, &c] { rows(c).noalias() = rows(a) * rows(b); });
  return finish(m, c);
}

/// Sets Eigen's thread count before the factory runs.
bench::Factory threaded(bench::Prepared (*factory)(const ModelFiles &, int)) {
  return [factory](const ModelFiles &files, int threads) {
    Eigen::setNbThreads(threads);
    return factory(files, threads);
  };
}

} // namespace

int main(int argc, char **argv) {
  return bench::peerMain(argc, argv, "eigen-peer",
                         {{"mlp", threaded(mlp)},
                          {"mlp-batch64", threaded(mlp)},
                          {"ds-cnn", threaded(dsCnn)},
                          {"mobilenet-block", threaded(mobilenetBlock)},
                          {"transformer", threaded(transformer)},
                          {"gemm", threaded(gemm)}},
                         [] {
                           return "eigen=" + std::to_string(EIGEN_WORLD_VERSION) + "." +
                                  std::to_string(EIGEN_MAJOR_VERSION) + "." +
                                  std::to_string(EIGEN_MINOR_VERSION) + " simd=\"" +
                                  Eigen::SimdInstructionSetsInUse() + "\"";
                         });
}
