// The `cpu` backend: checks arguments and binds sizes as the interpreter does, runs the loaded
// unit and turns its failures into adlab::Error at the IR position.
#include "backends/cpu/cpu_backend.h"

#include <algorithm>
#include <functional>

#include "backends/cpu/codegen.h"
#include "backends/cpu/compiler.h"
#include "backends/cpu/eigen_kernels.h"
#include "backends/cpu/runtime/adlab_cpu_rt.h"
#include "ir/context.h"
#include "ir/suite/inputs.h"
#include "ir/syntax/printer.h"

namespace adlab::backends {

namespace {

using ir::Expr;
using EntryFn = int (*)(const adlab_rt::InArg*, const std::int64_t*, adlab_rt::OutSink*,
                        adlab_rt::Failure*, const adlab_rt::Services*);

std::string fill(std::string text, const adlab_rt::Failure& f) {
  auto put = [&](const std::string& hole, std::int64_t v) {
    for (auto p = text.find(hole); p != std::string::npos; p = text.find(hole))
      text.replace(p, hole.size(), std::to_string(v));
  };
  put("{a}", f.a);
  put("{b}", f.b);
  put("{c}", f.c);
  return text;
}

// One run's results: adlab's buffers handed to the unit (reused from the previous outputs where
// the sizes agree, so a run writes warm pages) and the tensors received.
struct RunState {
  std::vector<ir::Tensor> reuse;             // the caller's previous outputs
  std::vector<std::vector<double>> buffers;  // by result index
  std::vector<ir::Tensor> out;
  std::vector<std::vector<unsigned char>> typed;  // T entries by result index (typed runs)
  std::int64_t scalar_bytes = 0;
  bool typed_mismatch = false;
};

double* result_buffer(void* ctx, std::int64_t k, std::int64_t n) {
  auto* st = static_cast<RunState*>(ctx);
  if (k < 0 || n < 0) return nullptr;
  auto kk = static_cast<std::size_t>(k);
  if (st->buffers.size() <= kk) st->buffers.resize(kk + 1);
  auto& b = st->buffers[kk];
  if (b.size() == static_cast<std::size_t>(n)) return b.data();
  if (kk < st->reuse.size() && st->reuse[kk].values.size() == static_cast<std::size_t>(n))
    b = std::move(st->reuse[kk].values);
  else
    b.assign(static_cast<std::size_t>(n), 0.0);
  return b.data();
}

void receive(void* ctx, int storage, int is_float, std::int64_t rank, const std::int64_t* shape,
             const double* values, const std::int64_t* ints, std::int64_t n,
             const std::int64_t* row_ptr, const std::int64_t* col_idx, const std::int64_t* coords,
             std::int64_t nnz) {
  auto* st = static_cast<RunState*>(ctx);
  const std::size_t k = st->out.size();
  ir::Tensor t;
  t.storage = static_cast<ir::Storage>(storage);
  t.shape.assign(shape, shape + rank);
  if (is_float && k < st->buffers.size() && values && values == st->buffers[k].data() &&
      st->buffers[k].size() == static_cast<std::size_t>(n))
    t.values = std::move(st->buffers[k]);  // written in place by the unit
  else if (is_float)
    t.values.assign(values, values + n);
  else
    t.ints.assign(ints, ints + n);
  if (storage == adlab_rt::kCsr) {
    t.row_ptr.assign(row_ptr, row_ptr + shape[0] + 1);
    t.col_idx.assign(col_idx, col_idx + nnz);
  } else if (storage == adlab_rt::kCoo) {
    t.coords.assign(coords, coords + nnz * rank);
  }
  st->out.push_back(std::move(t));
}

// A floating result's T entries, kept by the index the next `receive` gives the result.
void receive_scalars(void* ctx, const void* values, std::int64_t n, std::int64_t elem_bytes) {
  auto* st = static_cast<RunState*>(ctx);
  if (elem_bytes != st->scalar_bytes || n < 0) {
    st->typed_mismatch = true;
    return;
  }
  const std::size_t k = st->out.size();
  if (st->typed.size() <= k) st->typed.resize(k + 1);
  const auto* b = static_cast<const unsigned char*>(values);
  st->typed[k].assign(b, b + n * elem_bytes);
}

class CpuExecutable : public Executable, public cpu::TypedExecutable {
 public:
  CpuExecutable(ir::FunctionPtr f, const Options& o, cpu::Unit unit, cpu::Built built)
      : f_(std::move(f)), options_(o), unit_(std::move(unit)), built_(std::move(built)) {
    entry_ = reinterpret_cast<EntryFn>(built_.library->symbol("adlab_entry"));
    if (!entry_) throw Error("cpu backend: the compiled unit has no entry point");
  }

