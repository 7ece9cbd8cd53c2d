// The cpu backend's build step: content-hashed cache, system compiler, dlopen.
#include "backends/cpu/compiler.h"

#include <dlfcn.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace adlab::backends::cpu {

namespace fs = std::filesystem;

namespace {
std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// FNV-1a, 64 bits, twice with different seeds: a stable content hash for cache keys.
std::string content_hash(const std::string& text) {
  std::uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
  for (unsigned char c : text) {
    a = (a ^ c) * 0x100000001b3ULL;
    b = (b ^ c) * 0x100000001b3ULL + 0x9e37ULL;
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return buf;
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out) throw Error("cpu backend: cannot write `" + p.string() + "`");
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string shell_quote(const std::string& s) {
  std::string r = "'";
  for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

// The compiler's first error, located in the generated source (the first place the log names in
// it) and the IR statement that line came from.
Error compile_error(const std::string& log, const Unit& unit, const fs::path& src) {
  std::smatch m;
  std::string message = "cpu backend: the generated C++ did not compile";
  if (std::regex_search(log, m, std::regex(R"(error: ([^\n]*))"))) message += ": " + m[1].str();
  std::vector<std::string> notes;
  if (std::regex_search(log, m, std::regex(R"(\.cpp:(\d+):(\d+))"))) {
    std::size_t line = std::stoul(m[1].str());
    notes.push_back("at " + src.string() + ":" + m[1].str() + ":" + m[2].str());
    if (line >= 1 && line <= unit.line_origin.size())
      notes.push_back("generated from " + unit.line_origin[line - 1]);
  } else {
    notes.push_back(log.substr(0, 2000));
  }
  return Error(SourcePos{}, message, notes);
}
}  // namespace

CompilerConfig CompilerConfig::from_environment() {
  CompilerConfig c;
  c.compiler = env_or("ADLAB_CXX", "c++");
  c.flags = env_or("ADLAB_CPU_FLAGS", "-O3 -march=native");
  std::string home = env_or("HOME", "/tmp");
  c.cache_dir =
      env_or("ADLAB_CACHE_DIR", env_or("XDG_CACHE_HOME", home + "/.cache") + "/adlab") + "/cpu";
  return c;
}

Library::~Library() {
  if (handle_) dlclose(handle_);
}

void* Library::symbol(const char* name) const {
  return dlsym(handle_, name);
}

Built build(const Unit& unit, const std::string& function_name, const ScalarType& scalar,
            const CompilerConfig& config, const std::string& keep_source) {
  auto t0 = std::chrono::steady_clock::now();
  // Fixed flags: the interpreter's arithmetic (no contraction into fma, no reassociation);
  // no errno from <cmath>, so cos(theta) in a loop body is computed once (decision 112).
  std::string flags =
      config.flags + " -std=c++20 -fPIC -shared" + (scalar.openmp ? " -fopenmp" : "") +
      " -ffp-contract=off -fno-math-errno -DADLAB_SCALAR=" + shell_quote(scalar.name);
  for (const auto& d : scalar.include_dirs) flags += " -I" + shell_quote(d);
  if (!scalar.header.empty()) flags += " -include " + shell_quote(scalar.header);
  std::string key = content_hash(unit.source + '\0' + kRuntimeHeader + '\0' + config.compiler +
                                 '\0' + flags + '\0' + scalar.key_text);
  fs::path dir = config.cache_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw Error("cpu backend: cannot create the cache directory `" + dir.string() +
                "`: " + ec.message());
  fs::path src = dir / (key + ".cpp"), obj = dir / (key + ".so"), hdr = dir / "adlab_cpu_rt.h";
  if (!keep_source.empty()) {
    fs::create_directories(keep_source, ec);
    write_file(fs::path(keep_source) / (function_name + ".cpp"), unit.source);
    write_file(fs::path(keep_source) / "adlab_cpu_rt.h", kRuntimeHeader);
  }
  Built b;
  b.object_path = obj.string();
  b.cache_hit = fs::exists(obj);
  if (!b.cache_hit) {
    // A per-process header and temporary names, renamed into place: concurrent runs share the
    // cache.
    std::string tag = "." + std::to_string(::getpid());
    fs::path hdir = dir / ("rt-" + content_hash(kRuntimeHeader));
    fs::create_directories(hdir, ec);
    fs::path h = hdir / "adlab_cpu_rt.h";
    if (!fs::exists(h) || read_file(h) != kRuntimeHeader) {
      write_file(hdir / ("adlab_cpu_rt.h" + tag), kRuntimeHeader);
      fs::rename(hdir / ("adlab_cpu_rt.h" + tag), h);
    }
    fs::path tmp_src = dir / (key + tag + ".cpp"), tmp_obj = dir / (key + tag + ".so"),
             log = dir / (key + tag + ".log");
    write_file(tmp_src, unit.source);
    std::string cmd = shell_quote(config.compiler) + " " + flags + " -I" +
                      shell_quote(hdir.string()) + " " + shell_quote(tmp_src.string()) + " -o " +
                      shell_quote(tmp_obj.string()) + " > " + shell_quote(log.string()) + " 2>&1";
    int rc = std::system(cmd.c_str());
    std::string out = read_file(log);
    fs::remove(log, ec);
    if (rc != 0) {
      fs::rename(tmp_src, src, ec);
      fs::remove(tmp_obj, ec);
      throw compile_error(out, unit, src);
    }
    fs::rename(tmp_src, src, ec);
    fs::rename(tmp_obj, obj);
  }
  (void)hdr;
  void* h = dlopen(obj.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw Error(std::string("cpu backend: cannot load `") + obj.string() + "`: " + dlerror());
  b.library = std::make_shared<Library>(h);
  b.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return b;
}

}  // namespace adlab::backends::cpu
