// ===- tests/runtime/thread_pool_test.cc - The host port's parallel_for ---===
#include <doctest/doctest.h>

#include <stdint.h>

#include <atomic>
#include <chrono>
#include <vector>

#include "mote_host.h"

namespace {

struct Counts {
  std::vector<std::atomic<int>> hits;
  explicit Counts(size_t n) : hits(n) {}
};

void count_hit(void *context, int64_t index) {
  static_cast<Counts *>(context)->hits[static_cast<size_t>(index)].fetch_add(1);
}

void check_every_index_once(mote_host_thread_pool *pool, int64_t count) {
  Counts counts(static_cast<size_t>(count));
  mote_host_parallel_for(pool, count_hit, &counts, count);
  for (int64_t i = 0; i < count; ++i) {
    CAPTURE(i);
    REQUIRE(counts.hits[static_cast<size_t>(i)].load() == 1);
  }
}

} // namespace

TEST_CASE("parallel_for covers every index exactly once for any pool size") {
  for (uint32_t threads : {1u, 2u, 3u, 8u}) {
    CAPTURE(threads);
    mote_host_thread_pool pool;
    REQUIRE(mote_host_thread_pool_init(&pool, threads) == MOTE_OK);
    CHECK(mote_host_thread_pool_size(&pool) == threads);
    for (int64_t count : {0, 1, 2, 7, 64, 1000, 100003})
      check_every_index_once(&pool, count);
    // Many small jobs back to back, growing and shrinking: no job may leak
    // into the next (a worker still finishing one job must not claim
    // indices against the next one's count).
    for (int round = 0; round < 3000; ++round)
      check_every_index_once(&pool, 2 + (round * 7919) % 97);
    mote_host_thread_pool_deinit(&pool);
  }
}

TEST_CASE("parallel_for runs indices on several threads at once") {
  mote_host_thread_pool pool;
  REQUIRE(mote_host_thread_pool_init(&pool, 2) == MOTE_OK);
  // Each of the two indices waits until the other has started: only two
  // threads running together can both see the rendezvous (the wait gives up
  // after a few seconds so a failure does not hang).
  struct Rendezvous {
    std::atomic<int> arrived{0};
    std::atomic<int> met{0};
  } r;
  mote_host_parallel_for(
      &pool,
      [](void *context, int64_t) {
        Rendezvous *r = static_cast<Rendezvous *>(context);
        r->arrived.fetch_add(1);
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (r->arrived.load() < 2 && std::chrono::steady_clock::now() < deadline) {
        }
        if (r->arrived.load() == 2)
          r->met.fetch_add(1);
      },
      &r, 2);
  CHECK(r.met.load() == 2);
  mote_host_thread_pool_deinit(&pool);
}

TEST_CASE("parallel_for nests inline") {
  mote_host_thread_pool pool;
  REQUIRE(mote_host_thread_pool_init(&pool, 4) == MOTE_OK);
  struct Nest {
    mote_host_thread_pool *pool;
    std::atomic<int> inner{0};
  } nest{&pool};
  mote_host_parallel_for(
      &pool,
      [](void *context, int64_t) {
        Nest *n = static_cast<Nest *>(context);
        // A body calling parallel_for again runs that inner loop inline.
        mote_host_parallel_for(
            n->pool, [](void *c, int64_t) { static_cast<Nest *>(c)->inner.fetch_add(1); }, n, 10);
      },
      &nest, 50);
  CHECK(nest.inner.load() == 500);
  mote_host_thread_pool_deinit(&pool);
}

TEST_CASE("the pool reaches generated code through mote_env") {
  mote_host_thread_pool pool;
  REQUIRE(mote_host_thread_pool_init(&pool, 3) == MOTE_OK);
  mote_env env;
  mote_host_env(&pool, &env);
  CHECK(env.user == &pool);
  Counts counts(100);
  env.parallel_for(env.user, count_hit, &counts, 100);
  int total = 0;
  for (auto &h : counts.hits)
    total += h.load();
  CHECK(total == 100);
  mote_host_thread_pool_deinit(&pool);
  // One thread shares nothing: the env says so.
  mote_host_thread_pool alone;
  REQUIRE(mote_host_thread_pool_init(&alone, 1) == MOTE_OK);
  mote_host_env(&alone, &env);
  CHECK((env.parallel_for == nullptr));
  mote_host_thread_pool_deinit(&alone);
  mote_host_thread_pool too_many;
  CHECK(mote_host_thread_pool_init(&too_many, MOTE_HOST_MAX_THREADS + 1) == MOTE_INVALID_ARGUMENT);
  // Zero means one thread per online CPU.
  mote_host_thread_pool automatic;
  REQUIRE(mote_host_thread_pool_init(&automatic, 0) == MOTE_OK);
  CHECK(mote_host_thread_pool_size(&automatic) >= 1);
  mote_host_thread_pool_deinit(&automatic);
}
