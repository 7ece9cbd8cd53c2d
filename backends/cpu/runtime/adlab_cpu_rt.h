// The small runtime header every generated unit of the cpu backend includes (DESIGN 5): tensors,
// bounds-checked reads, sparse lookups and the C ABI between adlab and a loaded unit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace adlab_rt {

using i64 = std::int64_t;
enum Storage : int { kDense = 0, kCsr = 1, kCoo = 2 };

// x + 1 without signed overflow, for loop bounds narrowed from `i <= x` and `i > x`: no index
// exceeds the largest i64, so saturating there narrows nothing (and x + 1 would be undefined
// behaviour that GCC may use to drop the bracket's own test).
inline i64 bound_after(i64 x) {
  return x == std::numeric_limits<i64>::max() ? x : x + 1;
}

// A tensor argument as adlab passes it (read-only views of its arrays).
struct InArg {
  int storage;
  int is_float;
  i64 rank;
  const i64* shape;
  const double* values;
  const i64* ints;
  const i64* row_ptr;
  const i64* col_idx;
  const i64* coords;
  i64 nnz;
  // Entries already of the unit's scalar type T (a caller's dual numbers, say), used instead of
  // `values` when set; adlab checks sizeof(T) against adlab_scalar_bytes() first.
  const void* scalars;
};

// Receives one result: the unit writes dense or sparse arrays through these callbacks.
struct OutSink {
  void* ctx;
  void (*put)(void* ctx, int storage, int is_float, i64 rank, const i64* shape,
              const double* values, const i64* ints, i64 n, const i64* row_ptr, const i64* col_idx,
              const i64* coords, i64 nnz);
  // When set, a floating result of a scalar type other than double is also handed over as it
  // is (n entries of elem_bytes each), just before `put` receives it converted to double.
  void (*put_scalars)(void* ctx, const void* values, i64 n, i64 elem_bytes);
};

// Prebuilt contraction kernels (Eigen, linked into adlab): C[m, n] = A[m, k] * B[k, n]; and
// adlab's buffer for dense f64 result k of n entries, written in place (no copy afterwards).
struct Services {
  void (*gemm)(const double* a, const double* b, double* c, i64 m, i64 k, i64 n);
  void (*gemv)(const double* a, const double* x, double* y, i64 m, i64 n);
  void* ctx;
  double* (*result)(void* ctx, i64 k, i64 n);
};

// The contraction kernels take double: a unit of another T keeps its loops. The calls are
// templates so that they compile, and are never reached, for any other T.
template <class T>
inline constexpr bool kernel_type = std::is_same_v<T, double>;
template <class T>
void gemm(const Services* s, const T* a, const T* b, T* c, i64 m, i64 k, i64 n) {
  if constexpr (kernel_type<T>) s->gemm(a, b, c, m, k, n);
}
template <class T>
void gemv(const Services* s, const T* a, const T* x, T* y, i64 m, i64 n) {
  if constexpr (kernel_type<T>) s->gemv(a, x, y, m, n);
}

// A failure at an IR site: adlab formats the message from the site and these numbers.
struct Failure {
  int site;
  int kind;
  i64 a, b, c;
};
enum FailKind : int {
  kIndex = 1,         // index a outside [0, b) in dimension c
  kShape = 2,         // generated element dimension a where b was expected
  kEmpty = 3,         // max/min over an empty range
  kDivisor = 4,       // integer / or % by a non-positive value a
  kNegative = 5,      // a bound or dimension is negative (a)
  kInexact = 6,       // a declared dimension is not an exact division (a / b)
  kConvert = 7,       // i64(...) of a value that is not a representable integer
  kArg = 8,           // argument a does not match its parameter (b: 0 rank, 1 dim c, 2 kind)
  kSizeMismatch = 9,  // size bound twice: a vs b (site: the parameter)
  kOverflow = 10,     // an i64 result does not fit (a op b), as the interpreter's (decision 181)
  kTooLarge = 11,     // a shape's entries: a times dimension b overflows (site -1: the function)
  kSizeRange = 12     // a size a outside [0, kMaxSize]
};

