// The C++ API used the wrong way (audit findings, decision 173): each case gave a silently wrong
// gradient or a crash; now it gives the right value or an adlab::Error.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "ad/dualrev/api.h"
#include "ad/dualrev/particles.h"

using namespace adlab;
using namespace adlab::ad::dualrev;

TEST_CASE("gradient, jacobian and vjp read the inputs' IDs, not the vector f may assign to",
          "[dualrev]") {
  // f = 2 a b at (1.5, 2): the gradient is (2b, 2a) = (4, 3); reading x[0] back after
  // `x[0] *= 2` gave d/d(2a) = (2, 3)
  auto doubled = [](std::vector<Dual>& x) {
    x[0] *= 2.0;
    return Dual(x[0] * x[1]);
  };
  auto doubled_rows = [&](std::vector<Dual>& x) { return std::vector<Dual>{doubled(x)}; };
  for (Variant v : {Variant::Tape, Variant::StagedMap, Variant::Naive}) {
    INFO(variant_name(v));
    Tape t;
    CHECK(gradient(t, doubled, {1.5, 2.0}, v).gradient == std::vector<double>{4.0, 3.0});
    CHECK(jacobian(t, doubled_rows, {1.5, 2.0}, v) ==
          std::vector<std::vector<double>>{{4.0, 3.0}});
    CHECK(vjp(t, doubled_rows, {1.5, 2.0}, {1.0}, v) == std::vector<double>{4.0, 3.0});
  }
  // f swaps its arguments and returns a^2 b at (1, 2): the columns stay the inputs' (4, 1)
  Tape t;
  auto swapped = [](std::vector<Dual>& x) {
    std::swap(x[0], x[1]);
    return Dual(x[1] * x[1] * x[0]);
  };
  CHECK(gradient(t, swapped, {1.0, 2.0}).gradient == std::vector<double>{4.0, 1.0});
}

TEST_CASE("a seed on a scalar of an abandoned fork is an error in the tape variant, not 0",
          "[dualrev]") {
  for (unsigned threads : {1u, 2u}) {
    INFO(threads << " threads");
    Tape t(TapeOptions{threads});
    Dual x, keep;
    {
      Recording r(t);
      x = make_input(1.5);
      CHECK_THROWS_AS(parallel(
                          [&] {
                            keep = x * x;
                            return keep;
                          },
                          []() -> Dual { throw std::runtime_error("right side failed"); }),
                      std::runtime_error);
    }
    t.clear_seeds();
    t.seed(keep.id(), 1.0);
    CHECK_THROWS_WITH(t.resolve(Variant::Tape), Catch::Contains("abandoned"));
    NodeId out[1] = {keep.id()}, in[1] = {x.id()};
    double row[1] = {-1.0};
    CHECK_THROWS_WITH(t.jacobian_rows(out, in, row), Catch::Contains("abandoned"));
  }
}

TEST_CASE("stop() inside a side of a fork is an error, not a null job", "[dualrev]") {
  for (unsigned threads : {1u, 2u}) {
    INFO(threads << " threads");
    Tape t(TapeOptions{threads});
    Recording r(t);
    Dual x = make_input(2.0);
    CHECK_THROWS_WITH(parallel(
                          [&] {
                            Dual a = x * x;
                            t.stop();
                            return a;
                          },
                          [&] { return Dual(x * 3.0); }),
                      Catch::Contains("inside a side of a fork"));
  }
}

TEST_CASE("a Recording that cannot stop its tape abandons it instead of terminating", "[dualrev]") {
  Tape a, b;
  // f opens b and throws before stopping it: a's Recording ends while b's is open on the thread
  auto f = [&](const std::vector<Dual>& x) {
    b.start();
    Dual z = make_input(1.0);
    if (x[0].value() > 0) throw std::runtime_error("user error inside f");
    b.stop();
    return Dual(x[0] * z);
  };
  CHECK_THROWS_WITH(gradient(a, f, {1.0}), "user error inside f");
  CHECK(!a.recording());
  CHECK_THROWS_WITH(a.resolve(), Catch::Contains("abandoned"));
  // b's recording is still open and can be stopped; a records again afterwards
  CHECK(b.recording());
  b.stop();
  auto sq = [](const std::vector<Dual>& x) { return Dual(x[0] * x[0]); };
  CHECK(gradient(a, sq, {3.0}).gradient == std::vector<double>{6.0});
}

TEST_CASE("particles: a state without a whole particle is an error", "[dualrev]") {
  CHECK_THROWS_WITH(testing::particles(std::vector<double>{1.0, 2.0}, 3, false),
                    Catch::Contains("4 scalars"));
  CHECK_THROWS_WITH(testing::particles(std::vector<double>{1, 2, 3, 4, 5}, 3, false),
                    Catch::Contains("4 scalars"));
}

TEST_CASE("a Dual kept over exactly kJobTags recordings: past the job's end, an error",
          "[dualrev]") {
  // Decision 146's tags wrap after 255 recordings (documented); such a Dual whose sequence number
  // lies past the current job's end was recorded as a local edge and its adjoint written past
  // the job's array (memory corruption, found by an audit helper)
  Tape t;
  Dual old;
  std::uint32_t tag = 0;
  {
    Recording r(t);
    tag = t.tag();
    for (int k = 0; k < 6; ++k) old = make_input(1.0);  // sequence 5
  }
  bool wrapped = false;
  for (unsigned k = 0; k < 2 * kJobTags && !wrapped; ++k) {
    t.start();
    wrapped = t.tag() == tag;
    if (!wrapped) t.stop();
  }
  REQUIRE(wrapped);
  Dual x = make_input(2.0);
  CHECK_THROWS_WITH(Dual(x * old), Catch::Contains("not recorded by this recording"));
  t.stop();
}
