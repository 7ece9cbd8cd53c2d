// The scalar of the tensorised forward mode (paper 004 Fig. 6, D_tau): a primal value and its
// tau-tangent, a sparse vector over the stored coordinates of the differentiated variables.
// A tensor of SparseDuals is the pair <e, D_tau[[e]]>: D_tau[[e]] : D (x) tau is held as one sparse
// tau-vector per stored entry of e, so the tangent is never densified (digest 004 section 3.2).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "ir/interp/scalar.h"
namespace adlab::ad::sparse {

// One stored entry of a tau-tangent: the coordinate of tau and the coefficient there.
struct TangentEntry {
  std::int64_t coord;
  double value;
};
using TangentEntries = std::vector<TangentEntry>;

// Floating work on tangents (DESIGN 4.3): one mul per scaled entry, one add per merged pair.
struct TangentCounts {
  std::int64_t adds = 0;
  std::int64_t muls = 0;
};
// The counts of the engine running on this thread; null: not counted.
inline thread_local TangentCounts* tl_tangent_counts = nullptr;
// Magnitude mode (the checker's |J|): every partial is taken by absolute value, so a tangent
// entry sums the absolute values of the chain-rule terms of its derivative (decision 205).
inline thread_local bool tl_magnitudes = false;

class SparseDual {
 public:
  SparseDual() = default;
  // A constant: its tangent is zero[real (x) tau] = {} (digest 004 errata: ingrad's zero type).
  SparseDual(double v) : v_(v) {}  // NOLINT(google-explicit-constructor): reads like double
  SparseDual(double v, TangentEntries d) : v_(v) {
    if (!d.empty()) {
      d_ = std::make_shared<TangentEntries>(std::move(d));
      canonical_ = 0;
    }
  }

  double value() const { return v_; }
  bool is_constant() const { return !d_ || d_->empty(); }
  // The value (ir::math::to_double's hook); drops the tangent.
  template <class U>
  U convert_to() const {
    return static_cast<U>(v_);
  }
  // The tangent with each coordinate once, sorted (merges pending additions first).
  const TangentEntries& tangent() const {
    static const TangentEntries kEmpty;
    if (!d_) return kEmpty;
    compact();
    return *d_;
  }
  std::size_t stored() const { return d_ ? d_->size() : 0; }

  // D[[e1 + e2]] = D[[e1]] + D[[e2]]: in place, appending; duplicates merge lazily (amortised),
  // so accumulating k entries into a sum costs O(k log k), never the size of tau.
  SparseDual& operator+=(const SparseDual& b) {
    v_ += b.v_;
    append(b, 1.0);
    return *this;
  }
  SparseDual& operator-=(const SparseDual& b) {
    v_ -= b.v_;
    append(b, -1.0);
    return *this;
  }
  SparseDual& operator*=(const SparseDual& b) { return *this = *this * b; }
  SparseDual& operator/=(const SparseDual& b) { return *this = *this / b; }

  // paper 004 Fig. 6: D[[e1 * e2]] = e1 * D[[e2]] + D[[e1]] *T e2 (scalar case: *T is *).
  friend SparseDual operator*(const SparseDual& a, const SparseDual& b) {
    SparseDual r(a.v_ * b.v_);
    r.append(b, a.v_);
    r.append(a, b.v_);
    return r;
  }
  friend SparseDual operator+(const SparseDual& a, const SparseDual& b) {
    SparseDual r = a;
    r += b;
    return r;
  }
  friend SparseDual operator-(const SparseDual& a, const SparseDual& b) {
    SparseDual r = a;
    r -= b;
    return r;
  }
  friend SparseDual operator/(const SparseDual& a, const SparseDual& b) {
    const double q = a.v_ / b.v_, r = 1 / b.v_;
    SparseDual out(q);
    out.append(a, r);
    out.append(b, -q * r);
    return out;
  }
  friend SparseDual operator-(const SparseDual& a) { return chain(-a.v_, a, -1.0); }
  friend SparseDual operator+(const SparseDual& a) { return a; }