// The largest size the generated code takes (a dense dimension of 2^31 f64 entries is 16 GiB):
// bounding sizes lets the i64 range analysis prove `i + 2`, `2 * n` and `D * (D - 1)` fit, so
// GMM's packed index stays unchecked in its inner loop (decision 187).
inline constexpr i64 kMaxSize = i64(1) << 31;

[[noreturn]] inline void fail(int site, int kind, i64 a = 0, i64 b = 0, i64 c = 0) {
  throw Failure{site, kind, a, b, c};
}

// Copies or fills n entries; a few are written inline, unrolled (GCC turns a plain loop into a
// library memmove or memset, which costs more than a small tensor's whole computation).
template <class E>
void copy_entries(const E* src, i64 n, E* dst) {
  if (n <= 16) {
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
    for (i64 k = 0; k < n; ++k) dst[k] = src[k];
    return;
  }
  std::copy(src, src + n, dst);
}
template <class E>
void fill_entries(E* dst, i64 n, const E& v) {
  if (n <= 16) {
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
    for (i64 k = 0; k < n; ++k) dst[k] = v;
    return;
  }
  std::fill_n(dst, n, v);
}

// Where a tensor's entries live, which decides what a copy and a move of it do.
enum Keep : int {
  kArgView = 0,   // adlab's argument arrays (or rows of them): they outlive the call, so shared
  kHeap = 1,      // the heap arrays (owned()): copied and moved with them
  kInline = 2,    // the tensor's inline storage (a small dense tensor): copied entry by entry
  kBorrowed = 3,  // a dense row of another tensor of the unit (a slice view): copies are deep
  kResult = 4     // adlab's result buffer: a move keeps pointing at it, a copy is deep
};

// A tensor of E (T or i64): shape, dense entries or a CSR/COO pattern. Small dense tensors keep
// their entries inline (no heap allocation per call or per iteration); a dense row of a tensor is
// a view of it.
template <class E>
struct Tensor {
  // Inline capacity: 128 bytes of entries, for any E that can be copied as bytes (double, float,
  // i64, a dual number); none for other types, which then live on the heap.
  static constexpr i64 kInlineCap =
      std::is_trivially_copyable_v<E> && std::is_trivially_destructible_v<E>
          ? static_cast<i64>(128 / sizeof(E))
          : 0;

  int storage = kDense;
  int keep = kArgView;
  i64 rank = 0;
  i64 shape[8];  // shape[0, rank) is set; the rest is never read (not zeroed: tensors are many)
  const E* p = nullptr;
  E* w = nullptr;  // writable entries (heap, inline or adlab's result buffer); null for views
  i64 nnz = 0;
  const i64* row_ptr = nullptr;
  const i64* col_idx = nullptr;
  const i64* coords = nullptr;
  // Entries and pattern on the heap (own_a, own_b: CSR row_ptr/col_idx or COO coords), behind
  // one pointer: a small tensor then costs one null pointer to make and to destroy.
  struct Heap {
    std::vector<E> own;
    std::vector<i64> own_a, own_b;
  };
  std::unique_ptr<Heap> heap;
  alignas(E) unsigned char inl[kInlineCap > 0 ? kInlineCap * sizeof(E) : 1];

  [[gnu::always_inline]] Tensor() {}  // inlined: small tensors are made per call
  [[gnu::always_inline]] Tensor(const Tensor& o) { copy_from(o); }
  [[gnu::always_inline]] Tensor(Tensor&& o) noexcept { move_from(o); }
  [[gnu::always_inline]] Tensor& operator=(const Tensor& o) {
    if (this != &o) copy_from(o);
    return *this;
  }
  [[gnu::always_inline]] Tensor& operator=(Tensor&& o) noexcept {
    if (this != &o) move_from(o);
    return *this;
  }

