// `adlab rules [--table T]... [--json] [--out FILE] [--timeout MS] [--bound N]`: proves every
// registered rule table with Z3 (DESIGN 4.1) and prints one row per rule. Exit status 1 when a
// rule is REFUTED or UNKNOWN, except the errata corpus, whose rules must be REFUTED (a proved
// erratum is the failure there).
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "checker/smt/rule_prover.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "ir/error.h"
#include "ir/rewrite/tables/tables.h"

namespace adlab::cli {

namespace {

// Whether a proof is what its table promises: a pass, or a confirmed refutation for an erratum.
bool as_expected(const checker::smt::RuleProof& p) {
  if (p.errata) return p.verdict == checker::smt::Verdict::Refuted && p.replay.confirmed;
  return checker::smt::is_pass(p.verdict);
}

std::string verdict_text(const checker::smt::RuleProof& p) {
  std::string v = checker::smt::verdict_name(p.verdict);
  if (p.verdict == checker::smt::Verdict::ProvedUpToN)
    v = "PROVED-UP-TO-" + std::to_string(p.bound);
  return v;
}

}  // namespace

void add_rules(CLI::App& app, int& status) {
  static std::vector<std::string> tables;
  static std::string out;
  static bool json = false, list = false;
  static unsigned timeout_ms = 10000;
  static int bound = 8;
  auto* cmd = app.add_subcommand("rules",
                                 "Prove every rewrite rule table with Z3 (the errata corpus must "
                                 "be refuted)");
  cmd->add_option("--table", tables, "only these tables (default: every registered one)");
  cmd->add_flag("--json", json, "machine-readable output");
  cmd->add_option("--out", out, "write the output to FILE instead of stdout");
  cmd->add_option("--timeout", timeout_ms, "per-query Z3 timeout in milliseconds (default 10000)");
  cmd->add_option("--bound", bound, "sizes 0..N for PROVED-UP-TO-N (default 8)")
      ->check(CLI::Range(0, 64));
  cmd->add_flag("--list", list, "list the tables and their rules without proving them");
  cmd->callback([&status] {
    auto& reg = ir::rewrite::TableRegistry::instance();
    std::vector<const ir::rewrite::RuleTable*> chosen;
    for (const auto& name : tables) {
      const auto* t = reg.find(name);
      if (!t) {
        std::string known;
        for (const auto* k : reg.tables()) known += (known.empty() ? "" : ", ") + k->name;
        throw adlab::Error("unknown rule table `" + name + "` (known: " + known + ")");
      }
      chosen.push_back(t);
    }
    if (chosen.empty()) chosen = reg.tables();
    std::ostringstream text;
    if (list) {
      for (const auto* t : chosen) {
        text << t->name << ": " << t->description << "\n";
        for (const auto& r : t->rules)
          text << "  " << r.name() << " [" << r.spec.cite << "]: " << r.spec.lhs << "  ->  "
               << r.spec.rhs << (r.spec.when.empty() ? "" : "  when " + r.spec.when) << "\n";
      }
      write_output(out, text.str());
      status = 0;
      return;
    }
    checker::smt::ProofOptions o;
    o.timeout_ms = timeout_ms;
    o.bound = bound;
    nlohmann::json j = nlohmann::json::array();
    int bad = 0, total = 0;
    double seconds = 0;
    if (!json)
      text << std::left << std::setw(20) << "table" << std::setw(30) << "rule" << std::setw(36)
           << "citation" << std::setw(7) << "domain" << std::setw(18) << "result"
           << "time\n";
    for (const auto* t : chosen) {
      for (const auto& p : checker::smt::prove_table(*t, o)) {
        ++total;
        seconds += p.seconds;
        bool ok = as_expected(p);
        if (!ok) ++bad;
        if (json) {
          j.push_back({{"table", p.table},
                       {"rule", p.rule},
                       {"citation", p.cite},
                       {"domain", p.domain},
                       {"claim", p.claim},
                       {"result", checker::smt::verdict_name(p.verdict)},
                       {"bound", p.bound},
                       {"theory", p.theory},
                       {"real", p.real_verdict},
                       {"ieee", p.ieee_verdict},
                       {"counterexample", p.counterexample},
                       {"replay",
                        {{"available", p.replay.available},
                         {"confirmed", p.replay.confirmed},
                         {"left", p.replay.left},
                         {"right", p.replay.right},
                         {"reason", p.replay.reason}}},
                       {"detail", p.detail},
                       {"assumptions", p.assumptions},
                       {"errata", p.errata},
                       {"as_expected", ok},
                       {"seconds", p.seconds}});
          continue;
        }
        std::ostringstream time;
        time << std::fixed << std::setprecision(2) << p.seconds << " s";
        // A column wider than its field keeps one space before the next (long citations).
        auto col = [](const std::string& s, std::size_t w) {
          return s.size() < w ? s + std::string(w - s.size(), ' ') : s + " ";
        };
        text << col(p.table, 20) << col(p.rule, 30) << col(p.cite, 36) << col(p.domain, 7)
             << std::left << std::setw(18) << verdict_text(p) << time.str()
             << (ok ? "" : "   <- not as expected") << "\n";
        if (!p.assumptions.empty()) {
          text << "    assuming:";
          for (const auto& a : p.assumptions) text << " " << a << ";";
          text << "\n";
        }
        if (p.verdict == checker::smt::Verdict::Refuted) {
          if (p.theory == "ieee") text << "    " << p.detail << "\n";
          text << "    counterexample: " << p.counterexample << "\n";
          text << "    replayed on the interpreter: "
               << (p.replay.available ? "left " + p.replay.left + ", right " + p.replay.right +
                                            (p.replay.confirmed ? " (differ)" : " (agree!)")
                                      : "not replayed (" + p.replay.reason + ")")
               << "\n";
        } else if (p.verdict == checker::smt::Verdict::Unknown) {
          text << "    " << p.detail << "\n";
        }
      }
    }
    if (json) {
      text << json_text(j) << "\n";
    } else {
      text << total << " rules in " << chosen.size()
           << (chosen.size() == 1 ? " table, " : " tables, ") << std::fixed << std::setprecision(1)
           << seconds << " s: "
           << (bad == 0 ? "every rule as expected (core proved, errata refuted)"
                        : std::to_string(bad) + " not as expected")
           << "\n";
    }
    write_output(out, text.str());
    status = bad == 0 ? 0 : 1;
  });
}

}  // namespace adlab::cli
