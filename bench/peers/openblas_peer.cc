//===- openblas_peer.cc - The GEMM on OpenBLAS's cblas_sgemm --------------===//
//
// OpenBLAS picks its kernels by core type at load time; on CPUs newer than
// it knows (0.3.21) the auto-detection falls back to older kernels, so the
// harness sets OPENBLAS_CORETYPE (SkylakeX on AVX-512 machines) and --info
// reports the core type and configuration actually in use.
//
//===----------------------------------------------------------------------===//

#include "peer.h"

#include <memory>

#include <cblas.h>

namespace {

struct Gemm {
  bench::Tensor a, b, c;
};

bench::Prepared gemm(const bench::ModelFiles &files, int threads) {
  openblas_set_num_threads(threads);
  auto g = std::make_shared<Gemm>();
  g->a = files.load("input_0");
  g->b = files.load("input_1");
  g->c = bench::zeros({g->a.dims[0], g->b.dims[1]});
  bench::Prepared prepared;
  prepared.output = &g->c;
  prepared.infer = [g] {
    const int m = int(g->a.dims[0]), k = int(g->a.dims[1]), n = int(g->b.dims[1]);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, g->a.data(), k,
                g->b.data(), n, 0.0f, g->c.data(), n);
  };
  return prepared;
}

} // namespace

int main(int argc, char **argv) {
  return bench::peerMain(argc, argv, "openblas-peer", {{"gemm", gemm}}, [] {
    return std::string("core=") + openblas_get_corename() + " config=\"" + openblas_get_config() +
           "\"";
  });
}