  void copy_header(const Tensor& o) {
    storage = o.storage;
    rank = o.rank;
    // The used dimensions only, one at a time: std::copy of all 8 called memmove, and one wide
    // load of entries just written one by one stalls store forwarding.
    for (i64 d = 0; d < o.rank; ++d) shape[d] = o.shape[d];
    nnz = o.nnz;
    row_ptr = o.row_ptr;
    col_idx = o.col_idx;
    coords = o.coords;
  }
  [[gnu::always_inline]] void copy_from(const Tensor& o) {
    copy_header(o);
    if (o.keep == kArgView) {
      keep = kArgView;
      p = o.p;
      w = o.w;
    } else if (o.keep == kHeap) {
      heap = std::make_unique<Heap>(*o.heap);
      keep = kHeap;
      repoint();
    } else {  // inline, borrowed or adlab's buffer: dense entries, copied
      const i64 n = o.numel();
      copy_entries(o.p, n, alloc_dense(n));
    }
  }
  [[gnu::always_inline]] void move_from(Tensor& o) {
    if (o.keep == kInline || o.keep == kBorrowed) {
      copy_from(o);
      return;
    }
    copy_header(o);
    keep = o.keep;
    if (o.keep == kHeap) {
      heap = std::move(o.heap);
      repoint();
    } else {  // argument arrays or adlab's buffer: still the same arrays
      p = o.p;
      w = o.w;
    }
  }
  E* inline_entries() { return std::launder(reinterpret_cast<E*>(inl)); }
  // Storage for n dense entries (inline when they fit), not initialised.
  E* alloc_dense(i64 n) {
    if (n <= kInlineCap) {
      keep = kInline;
      w = inline_entries();
    } else {
      keep = kHeap;
      owned().own.resize(static_cast<std::size_t>(n));
      w = heap->own.data();
    }
    p = w;
    return w;
  }
  // Points p, w and the pattern at the owned vectors (after they were filled).
  void repoint() {
    Heap& h = owned();
    keep = kHeap;
    w = h.own.data();
    p = w;
    if (storage == kCsr) {
      row_ptr = h.own_a.data();
      col_idx = h.own_b.data();
    } else if (storage == kCoo) {
      coords = h.own_a.data();
    }
  }
  Heap& owned() {
    if (!heap) heap = std::make_unique<Heap>();
    return *heap;
  }
  i64 numel() const { return inner(0); }
  i64 inner(i64 from) const {
    i64 n = 1;
    for (i64 d = from; d < rank; ++d) n *= shape[d];
    return n;
  }
  // numel() of a shape about to be allocated: more than 2^63 entries fails as in the interpreter
  // (the product wrapped to 0 and the loops wrote past an inline array; an audit finding). A
  // tensor that exists has a representable count, so numel() needs no check.
  i64 numel_to_allocate() const {
    i64 n = 1;
    for (i64 d = 0; d < rank; ++d) {
      i64 next;
      if (__builtin_mul_overflow(n, shape[d], &next)) [[unlikely]]
        fail(-1, kTooLarge, n, shape[d]);
      n = next;
    }
    return n;
  }
  E* data() { return w; }
};

// A dense tensor of the given shape, filled with zeros.
template <class E>
[[gnu::always_inline]] inline Tensor<E> dense(std::initializer_list<i64> dims) {
  Tensor<E> t;
  t.rank = static_cast<i64>(dims.size());
  i64 k = 0;
  for (i64 d : dims) t.shape[k++] = d;
  t.nnz = t.numel_to_allocate();
  fill_entries(t.alloc_dense(t.nnz), t.nnz, E(0));
  return t;
}

// A dense tensor for result k of the entry: written straight into adlab's buffer when E is
// double (every entry is written by the generated loops, so it is not zeroed here).
template <class E>
Tensor<E> result_dense(const Services* s, i64 k, std::initializer_list<i64> dims) {
  if constexpr (std::is_same_v<E, double>) {
    if (s && s->result) {
      Tensor<E> t;
      t.rank = static_cast<i64>(dims.size());
      i64 d = 0;
      for (i64 x : dims) t.shape[d++] = x;
      t.nnz = t.numel_to_allocate();
      t.w = s->result(s->ctx, k, t.nnz);
      t.p = t.w;
      t.keep = kResult;
      if (t.w) return t;
    }
  }
  return dense<E>(dims);
}