  std::vector<ir::Tensor> run(const std::vector<ir::Tensor>& inputs) override {
    std::vector<ir::Tensor> out;
    run_into(inputs, out);
    return out;
  }

  void run_into(const std::vector<ir::Tensor>& inputs, std::vector<ir::Tensor>& outputs) override {
    if (&outputs == &inputs) {  // the inputs must outlive the run
      outputs = run(inputs);
      return;
    }
    RunState state;
    state.reuse = std::move(outputs);
    outputs.clear();
    invoke(inputs, {}, state);
    outputs = std::move(state.out);
  }

  void run_typed(const std::vector<ir::Tensor>& inputs, const std::vector<const void*>& scalars,
                 std::vector<ir::Tensor>& results,
                 std::vector<std::vector<unsigned char>>& typed) override {
    if (scalars.size() != inputs.size())
      throw InternalError("cpu backend: one scalar array per input expected");
    RunState state;
    state.scalar_bytes = scalar_bytes_;
    invoke(inputs, scalars, state);
    if (state.typed_mismatch)
      throw InternalError("cpu backend: a result's entries are not of the unit's scalar type");
    state.typed.resize(state.out.size());
    for (std::size_t k = 0; k < state.out.size(); ++k)
      if (ir::is_float(state.out[k].elem) &&
          state.typed[k].size() != state.out[k].values.size() * scalar_bytes_)
        throw InternalError("cpu backend: result " + std::to_string(k) +
                            " came back without its scalar entries");
    results = std::move(state.out);
    typed = std::move(state.typed);
  }

  // Checks that the unit's T has the width a typed caller passes (adlab_scalar_bytes).
  void expect_scalar_bytes(std::size_t bytes) {
    using BytesFn = std::int64_t (*)();
    auto fn = reinterpret_cast<BytesFn>(built_.library->symbol("adlab_scalar_bytes"));
    if (!fn || fn() != static_cast<std::int64_t>(bytes))
      throw InternalError("cpu backend: the compiled unit's scalar type is not " +
                          std::to_string(bytes) + " bytes wide");
    scalar_bytes_ = static_cast<std::int64_t>(bytes);
  }

 private:
  // Binds the sizes, runs the unit (with T entries where `scalars` has them) and turns a failure
  // into adlab::Error at its IR position.
  void invoke(const std::vector<ir::Tensor>& inputs, const std::vector<const void*>& scalars,
              RunState& state) {
    const ir::Function& f = *f_;
    auto sizes = bind_sizes(f, inputs);
    std::vector<adlab_rt::InArg> args;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const ir::Tensor& t = inputs[k];
      const void* typed = k < scalars.size() && ir::is_float(t.elem) ? scalars[k] : nullptr;
      args.push_back(adlab_rt::InArg{static_cast<int>(t.storage), ir::is_float(t.elem) ? 1 : 0,
                                     t.rank(), t.shape.data(), t.values.data(), t.ints.data(),
                                     t.row_ptr.data(), t.col_idx.data(), t.coords.data(), t.nnz(),
                                     typed});
    }
    adlab_rt::OutSink sink{&state, &receive, scalars.empty() ? nullptr : &receive_scalars};
    adlab_rt::Failure failure{};
    adlab_rt::Services services{&cpu::gemm, &cpu::gemv, &state, &result_buffer};
    int rc = entry_(args.data(), sizes.data(), &sink, &failure, &services);
    if (rc == 1 && failure.kind == adlab_rt::kTooLarge)
      throw Error(f.pos, "a tensor has more than 2^63 entries (the shape's product overflows at " +
                             std::to_string(failure.a) + " x " + std::to_string(failure.b) + ")");
    if (rc == 1) {
      if (failure.site < 0 || static_cast<std::size_t>(failure.site) >= unit_.sites.size())
        throw InternalError("cpu backend: a failure at an unknown site");
      const cpu::Site& s = unit_.sites[static_cast<std::size_t>(failure.site)];
      // the occurrence in the site's own function first (decision 218)
      ir::FunctionPositions cite_in(s.function_start);
      auto ps = ir::Context::current().positions(s.at, f.pos.source);
      if (ps.empty()) ps = ir::Context::current().positions(s.at);
      std::vector<std::string> notes;
      for (std::size_t k = 1; k < ps.size() && k < 4; ++k)
        notes.push_back("also at " + ps[k].str());
      throw Error(ps.empty() ? SourcePos{} : ps[0], fill(s.text, failure), notes);
    }
    if (rc != 0)
      throw Error(f.pos,
                  "cpu backend: the compiled code of `" + f.name + "` failed (out of memory?)");
    for (std::size_t k = 0; k < state.out.size() && k < f.results.size(); ++k)
      state.out[k].elem = f.results[k]->type.elem;
  }

