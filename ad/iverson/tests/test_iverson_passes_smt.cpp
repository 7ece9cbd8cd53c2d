// Translation validation of the normalisation pipeline pass by pass (digest 000 section 4: each
// pass's correctness obligation Eval(e) = Eval(gamma(e))): every pass's output against its input,
// on every TC of digest 000 section 12 at small sizes.
#include <catch2/catch.hpp>

#include "ad/iverson/normalise.h"
#include "ad/iverson/tests/iverson_test_util.h"
#include "checker/smt/translation_validation.h"
#include "ir/syntax/printer.h"

using namespace adlab;
using namespace adlab::ad;
using namespace adlab::ad::iverson::testing;
using checker::smt::Verdict;

TEST_CASE(
    "digest 000 section 4 TC1-TC20: inline calls, let-lifting, pair elimination, Gen-pushout, "
    "Tensor SSA and CSE are each "
    "translation-validated against their input",
    "[smt]") {
  auto suite = ir::load_manifest(suites_root() + "/papers/iverson/manifest.json", suites_root());
  std::map<std::string, std::size_t> proved;
  for (const auto& e : suite.entries) {
    auto f = load(e);
    iverson::FreshNames names;
    names.reserve_all(*f);
    ir::logic::PredicateService logic;
    auto n = iverson::normalise_passes(*f, names, logic);
    auto ssa = iverson::to_function(*f, n.tensor_ssa, f->name + "_ssa");
    auto canonical = iverson::to_function(*f, n.program, f->name + "_canonical");
    // small sizes keep the unrolled terms small; TC20 is fixed at 8
    std::map<std::string, std::int64_t> sizes;
    for (const auto& [name, v] : e.size_set("small")) sizes[name] = std::min<std::int64_t>(v, 3);
    struct Step {
      const char* pass;
      const ir::Function *before, *after;
    };
    for (const Step& s : {Step{"inline calls", f.get(), n.inlined.get()},
                          Step{"let-lifting", n.inlined.get(), n.let_lifted.get()},
                          Step{"pair elimination", n.let_lifted.get(), n.pair_free.get()},
                          Step{"Gen-pushout", n.pair_free.get(), n.pushed_out.get()},
                          Step{"Tensor SSA", n.pushed_out.get(), ssa.get()},
                          Step{"CSE", ssa.get(), canonical.get()}}) {
      auto v = checker::smt::validate_equivalent(*s.before, *s.after, sizes);
      INFO(e.id() << ", pass " << s.pass << ": " << checker::smt::verdict_name(v.verdict) << " "
                  << v.detail << " " << v.counterexample << "\n"
                  << ir::function_str(*s.before) << "=>\n"
                  << ir::function_str(*s.after));
      CHECK(v.verdict == Verdict::Proved);
      if (v.verdict == Verdict::Proved) ++proved[s.pass];
    }
  }
  for (const char* pass :
       {"inline calls", "let-lifting", "pair elimination", "Gen-pushout", "Tensor SSA", "CSE"}) {
    INFO(pass);
    CHECK(proved[pass] == suite.entries.size());
  }
}