// Views an argument; the kinds, ranks and dimensions are checked by the caller.
template <class E>
Tensor<E> view(const InArg& a, const E* values) {
  Tensor<E> t;
  t.storage = a.storage;
  t.rank = a.rank;
  for (i64 d = 0; d < a.rank; ++d) t.shape[d] = a.shape[d];
  t.p = values;
  t.nnz = a.nnz;
  t.row_ptr = a.row_ptr;
  t.col_idx = a.col_idx;
  t.coords = a.coords;
  return t;
}

// A floating argument as a tensor of T: viewed in place for double, converted otherwise.
template <class T>
Tensor<T> param(const InArg& a) {
  if constexpr (std::is_same_v<T, double>) {
    return view<T>(a, a.values);
  } else {
    if (a.scalars) return view<T>(a, static_cast<const T*>(a.scalars));
    Tensor<T> t = view<T>(a, nullptr);
    i64 n = a.storage == kDense ? t.numel() : a.nnz;
    auto& h = t.owned();
    h.own.resize(static_cast<std::size_t>(n));
    for (i64 k = 0; k < n; ++k) h.own[static_cast<std::size_t>(k)] = T(a.values[k]);
    if (a.storage == kCsr) {
      h.own_a.assign(a.row_ptr, a.row_ptr + a.shape[0] + 1);
      h.own_b.assign(a.col_idx, a.col_idx + a.nnz);
    } else if (a.storage == kCoo) {
      h.own_a.assign(a.coords, a.coords + a.nnz * a.rank);
    }
    t.repoint();
    return t;
  }
}

// A floating scalar argument as a T (the caller's own entry when it passes T's).
template <class T>
T scalar_param(const InArg& a) {
  if constexpr (!std::is_same_v<T, double>)
    if (a.scalars) return *static_cast<const T*>(a.scalars);
  return T(a.values[0]);
}

// The value of a T as a double: a cast for builtin types, else the type's convert_to<double>()
// (a dual number's value; its derivative is dropped, as by i64(...) in the interpreter).
template <class T>
double to_double(const T& x) {
  if constexpr (std::is_arithmetic_v<T>)
    return static_cast<double>(x);
  else
    return x.template convert_to<double>();
}

inline i64 check(int site, i64 i, i64 n, i64 dim) {
  // One unsigned comparison: a negative i wraps above any n >= 0 (dimensions are never negative).
  if (static_cast<std::uint64_t>(i) >= static_cast<std::uint64_t>(n)) [[unlikely]]
    fail(site, kIndex, i, n, dim);
  return i;
}

// i64 + - * and negation that fail where the interpreter does: the language has no wrap-around
// (decision 164). Emitted only where the operands' ranges do not prove the result fits.
inline i64 add_i64(int site, i64 x, i64 y) {
  i64 r;
  if (__builtin_add_overflow(x, y, &r)) [[unlikely]]
    fail(site, kOverflow, x, y);
  return r;
}
inline i64 sub_i64(int site, i64 x, i64 y) {
  i64 r;
  if (__builtin_sub_overflow(x, y, &r)) [[unlikely]]
    fail(site, kOverflow, x, y);
  return r;
}
inline i64 mul_i64(int site, i64 x, i64 y) {
  i64 r;
  if (__builtin_mul_overflow(x, y, &r)) [[unlikely]]
    fail(site, kOverflow, x, y);
  return r;
}
inline i64 neg_i64(int site, i64 x) {
  i64 r;
  if (__builtin_sub_overflow(i64(0), x, &r)) [[unlikely]]
    fail(site, kOverflow, x);
  return r;
}

// A callee's size (from a parameter's shape, or an i64 parameter), in [0, kMaxSize].
inline i64 size_in_range(int site, i64 n) {
  if (n < 0 || n > kMaxSize) [[unlikely]]
    fail(site, kSizeRange, n);
  return n;
}

// Floor division and its remainder (divisor checked positive by the caller's site).
inline i64 fdiv(int site, i64 x, i64 y) {
  if (y <= 0) fail(site, kDivisor, y);
  i64 q = x / y, m = x % y;
  return m < 0 ? q - 1 : q;
}
inline i64 fmod(int site, i64 x, i64 y) {
  if (y <= 0) fail(site, kDivisor, y);
  i64 m = x % y;
  return m < 0 ? m + y : m;
}