  // The interpreter's parameter binding (ir/interp): kinds, ranks, storage and sizes.
  std::vector<std::int64_t> bind_sizes(const ir::Function& f, const std::vector<ir::Tensor>& args) {
    if (args.size() != f.params.size())
      throw Error(f.pos, "`" + f.name + "` takes " + std::to_string(f.params.size()) +
                             " argument(s), given " + std::to_string(args.size()));
    std::map<const ir::ExprNode*, std::int64_t> sizes;
    auto at = [&](std::size_t k) {
      auto p = ir::pos_of(f.params[k], f.pos.source);
      return p.valid() ? p : f.pos;
    };
    auto bind = [&](Expr s, std::int64_t n, const std::string& from, SourcePos where) {
      if (n < 0)
        throw Error(f.pos,
                    "size `" + ir::var_name(s) + "` is negative (" + std::to_string(n) + ")");
      if (n > adlab_rt::kMaxSize)  // the generated code's range analysis assumes it (decision 187)
        throw Unsupported(f.pos, "cpu backend: size `" + ir::var_name(s) + "` is " +
                                     std::to_string(n) + ", above the 2^31 the backend takes");
      auto [it, fresh] = sizes.emplace(s.get(), n);
      if (!fresh && it->second != n)
        throw Error(where, "shape mismatch: size `" + ir::var_name(s) + "` is " +
                               std::to_string(it->second) + " but " + from + " gives " +
                               std::to_string(n));
    };
    for (std::size_t k = 0; k < args.size(); ++k) {
      const ir::Type& pt = f.params[k]->type;
      const ir::Tensor& t = args[k];
      std::string what = "parameter `" + ir::var_name(f.params[k]) + "`";
      if (pt.dims.empty()) {
        bool fl = ir::is_float(pt.elem);
        if (t.rank() != 0 || ir::is_float(t.elem) != fl ||
            (fl ? t.values.size() : t.ints.size()) != 1)
          throw Error(at(k), what + " expects a scalar " + ir::elem_name(pt.elem));
        if (pt.is_index() &&
            std::find(f.sizes.begin(), f.sizes.end(), f.params[k]) != f.sizes.end())
          bind(f.params[k], t.ints[0], what, at(k));
        continue;
      }
      if (t.elem != pt.elem &&
          (ir::is_float(t.elem) != ir::is_float(pt.elem) || options_.scalar_type != "float"))
        throw Error(at(k), what + " expects " + ir::elem_name(pt.elem) + " entries, given " +
                               ir::elem_name(t.elem));
      if (t.storage != pt.storage)
        throw Error(at(k), what + " is declared " + ir::type_str(pt) + " but given a " +
                               ir::storage_name(t.storage) + " tensor");
      if (t.shape.size() != pt.dims.size())
        throw Error(at(k), what + " has rank " + std::to_string(pt.dims.size()) +
                               " but the given tensor has rank " + std::to_string(t.shape.size()));
      if (t.rank() > 8)
        throw Error(at(k), "cpu backend: tensors of rank above 8 are not supported");
      std::size_t stored =
          t.storage == ir::Storage::Dense ? static_cast<std::size_t>(t.numel()) : t.values.size();
      if ((ir::is_float(t.elem) ? t.values.size() : t.ints.size()) != stored)
        throw Error(at(k),
                    what + " holds " +
                        std::to_string(ir::is_float(t.elem) ? t.values.size() : t.ints.size()) +
                        " entries where its shape needs " + std::to_string(stored));
      for (std::size_t d = 0; d < pt.dims.size(); ++d)
        if (pt.dims[d].as<ir::Var>())
          bind(pt.dims[d], t.shape[d], what + " dimension " + std::to_string(d), at(k));
    }
    std::vector<std::int64_t> out;
    for (auto s : f.sizes) {
      if (!sizes.count(s.get())) {
        auto it = options_.sizes.find(ir::var_name(s));
        if (it == options_.sizes.end())
          throw Error(
              f.pos,
              "size `" + ir::var_name(s) + "` of `" + f.name + "` is not bound by any parameter",
              {"give it on the command line: --size " + ir::var_name(s) + "=N"});
        bind(s, it->second, "--size", f.pos);
      }
      out.push_back(sizes[s.get()]);
    }
    // Compound dimensions, with every size known (exact divisions as declared).
    for (std::size_t k = 0; k < args.size(); ++k) {
      const ir::Type& pt = f.params[k]->type;
      for (std::size_t d = 0; d < pt.dims.size(); ++d) {
        if (pt.dims[d].as<ir::Var>()) continue;
        std::int64_t want = eval_dim(pt.dims[d], sizes, at(k));
        if (want != args[k].shape[d])
          throw Error(at(k), "shape mismatch: parameter `" + ir::var_name(f.params[k]) +
                                 "` dimension " + std::to_string(d) + " is " +
                                 std::to_string(args[k].shape[d]) + " but `" +
                                 ir::expr_str(pt.dims[d]) + "` = " + std::to_string(want));
      }
    }
    return out;
  }