  // D[[op(e)]] = op'(e) * D[[e]] (paper 004 Fig. 6).
  static SparseDual chain(double v, const SparseDual& a, double da) {
    SparseDual r(v);
    r.append(a, da);
    return r;
  }
  // v with tangent da D[a] + db D[b].
  static SparseDual chain2(double v, const SparseDual& a, double da, const SparseDual& b,
                           double db) {
    SparseDual r(v);
    r.append(a, da);
    r.append(b, db);
    return r;
  }

 private:
  // Adds scale * D[b] to this tangent (copy-on-write: tangents are shared between copies).
  void append(const SparseDual& b, double scale) {
    if (b.is_constant()) return;
    if (tl_magnitudes) {  // a zero partial is no term: 0 * inf is not a magnitude
      if (scale == 0) return;
      scale = std::fabs(scale);
    }
    const std::shared_ptr<TangentEntries> src = b.d_;  // held: `x += x` clones before appending
    if (!d_ && scale == 1.0) {  // share: an unscaled tangent moves by reference
      d_ = b.d_;
      canonical_ = b.canonical_;
      return;
    }
    if (!d_) {
      d_ = std::make_shared<TangentEntries>();
      canonical_ = 0;
    } else if (d_.use_count() > 1) {
      d_ = std::make_shared<TangentEntries>(*d_);
    }
    const bool was_empty = d_->empty();
    // Geometric growth (x1.5): reserving exactly size + k would reallocate on every append.
    if (d_->capacity() < d_->size() + src->size())
      d_->reserve(std::max(d_->capacity() + d_->capacity() / 2, d_->size() + src->size()));
    for (const auto& e : *src) d_->push_back({e.coord, e.value * scale});
    if (tl_tangent_counts && scale != 1.0)
      tl_tangent_counts->muls += static_cast<std::int64_t>(src->size());
    if (was_empty) {
      canonical_ = b.canonical_;
    } else if (d_->size() > canonical_ + canonical_ / 2 + 16) {  // pending > half: merge
      compact();
    }
  }
  // Sorts by coordinate and merges duplicates (each merge is one addition).
  void compact() const {
    if (canonical_ == d_->size()) return;
    if (d_.use_count() > 1) d_ = std::make_shared<TangentEntries>(*d_);
    auto by_coord = [](const TangentEntry& x, const TangentEntry& y) { return x.coord < y.coord; };
    auto mid = d_->begin() + static_cast<std::ptrdiff_t>(canonical_);
    std::stable_sort(mid, d_->end(), by_coord);
    std::inplace_merge(d_->begin(), mid, d_->end(), by_coord);
    std::size_t w = 0;
    std::int64_t merged = 0;
    for (std::size_t k = 0; k < d_->size(); ++k) {
      if (w > 0 && (*d_)[w - 1].coord == (*d_)[k].coord) {
        (*d_)[w - 1].value += (*d_)[k].value;
        ++merged;
      } else {
        (*d_)[w++] = (*d_)[k];
      }
    }
    d_->resize(w);
    if (d_->capacity() > 2 * w + 32) d_->shrink_to_fit();  // many duplicates collapsed
    canonical_ = w;
    if (tl_tangent_counts) tl_tangent_counts->adds += merged;
  }