// Floor division and remainder by a positive constant (no check; the compiler strength-reduces).
// A power of two is a shift and a mask (C++20: >> of a negative value is arithmetic, i.e. floor).
template <i64 Y>
inline i64 fdiv_c(i64 x) {
  static_assert(Y > 0);
  if constexpr ((Y & (Y - 1)) == 0) {
    int s = 0;
    while ((i64(1) << s) < Y) ++s;
    return x >> s;
  } else {
    i64 q = x / Y, m = x % Y;
    return m < 0 ? q - 1 : q;
  }
}
template <i64 Y>
inline i64 fmod_c(i64 x) {
  static_assert(Y > 0);
  if constexpr ((Y & (Y - 1)) == 0) {
    return x & (Y - 1);
  } else {
    i64 m = x % Y;
    return m < 0 ? m + Y : m;
  }
}

// Position of (r, c) among the stored entries of a CSR tensor, or -1.
template <class E>
i64 csr_find(const Tensor<E>& t, i64 r, i64 c) {
  const i64* b = t.col_idx + t.row_ptr[r];
  const i64* e = t.col_idx + t.row_ptr[r + 1];
  const i64* it = std::lower_bound(b, e, c);
  return it != e && *it == c ? it - t.col_idx : -1;
}
// Position of a full key among the stored entries of a COO tensor, or -1.
template <class E>
i64 coo_find(const Tensor<E>& t, const i64* key) {
  i64 rank = t.rank, lo = 0, hi = t.nnz;
  while (lo < hi) {
    i64 mid = (lo + hi) / 2;
    const i64* k = t.coords + mid * rank;
    if (std::lexicographical_compare(k, k + rank, key, key + rank))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < t.nnz && std::equal(key, key + rank, t.coords + lo * rank)) return lo;
  return -1;
}
// A full read; absent sparse entries read as 0.
template <class E>
E read(const Tensor<E>& t, const i64* key) {
  if (t.storage == kDense) {
    i64 off = 0;
    for (i64 d = 0; d < t.rank; ++d) off = off * t.shape[d] + key[d];
    return t.p[off];
  }
  i64 p = t.storage == kCsr ? csr_find(t, key[0], key[1]) : coo_find(t, key);
  return p < 0 ? E(0) : t.p[p];
}
// Whether key is a stored entry (outside the shape: not stored).
template <class E>
bool stored(const Tensor<E>& t, const i64* key) {
  for (i64 d = 0; d < t.rank; ++d)
    if (key[d] < 0 || key[d] >= t.shape[d]) return false;
  if (t.storage == kCsr) return csr_find(t, key[0], key[1]) >= 0;
  if (t.storage == kCoo) return coo_find(t, key) >= 0;
  return true;
}