  // A compound parameter dimension's value: the suites' size evaluation (floor division, exact
  // where declared, no wrap-around), with this parameter's position.
  static std::int64_t eval_dim(Expr d, const std::map<const ir::ExprNode*, std::int64_t>& sizes,
                               SourcePos at) {
    ir::SizeMap by_name;
    for (const auto& [v, n] : sizes) by_name[static_cast<const ir::Var*>(v)->name] = n;
    try {
      return ir::eval_size(d, by_name);
    } catch (const Error& e) {
      throw Error(at, e.message());
    }
  }

  ir::FunctionPtr f_;
  Options options_;
  cpu::Unit unit_;
  cpu::Built built_;
  EntryFn entry_ = nullptr;
  std::int64_t scalar_bytes_ = 0;
};

void reject_tuple_parameters(const ir::Function& f) {
  for (const auto& p : f.params)
    if (p->type.is_tuple())
      throw Unsupported(f.pos, "cpu backend: tuple parameters are not supported");
}

// The parameter dimensions the size binding evaluates (eval_dim, i.e. ir::eval_size). Checked
// at compile time, so that another form is UNSUPPORTED there and not an exception from a run,
// which the harness counts as an error of the derivative (an audit finding).
void reject_unsupported_dimensions(const ir::Function& f) {
  for (const auto& p : f.params)
    for (const auto& d : p->type.dims)
      if (!ir::is_size_arithmetic(d))
        throw Unsupported(f.pos, "cpu backend: the parameter dimension `" + ir::expr_str(d) +
                                     "` is not supported");
}

class CpuBackend : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }
  std::string description() const override {
    return "generated C++ compiled to a shared object (OpenMP; double or float)";
  }
  bool default_in_checks() const override { return false; }
  std::unique_ptr<Executable> compile(const ir::FunctionPtr& f, const Options& o) override {
    if (o.scalar_type != "double" && o.scalar_type != "float")
      throw Unsupported(f->pos, "backend cpu: scalar type `" + o.scalar_type +
                                    "` is not supported (double, float)");
    reject_tuple_parameters(*f);
    reject_unsupported_dimensions(*f);
    cpu::Unit unit = cpu::generate(*f);
    auto built = cpu::build(unit, f->name, cpu::ScalarType::builtin(o.scalar_type),
                            cpu::CompilerConfig::from_environment(), o.keep_source);
    return std::make_unique<CpuExecutable>(f, o, std::move(unit), std::move(built));
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

std::unique_ptr<cpu::TypedExecutable> cpu::compile_typed(const ir::FunctionPtr& f,
                                                         const ScalarType& type,
                                                         std::size_t scalar_bytes,
                                                         const Options& o) {
  reject_tuple_parameters(*f);
  reject_unsupported_dimensions(*f);
  cpu::Unit unit = cpu::generate(*f);
  auto built =
      cpu::build(unit, f->name, type, cpu::CompilerConfig::from_environment(), o.keep_source);
  auto exe = std::make_unique<CpuExecutable>(f, o, std::move(unit), std::move(built));
  exe->expect_scalar_bytes(scalar_bytes);
  return exe;
}

}  // namespace adlab::backends
