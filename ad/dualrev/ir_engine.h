// The dualrev engine for IR programs: Interpreter<Dual> records the tape, one reverse pass per
// cotangent (paper 003 Wrap: Interleave, run, Deinterleave, SResolve, rebuild).
#pragma once

#include <memory>
#include <string>

#include "ad/dualrev/tape.h"
#include "ad/strategy.h"

namespace adlab::ad::dualrev {

// Gradient, vjp or jacobian of f (calling conventions of ad/strategy.h) in the given stage.
// On backend "interp" Interpreter<Dual> records; on "cpu" f's generated unit with T = Dual does
// (one job: the unit runs without OpenMP); other backends are backends::Unsupported.
std::unique_ptr<backends::Executable> make_ir_engine(ir::FunctionPtr f, const Request& r, Variant v,
                                                     const std::string& backend,
                                                     const backends::Options& o);

// The reverse-pass statistics of the last run of an engine made by make_ir_engine (tests).
const ResolveStats* last_resolve_stats(const backends::Executable& e);
// The number of jobs the last run recorded (1 unless a top-level gen ran as fork-join tasks).
std::size_t last_job_count(const backends::Executable& e);

}  // namespace adlab::ad::dualrev