// Calls fn(key, position) for every stored entry whose first k coordinates equal prefix.
template <class E, class F>
void for_each_stored(const Tensor<E>& t, const i64* prefix, i64 k, F&& fn) {
  i64 key[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  if (t.storage == kCsr) {
    i64 r0 = k >= 1 ? prefix[0] : 0, r1 = k >= 1 ? prefix[0] + 1 : t.shape[0];
    for (i64 r = r0; r < r1; ++r)
      for (i64 p = t.row_ptr[r]; p < t.row_ptr[r + 1]; ++p) {
        key[0] = r;
        key[1] = t.col_idx[p];
        if (k == 2 && key[1] != prefix[1]) continue;
        fn(static_cast<const i64*>(key), p);
      }
  } else if (t.storage == kCoo) {
    for (i64 p = 0; p < t.nnz; ++p) {
      const i64* c = t.coords + p * t.rank;
      if (!std::equal(prefix, prefix + k, c)) continue;
      fn(c, p);
    }
  } else {
    i64 n = t.inner(k), base = 0;
    for (i64 d = 0; d < k; ++d) {
      key[d] = prefix[d];
      base = base * t.shape[d] + prefix[d];
    }
    base *= n;
    for (i64 q = 0; q < n; ++q) {
      i64 rem = q;
      for (i64 d = t.rank; d-- > k;) {
        key[d] = rem % t.shape[d];
        rem /= t.shape[d];
      }
      fn(static_cast<const i64*>(key), base + q);
    }
  }
}

// A dense copy of the sub-tensor of a sparse tensor with the first k indices fixed.
template <class E>
Tensor<E> densify(const Tensor<E>& t, const i64* key, i64 k) {
  Tensor<E> r;
  r.rank = t.rank - k;
  for (i64 d = 0; d < r.rank; ++d) r.shape[d] = t.shape[k + d];
  const i64 inner = r.numel_to_allocate();  // a sparse shape may have no dense count
  r.nnz = inner;
  E* out = r.alloc_dense(inner);
  std::fill_n(out, inner, E(0));
  for_each_stored(t, key, k, [&](const i64* full, i64 pos) {
    i64 off = 0;
    for (i64 d = k; d < t.rank; ++d) off = off * t.shape[d] + full[d];
    out[off] = t.p[pos];
  });
  return r;
}

// The sub-tensor with the first k indices fixed: a view of a dense tensor's row (no copy; a copy
// of the view is deep unless the row is adlab's argument), a dense copy of a sparse one.
template <class E>
[[gnu::always_inline]] inline Tensor<E> slice(const Tensor<E>& t, const i64* key, i64 k) {
  Tensor<E> r;  // every path returns r: constructed in place (NRVO), not moved
  if (t.storage != kDense) {
    r = densify(t, key, k);
    return r;
  }
  r.rank = t.rank - k;
  i64 off = 0, inner = 1;
  for (i64 d = 0; d < k; ++d) off = off * t.shape[d] + key[d];
  for (i64 d = 0; d < r.rank; ++d) {
    r.shape[d] = t.shape[k + d];
    inner *= r.shape[d];
  }
  r.nnz = inner;
  r.p = t.p + off * inner;
  r.keep = t.keep == kArgView ? kArgView : kBorrowed;
  return r;
}

// Writes a generated element into block `block` of out (a scalar, or a tensor of out's inner
// shape, densified).
template <class E>
void store(int site, Tensor<E>& out, i64 block, const E& v) {
  (void)site;
  out.w[block] = v;
}
template <class E>
void store(int site, Tensor<E>& out, i64 block, const Tensor<E>& v) {
  i64 outer = out.rank - v.rank;
  if (outer < 0) fail(site, kShape, v.rank, out.rank);
  for (i64 d = 0; d < v.rank; ++d)
    if (v.shape[d] != out.shape[outer + d]) fail(site, kShape, v.shape[d], out.shape[outer + d]);
  i64 inner = v.numel();
  // The block must lie inside out (a backstop: the allocation follows the same type).
  if ((block + 1) * inner > out.numel()) fail(site, kShape, (block + 1) * inner, out.numel());
  E* dst = out.w + block * inner;
  if (v.storage == kDense) {
    copy_entries(v.p, inner, dst);
    return;
  }
  Tensor<E> d = densify(v, nullptr, 0);
  std::copy(d.p, d.p + inner, dst);
}

// A dense tensor whose shape is literal in the IR (decision 127): its entries only, no header, so
// that the compiler keeps a callee's 3-vectors in registers. Parameters of such types are passed
// as `const E*` to their N entries, row-major; the shape lives in the generated code.
template <class E, i64 N>
struct Fixed {
  E v[N];
};

// A Tensor holding a copy of fixed entries of the given shape (where a Fixed meets code that
// takes tensors: tuples, loop states, results of the entry).
template <class E>
Tensor<E> fixed_tensor(const E* v, std::initializer_list<i64> dims) {
  Tensor<E> t;
  t.rank = static_cast<i64>(dims.size());
  i64 k = 0;
  for (i64 d : dims) t.shape[k++] = d;
  t.nnz = t.numel();
  copy_entries(v, t.nnz, t.alloc_dense(t.nnz));
  return t;
}

// Copies t's N entries (densified) into dst; the caller has checked t's shape.
template <class E>
void fixed_entries(const Tensor<E>& t, i64 n, E* dst) {
  if (t.storage == kDense) {
    copy_entries(t.p, n, dst);
    return;
  }
  Tensor<E> d = densify(t, nullptr, 0);
  copy_entries(d.p, n, dst);
}

// A tensor's entries as a Fixed of the literal shape dims, checked dimension by dimension (a: the
// tensor's dimension, b: the literal, c: the dimension's position), failing at `site`.
template <class E, i64 N>
Fixed<E, N> fixed_from(int site, int kind, const Tensor<E>& t, std::initializer_list<i64> dims) {
  i64 d = 0;
  for (i64 x : dims) {
    const i64 have = d < t.rank ? t.shape[d] : 0;
    if (have != x) fail(site, kind, have, x, d);
    ++d;
  }
  Fixed<E, N> r;
  fixed_entries(t, N, r.v);
  return r;
}

// A zero sparse tensor of the given shape (the value of a false bracket around one).
template <class E>
Tensor<E> zero_sparse(int storage, std::initializer_list<i64> dims) {
  Tensor<E> t;
  t.storage = storage;
  t.rank = static_cast<i64>(dims.size());
  i64 k = 0;
  for (i64 d : dims) t.shape[k++] = d;
  if (storage == kCsr) {
    t.owned().own_a.assign(static_cast<std::size_t>(t.shape[0] + 1), 0);
  }
  t.repoint();
  return t;
}

// Sends a result to adlab (i64 results as ints, floating ones converted to double).
template <class E>
void put(OutSink* sink, const Tensor<E>& t) {
  constexpr bool fl = !std::is_same_v<E, i64>;
  std::vector<double> vals;
  i64 n = t.storage == kDense ? t.numel() : t.nnz;
  const double* vp = nullptr;
  const i64* ip = nullptr;
  if constexpr (std::is_same_v<E, double>) {
    vp = t.p;  // adlab copies it once
  } else if constexpr (fl) {
    if (sink->put_scalars) sink->put_scalars(sink->ctx, t.p, n, static_cast<i64>(sizeof(E)));
    vals.resize(static_cast<std::size_t>(n));
    for (i64 k = 0; k < n; ++k) vals[static_cast<std::size_t>(k)] = to_double(t.p[k]);
    vp = vals.data();
  } else {
    ip = t.p;
  }
  sink->put(sink->ctx, t.storage, fl, t.rank, t.shape, vp, ip, n, t.row_ptr, t.col_idx, t.coords,
            t.nnz);
}
template <class E>
void put_scalar(OutSink* sink, const E& v) {
  Tensor<E> t;
  t.nnz = 1;
  *t.alloc_dense(1) = v;
  put(sink, t);
}

// This thread's static chunk [lo, hi) of [0, n) inside a parallel region (all of it outside one).
inline void chunk(i64 n, i64& lo, i64& hi) {
#ifdef _OPENMP
  i64 t = omp_get_thread_num(), nt = omp_get_num_threads();
  i64 q = n / nt, r = n % nt;
  lo = t * q + (t < r ? t : r);
  hi = lo + q + (t < r ? 1 : 0);
#else
  lo = 0;
  hi = n;
#endif
}

// The first failure of a parallel loop, by iteration order, so errors are deterministic.
struct ParallelFailure {
  bool any = false;
  i64 at = 0;
  Failure f{};
  void note(i64 iteration, const Failure& x) {
#ifdef _OPENMP
#pragma omp critical(adlab_rt_failure)
#endif
    {
      if (!any || iteration < at) {
        any = true;
        at = iteration;
        f = x;
      }
    }
  }
  void rethrow() const {
    if (any) throw f;
  }
};

// sigmoid: the scalar type's own, when argument-dependent lookup finds one (a dual number
// records one node), else 1 / (1 + exp(-x)) with the type's exp. (adlab_rt declares no
// `sigmoid`, so the unqualified call below is argument-dependent lookup only.)
template <class T>
T sigmoid_of(const T& x) {
  if constexpr (requires { sigmoid(x); }) {
    return T(sigmoid(x));
  } else {
    using std::exp;
    return T(1) / (T(1) + exp(T(-x)));
  }
}

}  // namespace adlab_rt
