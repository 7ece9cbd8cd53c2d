// Proves rewrite rules with Z3 (DESIGN 4.1): the same Rule objects the engine applies.
//
// Pattern variables become uninterpreted symbols: sizes and index expressions integers,
// predicates booleans, scalars reals (IEEE doubles for the IEEE check), tensors functions from
// indices. A pattern variable under a binder is a function of the binders it may depend on (all
// of them but those the side conditions declare it not free in). Pattern variables are total
// unless declared partial(?v), in which case their definedness is a symbol too.
//
// Verdicts: PROVED (for all sizes: symbolic bounds, tensors as functions, the single-point sum
// lemma), PROVED-UP-TO-N (every size up to the bound when a sum, loop or scan needs concrete
// bounds), REFUTED (with a counterexample) or UNKNOWN (timeout or no encoding; never a pass).
#pragma once

#include <string>
#include <vector>

#include "checker/smt/counterexample_replay.h"
#include "ir/rewrite/rule.h"

namespace adlab::checker::smt {

enum class Verdict { Proved, ProvedUpToN, Refuted, Unknown };
const char* verdict_name(Verdict v);
bool is_pass(Verdict v);

struct ProofOptions {
  unsigned timeout_ms = 10000;  // per solver query
  int bound = 8;                // sizes 0..bound for PROVED-UP-TO-N
  bool use_lemmas = true;       // single-point sum lemma for symbolic bounds
};

struct RuleProof {
  std::string table, rule, cite;
  std::string domain;  // "real" or "ieee"
  std::string claim;   // "equiv" or "refines"
  Verdict verdict = Verdict::Unknown;
  int bound = 0;                           // PROVED-UP-TO-N: the n
  std::string theory;                      // where the verdict came from: "real" or "ieee"
  std::string counterexample;              // REFUTED: every pattern variable and both sides
  Replay replay;                           // REFUTED: the counterexample run on the interpreter
  std::string detail;                      // UNKNOWN: why; PROVED: lemmas used
  std::vector<std::string> assumptions;    // algebraic facts assumed (printed)
  std::string real_verdict, ieee_verdict;  // per theory ("" when not checked)
  double seconds = 0;
  bool errata = false;  // from the errata corpus: expected REFUTED
};

RuleProof prove_rule(const ir::rewrite::Rule& r, const ProofOptions& o = {});
std::vector<RuleProof> prove_table(const ir::rewrite::RuleTable& t, const ProofOptions& o = {});

}  // namespace adlab::checker::smt
