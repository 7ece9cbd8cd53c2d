// The normalisation pipeline (digest 000 section 4): each pass, then its validator (P9).
#include "ad/iverson/normalise.h"

#include "ad/iverson/cse.h"
#include "ad/iverson/gen_pushout.h"
#include "ad/iverson/inline_calls.h"
#include "ad/iverson/let_lifting.h"
#include "ad/iverson/normal_form.h"
#include "ad/iverson/pair_elimination.h"
#include "ad/iverson/pass_util.h"
#include "ad/iverson/tensor_ssa.h"
#include "ir/error.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {

// A pass's output that breaks its post-condition is a bug of the pass: stop before any
// derivative is built from it.
void require(const Verdict& v, const std::string& pass, const std::string& form,
             std::vector<std::string>& trace, const std::string& summary) {
  if (!v.ok)
    throw InternalError("iverson: normalisation pass `" + pass + "` broke its normal form (" +
                        form + "): " + v.reason +
                        (v.pos.valid() ? " at " + v.pos.str() : std::string()));
  trace.push_back(pass + ": " + summary + "; " + form + ": ok");
}

std::string count(std::size_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

Normalisation normalise_passes(const Function& f, FreshNames& names,
                               logic::PredicateService& logic) {
  Normalisation n;
  n.inlined = inline_calls(f, names);
  require(is_call_free(*n.inlined), "inline calls", "no call", n.trace,
          count(n.inlined->stmts.size(), "statement"));
  n.let_lifted = lift_lets(*n.inlined, names);
  require(is_let_lifted(*n.let_lifted), "let-lifting (5.1-5.10)", "Le: no let in a value", n.trace,
          count(n.inlined->stmts.size(), "statement") + " -> " +
              count(n.let_lifted->stmts.size(), "statement"));
  n.pair_free = eliminate_pairs(*n.let_lifted);
  require(is_pair_free(*n.pair_free), "pair elimination (5.11-5.20)", "SoA: no tuple", n.trace,
          count(n.pair_free->stmts.size(), "statement"));
  n.pushed_out = push_out_gens(*n.pair_free, names, logic);
  require(is_gen_pushed_out(*n.pushed_out), "Gen-pushout (5.21-5.24)",
          "Ge: gens outermost, reads of names", n.trace,
          count(n.pushed_out->stmts.size(), "statement"));
  n.tensor_ssa = to_tensor_ssa(*n.pushed_out, names, logic);
  require(is_tensor_ssa(n.tensor_ssa), "Tensor SSA (5.25-5.34, SE)", "Tensor SSA S/E", n.trace,
          count(n.tensor_ssa.stmts.size(), "statement"));
  n.program = eliminate_common_subexpressions(n.tensor_ssa);
  require(is_canonical(n.program), "CSE and dead statements", "canonical", n.trace,
          count(n.tensor_ssa.stmts.size(), "statement") + " -> " +
              count(n.program.stmts.size(), "statement"));
  return n;
}

SsaProgram normalise(const Function& f, FreshNames& names, logic::PredicateService& logic) {
  return normalise_passes(f, names, logic).program;
}

FunctionPtr to_function(const Function& f, const SsaProgram& p, const std::string& name) {
  return rebuilt(f, name, p.stmts, p.results);
}

}  // namespace adlab::ad::iverson