  double v_ = 0;
  // Null: the zero tangent (sparsity propagation S1-S4 cost nothing on it). Entries [0,
  // canonical_) are sorted with distinct coordinates; the rest are pending additions.
  mutable std::shared_ptr<TangentEntries> d_;
  mutable std::size_t canonical_ = 0;
};

// ---- comparisons act on values (a derivative does not change a branch) ----
inline bool operator==(const SparseDual& a, const SparseDual& b) {
  return a.value() == b.value();
}
inline bool operator!=(const SparseDual& a, const SparseDual& b) {
  return a.value() != b.value();
}
inline bool operator<(const SparseDual& a, const SparseDual& b) {
  return a.value() < b.value();
}
inline bool operator<=(const SparseDual& a, const SparseDual& b) {
  return a.value() <= b.value();
}
inline bool operator>(const SparseDual& a, const SparseDual& b) {
  return a.value() > b.value();
}
inline bool operator>=(const SparseDual& a, const SparseDual& b) {
  return a.value() >= b.value();
}

// ---- primitives: op'(e) * D[[e]] (paper 004 Fig. 6; found by argument-dependent lookup) ----
inline SparseDual exp(const SparseDual& x) {
  const double e = std::exp(x.value());
  return SparseDual::chain(e, x, e);
}
inline SparseDual log(const SparseDual& x) {
  return SparseDual::chain(std::log(x.value()), x, 1 / x.value());
}
inline SparseDual log1p(const SparseDual& x) {
  return SparseDual::chain(std::log1p(x.value()), x, 1 / (1 + x.value()));
}
// exp(x), not expm1(x) + 1, which cancels below x = -37 (decision 224)
inline SparseDual expm1(const SparseDual& x) {
  return SparseDual::chain(std::expm1(x.value()), x, std::exp(x.value()));
}
inline SparseDual sin(const SparseDual& x) {
  return SparseDual::chain(std::sin(x.value()), x, std::cos(x.value()));
}
// digest 004 section 9.1 test 10: cos' = -1 * sin
inline SparseDual cos(const SparseDual& x) {
  return SparseDual::chain(std::cos(x.value()), x, -std::sin(x.value()));
}
inline SparseDual tan(const SparseDual& x) {
  const double t = std::tan(x.value());
  return SparseDual::chain(t, x, 1 + t * t);
}
// tanh' and sigmoid' by ir::math's formulas, which neither saturate nor cancel (decisions 221, 223)
inline SparseDual tanh(const SparseDual& x) {
  const double t = std::tanh(x.value());
  return SparseDual::chain(t, x, ir::math::tanh_derivative(x.value(), t));
}
inline SparseDual sigmoid(const SparseDual& x) {
  const double s = ir::math::sigmoid(x.value());
  return SparseDual::chain(s, x, ir::math::sigmoid_derivative(x.value(), s));
}
inline SparseDual sqrt(const SparseDual& x) {
  const double r = std::sqrt(x.value());
  return SparseDual::chain(r, x, 0.5 / r);
}
// sign(x) (0 at the kink, which the checker flags)
inline SparseDual abs(const SparseDual& x) {
  const double v = x.value();
  return SparseDual::chain(std::fabs(v), x, v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0));
}
inline SparseDual fabs(const SparseDual& x) {
  return abs(x);
}
inline SparseDual lgamma(const SparseDual& x) {
  return SparseDual::chain(std::lgamma(x.value()), x, ir::math::digamma(x.value()));
}
// d pow(x, y) = y x^(y-1) dx + x^y log x dy (the second only where y has a tangent; at x = 0 the
// limit 0 is used)
inline SparseDual pow(const SparseDual& x, const SparseDual& y) {
  const double p = std::pow(x.value(), y.value());
  // y = 0: x^0 is constant in x (the formula would give 0 * 0^-1 = NaN at x = 0)
  const double dx =
      x.is_constant() || y.value() == 0 ? 0.0 : y.value() * std::pow(x.value(), y.value() - 1);
  const double dy = y.is_constant() ? 0.0 : (x.value() == 0 ? 0.0 : p * std::log(x.value()));
  return SparseDual::chain2(p, x, dx, y, dy);
}
// floor and round are locally constant: tangent zero
inline SparseDual floor(const SparseDual& x) {
  return SparseDual(std::floor(x.value()));
}
inline SparseDual round(const SparseDual& x) {
  return SparseDual(std::round(x.value()));
}
// min and max pass the chosen operand on, as the interpreter's `y < x ? y : x` does
inline SparseDual fmin(const SparseDual& x, const SparseDual& y) {
  return y < x ? y : x;
}
inline SparseDual fmax(const SparseDual& x, const SparseDual& y) {
  return x < y ? y : x;
}

}  // namespace adlab::ad::sparse
