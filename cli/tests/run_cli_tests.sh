#!/usr/bin/env bash
# shellcheck disable=SC2016  # backquotes in expected messages are literal
# End-to-end tests of the `adlab` command (DESIGN 8): exact output of good runs, and for bad input
# exit status 1 with one `file:line:col: error: ...` line (then notes) and never a crash.
# Usage: run_cli_tests.sh ADLAB_BINARY SOURCE_DIR   (registered with CTest as `cli_tests`)
set -u
if [[ $# -ne 2 || ! -x $1 || ! -d $2 ]]; then
  echo "usage: $0 ADLAB_BINARY SOURCE_DIR" >&2
  exit 2
fi
ADLAB=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 2

pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1))
  printf 'FAIL: %s\n' "$1"
  [[ -n ${2-} ]] && printf '  %s\n' "$2"
  [[ -s err ]] && sed 's/^/  stderr: /' err | head -5
  return 0
}
crashed() { grep -qE 'Segmentation|terminate called|internal error|Aborted|core dumped' err; }

# expect_out NAME WANT ARGS...: exit 0, stdout exactly WANT, nothing on stderr.
expect_out() {
  local name=$1 want=$2 got rc
  shift 2
  got=$("$ADLAB" "$@" 2>err)
  rc=$?
  if [[ $rc -ne 0 ]]; then bad "$name" "exit $rc"
  elif [[ $got != "$want" ]]; then bad "$name" "$(diff <(echo "$want") <(echo "$got"))"
  elif [[ -s err ]]; then bad "$name" "unexpected stderr"
  else ok; fi
}

# expect_err NAME WANT ARGS...: exit exactly 1, empty stdout, no crash, the first stderr line is
# WANT (a prefix of it when WANT ends in "..."), has the error form, and any others are notes.
expect_err() {
  local name=$1 want=$2 first rc
  shift 2
  "$ADLAB" "$@" >out 2>err
  rc=$?
  first=$(head -n 1 err)
  if [[ $rc -ne 1 ]]; then bad "$name" "exit $rc, expected 1"
  elif crashed; then bad "$name" "crashed"
  elif [[ -s out ]]; then bad "$name" "unexpected stdout: $(head -n 1 out)"
  elif ! grep -qE '^([^ ]+:([0-9]+:[0-9]+:)? )?error: ' <<<"$first"; then bad "$name" "not an error line: $first"
  elif [[ $want == *... && $first != "${want%...}"* ]]; then bad "$name" "first line: $first"
  elif [[ $want != *... && $first != "$want" ]]; then bad "$name" "first line: $first"
  elif tail -n +2 err | grep -qv '^  note: '; then bad "$name" "stray stderr lines"
  else ok; fi
}

# check NAME CONDITION...: runs the condition (a command) and counts it.
check() {
  local name=$1
  shift
  if "$@"; then ok; else bad "$name"; fi
}

# --- inputs -------------------------------------------------------------------------------
cat >dot.adl <<'EOF'
func dot(x: f64[n], y: f64[n]) -> f64 {
  return sum[i < n] x[i] * y[i]
}
EOF
echo '[1, 2, 3]' >x.json
echo '[4, 5, 6]' >y.json
echo '[0.1]' >tenth.json
echo '[3]' >three.json
echo '[1, 2,' >malformed.json
echo '[[1, 2], [3]]' >ragged.json
echo '[[1, 2], [3, 4]]' >matrix.json
echo '7' >seven.json
# x.npy: f64[3] = [1, 2, 3] (a 128-byte v1.0 header), and a copy cut inside the data.
hdr="{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"
{
  printf '\x93NUMPY\x01\x00\x76\x00%s' "$hdr"
  printf "%$((128 - 10 - ${#hdr} - 1))s\n" ''
  printf '\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x40\x00\x00\x00\x00\x00\x00\x08\x40'
} >x.npy
head -c 140 x.npy >truncated.npy
# big.npy: f64 scalar 1e300, read for an i64 parameter (the cast to i64 was undefined behaviour)
hdr0="{'descr': '<f8', 'fortran_order': False, 'shape': (), }"
{
  printf '\x93NUMPY\x01\x00\x76\x00%s' "$hdr0"
  printf "%$((128 - 10 - ${#hdr0} - 1))s\n" ''
  printf '\x9c\x75\x00\x88\x3c\xe4\x37\x7e'
} >big.npy
cat >a.mtx <<'EOF'
%%MatrixMarket matrix coordinate real general
2 3 3
1 1 2.0
1 3 1.5
2 2 -1.0
EOF
cat >spmv.adl <<'EOF'
func spmv(A: f64[n, m] @csr, x: f64[m]) -> f64[n] {
  return gen[i < n] sum[(j) in A[i]] A[i, j] * x[j]
}
EOF
cat >two.adl <<'EOF'
# comments and layout are not kept
func sq(x: f64[n]) -> f64 { return sum[i<n] x[i]*x[i] }
func twice(x: f64[n]) -> f64 {
  let s = sq(x)
  return (s + s) }
EOF
printf 'func f(x: f64[n]) -> f64 {\n  return sum[i < n] x[i] *\n}\n' >syntax.adl
printf 'func f(x: f64[n], y: f64[m], c: bool) -> f64[n] {\n  return select(c, x, y)\n}\n' >types.adl
printf 'func g(x: f64[n], k: i64) -> f64 {\n  return x[k]\n}\n' >access.adl
printf 'func h[m](x: f64[n]) -> f64[m] {\n  return gen[i < m] x[0]\n}\n' >sized.adl

# A manifest beside its program; a second one whose closed form for the primal is wrong.
mkdir good wrong
cat >good/dot.adl <<'EOF'
func dot(x: f64[n], y: f64[n]) -> f64 {
  return sum[i < n] x[i] * y[i]
}
func dot_ref(x: f64[n], y: f64[n]) -> f64 {
  let z = gen[i < n] x[i] * y[i]
  return sum[j < n] z[j]
}
func dot_wrong(x: f64[n], y: f64[n]) -> f64 {
  return 1 + sum[i < n] x[i] * y[i]
}
EOF
cp good/dot.adl wrong/dot.adl
manifest() {
  cat <<EOF
{"suite": "t", "source": "cli tests", "entries": [
  {"name": "dot", "program": "dot.adl", "function": "dot", "source": "cli tests",
   "sizes": {"small": {"n": 3}, "full": {"n": 8}},
   "inputs": {"x": {"value": [1, 2, 3]}, "y": {"value": [4, 5, 6]}},
   "expected": {"primal": "$1", "primal_values": 32}}]}
EOF
}
manifest dot_ref >good/manifest.json
manifest dot_wrong >wrong/manifest.json

# --- eval ---------------------------------------------------------------------------------
expect_out "eval dot, JSON inputs" $'dot n=3\n  result 0: f64 = 32' eval dot.adl --input x=x.json --input y=y.json
expect_out "eval dot, .npy input" $'dot n=3\n  result 0: f64 = 32' eval dot.adl --input x=x.npy --input y=y.json
expect_out "eval spmv, .mtx input" $'spmv m=3 n=2\n  result 0: f64[2] = [6.5, -2]' \
  eval spmv.adl --input A=a.mtx --input x=x.json
expect_out "eval --counts" $'dot n=3\n  result 0: f64 = 32\n  ops: adds=2 muls=3 divs=0 prims=0 compares=0 iterations=3 (paper cost 5)' \
  eval dot.adl --input x=x.json --input y=y.json --counts
expect_out "eval double digits" $'dot n=1\n  result 0: f64 = 0.30000000000000004' \
  eval dot.adl --input x=tenth.json --input y=three.json
expect_out "eval --scalar float" $'dot n=1\n  result 0: f64 = 0.300000012' \
  eval dot.adl --input x=tenth.json --input y=three.json --scalar float
expect_out "eval --scalar mp50 prints more digits" \
  $'dot n=1\n  result 0: f64 = 0.30000000000000001665334536937734810635447502136230469' \
  eval dot.adl --input x=tenth.json --input y=three.json --scalar mp50
expect_out "eval --size binds a free size" $'h m=2 n=3\n  result 0: f64[2] = [1, 1]' \
  eval sized.adl --input x=x.json --size m=2
expect_out "eval takes inputs from the manifest beside the program" $'dot n=3\n  result 0: f64 = 32' \
  eval good/dot.adl --func dot

json=$("$ADLAB" eval dot.adl --input x=x.json --input y=y.json --json 2>err | tr -d ' \n')
for want in '"function":"dot"' '"results":[32.0]' '"sizes":{"n":3}' '"scalar":"double"' '"adds":2,' '"paper_cost":5,'; do
  check "eval --json has $want" grep -qF "$want" <<<"$json"
done
"$ADLAB" eval dot.adl --input x=x.json --input y=y.json --out result.txt >out 2>err
check "eval --out writes the file" diff result.txt <(printf 'dot n=3\n  result 0: f64 = 32\n')
check "eval --out prints nothing" test ! -s out

r1=$("$ADLAB" eval dot.adl --input x=random --input y=random --size n=5 2>err)
r2=$("$ADLAB" eval dot.adl --input x=random --input y=random --size n=5 2>err)
r3=$("$ADLAB" eval dot.adl --input x=random:99 --input y=random --size n=5 2>err)
check "eval random: shape from --size" grep -qE $'^dot n=5\n  result 0: f64 = -?[0-9.]+(e-?[0-9]+)?$' -z <<<"$r1"
check "eval random: repeatable" test "$r1" == "$r2"
check "eval random:seed changes the input" test "$r1" != "$r3"

# --- print and check-syntax ---------------------------------------------------------------
canonical=$'func sq(x: f64[n]) -> f64 {\n  return sum[i < n] x[i] * x[i]\n}\n\nfunc twice(x: f64[n]) -> f64 {\n  let s = sq(x)\n  return s + s\n}'
expect_out "print canonical form" "$canonical" print two.adl
"$ADLAB" print two.adl >p1.adl 2>err && "$ADLAB" print p1.adl >p2.adl 2>>err
check "print round trip" diff p1.adl p2.adl
expect_out "print --func" $'func sq(x: f64[n]) -> f64 {\n  return sum[i < n] x[i] * x[i]\n}' print two.adl --func sq
expect_out "check-syntax ok" "two.adl: ok (2 functions: sq twice)" check-syntax two.adl
expect_out "check-syntax --quiet" "" check-syntax --quiet two.adl

# --- eval-suite ---------------------------------------------------------------------------
"$ADLAB" eval-suite good >out 2>err
check "eval-suite OK exits 0" test $? -eq 0
check "eval-suite OK row" grep -qE '^t/dot +OK ' out
check "eval-suite OK summary" grep -qxF "1 entries (small sizes): 1 ok, 0 failed, 0 errors" out
"$ADLAB" eval-suite wrong/manifest.json >out 2>err
check "eval-suite FAIL exits 1" test $? -eq 1
check "eval-suite FAIL row" grep -qE '^t/dot +FAIL ' out
check "eval-suite FAIL detail" grep -qxF '    primal closed form `dot_wrong`: result 0: entry 0 is 32, expected 33' out
check "eval-suite FAIL summary" grep -qxF "1 entries (small sizes): 0 ok, 1 failed, 0 errors" out

printf 'func head(k: i64, x: f64[k]) -> f64 {\n  return sum[i < k] x[i]\n}\n' >head.adl
expect_out "eval takes an i64 size parameter from a shape" $'head k=3\n  result 0: f64 = 6' eval head.adl --input x=x.json

# --- check (the gradient checker) --------------------------------------------------------
"$ADLAB" check good --strategy fd >out 2>err
check "check exits 0 when every cell passes" test $? -eq 0
check "check PASS row" grep -qE '^t/dot +fd +engine/interp +gradient +PASS ' out
check "check summary" grep -qF "OK: every supported cell passed" out
"$ADLAB" check good --strategy fd --json check.json >out 2>err
check "check --json writes the schema" grep -qF '"schema": "adlab-check/1"' check.json
"$ADLAB" check good --strategy nope >out 2>err
check "check with an unknown strategy exits 1" test $? -eq 1
check "check with an unknown strategy has an ERROR cell" grep -qE '^t/dot +nope .*ERROR' out
# --other-variants: each strategy's variants but its default (decision 246)
"$ADLAB" check good --strategy dualrev --other-variants --no-complexity >out 2>err
check "check --other-variants exits 0" test $? -eq 0
check "check --other-variants runs staged-map" grep -qE '^t/dot +dualrev/staged-map +engine/interp +gradient +PASS ' out
check "check --other-variants runs naive" grep -qE '^t/dot +dualrev/naive +engine/interp +gradient +PASS ' out
check "check --other-variants leaves out the default" bash -c "! grep -qE '^t/dot +dualrev +' out"
expect_err "check --other-variants with no variant to check" \
  'error: --other-variants: no chosen strategy has a variant besides its default' \
  check good --strategy fd --other-variants
cat >wrong/manifest.json <<EOF
{"suite": "t", "source": "cli tests", "entries": [
  {"name": "dot", "program": "dot.adl", "function": "dot", "source": "cli tests",
   "sizes": {"small": {"n": 3}, "full": {"n": 8}},
   "inputs": {"x": {"value": [1, 2, 3]}, "y": {"value": [4, 5, 6]}}, "wrt": ["x"],
   "expected": {"gradient": "dot_wrong_grad"}}]}
EOF
cat >>wrong/dot.adl <<'EOF'

func dot_wrong_grad(x: f64[n], y: f64[n]) -> f64[n] {
  return gen[i < n] y[i] * 1.001
}
EOF
"$ADLAB" check wrong --strategy fd >out 2>err
check "check with a wrong closed form exits 1" test $? -eq 1
check "check names the wrong closed form" grep -qE '^closed form t/dot \(dot_wrong_grad\): FAIL' out
check "check's last line counts the failed closed form" \
  grep -qxF "NOT OK: 0 cell(s), 1 closed form(s) and 0 adjoint test(s) did not pass" out
# A closed form that errors, an unexpected AT-KINK and a primal_values 1e-9 off are each NOT OK
# and exit 1 (decision 252: a mutation audit of the checker found each let through unnoticed).
mkdir -p cferr kinkrun pvrun
cat >cferr/dot.adl <<'EOF'
func dot(x: f64[n], y: f64[n]) -> f64 {
  return sum[i < n] x[i] * y[i]
}
func dot_grad_err(x: f64[n], y: f64[n]) -> f64[n] {
  return gen[i < n] y[i + 3]
}
EOF
cp cferr/dot.adl pvrun/dot.adl
cat >cferr/manifest.json <<EOF
{"suite": "t", "source": "cli tests", "entries": [
  {"name": "dot", "program": "dot.adl", "function": "dot", "source": "cli tests",
   "sizes": {"small": {"n": 3}}, "inputs": {"x": {"value": [1, 2, 3]}, "y": {"value": [4, 5, 6]}},
   "wrt": ["x"], "expected": {"gradient": "dot_grad_err"}}]}
EOF
"$ADLAB" check cferr --strategy fwdvec --no-complexity >out 2>err
check "check with a closed form that errors exits 1" test $? -eq 1
check "check reports the closed form's error" grep -qE '^closed form t/dot \(dot_grad_err\): ERROR' out
check "check with a closed form that errors is NOT OK" grep -q '^NOT OK: 0 cell(s), 1 closed form' out
printf 'func relu(x: f64[n]) -> f64 {\n  return sum[i < n] select(x[i] > 0, x[i], 0)\n}\n' >kinkrun/relu.adl
cat >kinkrun/manifest.json <<EOF
{"suite": "t", "source": "cli tests", "entries": [
  {"name": "relu_at", "program": "relu.adl", "function": "relu", "source": "cli tests",
   "sizes": {"small": {"n": 3}}, "inputs": {"x": {"value": [0.8, 0.0, -1.3]}}}]}
EOF
"$ADLAB" check kinkrun --strategy fwdvec --no-complexity >out 2>err
check "check with an unexpected AT-KINK exits 1" test $? -eq 1
check "check with an unexpected AT-KINK is NOT OK" grep -q '^NOT OK: [1-9][0-9]* cell(s)' out
cat >pvrun/manifest.json <<EOF
{"suite": "t", "source": "cli tests", "entries": [
  {"name": "dot", "program": "dot.adl", "function": "dot", "source": "cli tests",
   "sizes": {"small": {"n": 3}}, "inputs": {"x": {"value": [1, 2, 3]}, "y": {"value": [4, 5, 6]}},
   "wrt": ["x"], "expected": {"primal_values": 32.000000001}}]}
EOF
"$ADLAB" check pvrun --strategy fwdvec --no-complexity >out 2>err
check "check with primal_values 1e-9 off exits 1" test $? -eq 1
check "check with primal_values 1e-9 off is NOT OK" grep -q '^NOT OK' out
# Nothing compared (every cell UNSUPPORTED: dualrev has no hvp) is not a pass (decision 186).
mkdir -p hvponly
cp good/dot.adl hvponly/dot.adl
cat >hvponly/manifest.json <<EOF
{"suite": "t", "source": "cli tests", "entries": [
  {"name": "dot", "program": "dot.adl", "function": "dot", "source": "cli tests",
   "sizes": {"small": {"n": 3}, "full": {"n": 8}}, "modes": ["hvp"],
   "inputs": {"x": {"value": [1, 2, 3]}, "y": {"value": [4, 5, 6]}}}]}
EOF
"$ADLAB" check hvponly --strategy dualrev >out 2>err
check "check that compared nothing exits 1" test $? -eq 1
check "check that compared nothing says so" grep -qF "NOTHING CHECKED: every selected cell is UNSUPPORTED" out
# A run with a FAILed cell, a PASSed cell, a wrong closed form, a FAILed adjoint test, a real
# AT-KINK and a ratio over an unclaimed bound reports each as such in the table, the summary and
# the JSON (decision 253: a mutation audit of the report layer; each check fails under one of
# its 16 mutants, none of which moved the exit code).
# fd's central difference of exp(5000 x) is 9.6e-5 off (h = cbrt(u) = 4.8e-6: (5000 h)^2/6), over
# its floor 1e-5; dualrev passes; the closed form is 5005/5000 too large; relu at an exact 0.
mkdir -p fdfail
cat >fdfail/steep.adl <<'EOF'
func steep(x: f64[n]) -> f64 {
  return sum[i < n] exp(5000 * x[i])
}
func steep_wrong_grad(x: f64[n]) -> f64[n] {
  return gen[i < n] 5005 * exp(5000 * x[i])
}
func relu(x: f64[n]) -> f64 {
  return sum[i < n] select(x[i] > 0, x[i], 0)
}
EOF
cat >fdfail/manifest.json <<EOF
{"suite": "t", "source": "cli tests", "entries": [
  {"name": "steep", "program": "steep.adl", "function": "steep", "source": "cli tests",
   "sizes": {"small": {"n": 2}}, "inputs": {"x": {"value": [0.01, 0.02]}},
   "expected": {"gradient": "steep_wrong_grad"}},
  {"name": "relu", "program": "steep.adl", "function": "relu", "source": "cli tests",
   "sizes": {"small": {"n": 3}}, "inputs": {"x": {"value": [0.8, 0.0, -1.3]}}}]}
EOF
"$ADLAB" check fdfail --strategy fd --strategy dualrev --json fdfail.json >out 2>err
check "check with a FAILed cell exits 1" test $? -eq 1
check "check prints the FAILed cell FAIL" grep -qE '^t/steep +fd +engine/interp +gradient +FAIL +9\.6[0-9]e-05 +1\.00e-05' out
check "check prints why the cell failed" grep -qF '    relative error 9.6' out
check "check prints the passing cell PASS" grep -qE '^t/steep +dualrev +engine/interp +gradient +PASS ' out
check "check prints a real AT-KINK unstarred" grep -qE '^t/relu +fd +engine/interp +gradient +AT-KINK +-' out
check "check prints the FAILed adjoint test" grep -qE '^adjoint test t/steep \(fd / fd\): FAIL ' out
check "check's summary counts each status" \
  grep -qxF "2 entries, 4 cells: 2 AT-KINK 1 FAIL 1 PASS; closed forms 0/1 pass; adjoint tests 1/2 pass" out
check "check's last line counts what failed" \
  grep -qxF "NOT OK: 3 cell(s), 1 closed form(s) and 1 adjoint test(s) did not pass" out
# The JSON, keys sorted, compacted: the fd cell FAIL with its error and tolerance in their fields.
tr -d ' \n' <fdfail.json >fdfail.txt
check "check --json: the fd cell FAILs" grep -qE \
  '"entry":"t/steep","got":[^,]+,"mode":"gradient","seconds":[^,]+,"status":"FAIL","strategy":"fd","tolerance":1e-05,"unresolved":0,"want":[^,]+,"where":"x\[1\]","worst_error":9\.6[0-9]*e-05\}' fdfail.txt
check "check --json: the closed form FAILs" grep -qF '"function":"steep_wrong_grad","status":"FAIL"' fdfail.txt
check "check --json: the fd/fd adjoint test FAILs" grep -qE '"reverse":"fd","rhs":[^,]+,"status":"FAIL"' fdfail.txt
check "check --json: 4 cells" test "$(grep -o '"backend":' fdfail.txt | wc -l)" -eq 4
check "check --json: no AT-KINK is marked expected" bash -c "! grep -q '\"expected\":' fdfail.txt"
check "check --json: a cell within its bound says so" grep -qF '"ratio":5.0,"within_bound":true' fdfail.txt
check "check --json: summary" grep -qF '"summary":{"adjoint_tests":{"FAIL":1,"PASS":1},"cells":{"AT-KINK":2,"FAIL":1,"PASS":1},"closed_forms":{"FAIL":1},"compared":7,"ok":false}' fdfail.txt
# A ratio over a bound the strategy does not claim (scatter): shown with `!`, and false in the JSON.
mkdir -p bound
cat >bound/dot.adl <<'EOF'
func dot(x: f64[n], y: f64[n]) -> f64 {
  return sum[i < n] x[i] * y[i]
}
EOF
cat >bound/manifest.json <<EOF
{"suite": "t", "source": "cli tests", "entries": [
  {"name": "dot", "program": "dot.adl", "function": "dot", "source": "cli tests",
   "sizes": {"small": {"n": 3}, "full": {"n": 8}}, "cost_bound": 1,
   "inputs": {"x": {"value": [1, 2, 3]}, "y": {"value": [4, 5, 6]}}}]}
EOF
"$ADLAB" check bound --strategy scatter --json bound.json >out 2>err
check "check marks a ratio over an unclaimed bound" grep -qE '^t/dot +scatter +interp +gradient +PASS .* 2\.2! ' out
check "check --json: a ratio over its bound is not within it" grep -qF '"ratio":2.2,"within_bound":false' <(tr -d ' \n' <bound.json)
# An i64 size parameter read from a file is that size: a different --size is an error.
printf 'func sp(k: i64, x: f64[k]) -> f64 {\n  return sum[i < k] x[i]\n}\n' >sp.adl
echo '3' >k3.json
expect_err "eval with --size against an i64 size read from a file" \
  'error: --size k=5 but input `k` (k3.json) is 3' eval sp.adl --size k=5 --input k=k3.json --input x=x.json

# Audit findings (decision 174): nothing selected is not a pass; manifests are checked whole.
expect_err "check with a filter that selects nothing" 'error: no suite entry selected (--filter `nosuch`)' \
  check good --strategy fd --filter nosuch
mkdir -p dup/a dup/b
cp good/dot.adl dup/a/dot.adl
cp good/dot.adl dup/b/dot.adl
manifest dot_ref >dup/a/manifest.json
manifest dot_ref >dup/b/manifest.json
expect_err "check with one entry id in two manifests" \
  'dup/b/manifest.json:1:1: error: entry `t/dot` is also in `dup/a/manifest.json`: two manifests give one suite name' \
  check dup --strategy fd
mkdir -p bad_manifest
cp good/dot.adl bad_manifest/dot.adl
bad_entry() {
  printf '{"suite": "t", "entries": [{"name": "dot", "program": "dot.adl", "function": "dot", "sizes": {"small": {"n": 3}}, "inputs": {"x": {"dist": "normal"}, "y": {"dist": "normal"}}, %s}]}\n' "$1" >bad_manifest/manifest.json
}
bad_entry '"modes": ["hvp"], "cost_bound": 3'
expect_err "a cost bound no mode measures" \
  'error: bad_manifest/manifest.json: entry `dot`: `cost_bound` needs a gradient or vjp mode to be measured in (a Jacobian takes one reverse pass per output)' \
  check bad_manifest --strategy fd
bad_entry '"modes": ["jacobian"], "cost_bound": 3'
expect_err "a cost bound on a Jacobian alone (decision 232)" \
  'error: bad_manifest/manifest.json: entry `dot`: `cost_bound` needs a gradient or vjp mode to be measured in (a Jacobian takes one reverse pass per output)' \
  check bad_manifest --strategy fd
# A backend that counts no operations says that the bound is not checked there (decision 232).
bad_entry '"modes": ["gradient"], "cost_bound": 3'
check "check --backend cpu says the cost bound is not checked there" grep -q \
  "the cheap-gradient bound is not checked on cpu, which counts no operations" \
  <(ADLAB_CACHE_DIR=$T/cache "$ADLAB" check bad_manifest --strategy dualrev --backend cpu 2>&1)
# A primal of no operations (a read) gives no ratio: the bound is said not to be checked.
printf 'func first(x: f64[n], y: f64[n]) -> f64 {\n  return x[0]\n}\n' >bad_manifest/first.adl
printf '{"suite": "t", "entries": [{"name": "first", "program": "first.adl", "function": "first", "sizes": {"small": {"n": 3}}, "inputs": {"x": {"dist": "normal"}, "y": {"dist": "normal"}}, "modes": ["gradient"], "cost_bound": 3}]}\n' >bad_manifest/manifest.json
check "check says a bound is not checked where the primal counts no operations" grep -q \
  "the cheap-gradient bound is not checked: the primal counts no operations" \
  <("$ADLAB" check bad_manifest --strategy dualrev 2>&1)
bad_entry '"modes": ["gradiant"]'
expect_err "an unknown mode" 'error: bad_manifest/manifest.json: entry `dot`: `gradiant` is not a mode...' \
  check bad_manifest --strategy fd
bad_entry '"fd": {"levels": 4294967297}'
expect_err "fd levels past int" 'error: bad_manifest/manifest.json: entry `dot`: fd.levels is not a setting...' \
  check bad_manifest --strategy fd
bad_entry '"source": 5'
expect_err "a field of the wrong type names its entry" \
  'error: bad_manifest/manifest.json: entry `dot`: a field has the wrong JSON type...' check bad_manifest --strategy fd
# --input x=random:SEED beside a manifest with fixed values: random values, not the manifest's
r5=$("$ADLAB" grad good/dot.adl --func dot --strategy fd --input x=random:5 --input y=random:6 2>err)
r5b=$("$ADLAB" grad good/dot.adl --func dot --strategy fd --input x=random:5 --input y=random:6 2>err)
check "grad --input random beside a manifest is random" test "$(grep -c '= 32$' <<<"$r5")" -eq 0
check "grad --input random beside a manifest is repeatable" test "$r5" == "$r5b"
# a message quoting a byte that is not UTF-8: the table is printed and the JSON written
mkdir -p latin1
printf 'func dot(x: f64[n]) -> f64 {\n  return \xe9\n}\n' >latin1/dot.adl
printf '{"suite": "t", "entries": [{"name": "dot", "program": "dot.adl", "function": "dot", "sizes": {"small": {"n": 3}}, "inputs": {"x": {"dist": "normal"}, "y": {"dist": "normal"}}}]}\n' >latin1/manifest.json
"$ADLAB" check latin1 --strategy fd --json latin1.json >out 2>err
check "check with a non-UTF-8 message exits 1" test $? -eq 1
check "check with a non-UTF-8 message prints the table" grep -qE '^t/dot +fd .*ERROR' out
check "check with a non-UTF-8 message writes the JSON" grep -qF '"ok": false' latin1.json

# vjp with an integer result: one cotangent per result, zero for the integer one (decision 175)
printf 'func f(x: f64[n], k: i64) -> (f64, i64) {\n  return (x[0] * x[1], k + 1)\n}\n' >intres.adl
printf '[1.5, 2.5]\n' >x2.json
printf '3\n' >k.json
for s in fd dualrev sparse iverson scatter fwdvec; do
  r=$("$ADLAB" grad intres.adl --strategy $s --mode vjp --input x=x2.json --input k=k.json 2>err)
  # fd's value is within its truncation error: 2.49999999998...
  check "vjp with an integer result ($s)" grep -qE '^  cotangent of x: f64\[2\] = \[2\.(5|4999999999[0-9]*), 1\.5\]$' <<<"$r"
done
# results of two float types: fwdvec's vjp summed an f32 and an f64 term
printf 'func f(x: f32[n], y: f64[n]) -> (f32, f64) {\n  return (x[0] * x[1], y[0] * y[1])\n}\n' >mixed.adl
r=$("$ADLAB" grad mixed.adl --strategy fwdvec --mode vjp --input x=x2.json --input y=x2.json 2>err)
check "fwdvec vjp of f32 and f64 results" grep -qxF '  cotangent of x: f32[2] = [2.5, 1.5]' <<<"$r"
# iverson's tangent of f64(x) for an f32 x is converted to the result's type
printf 'func f(x: f32[n]) -> f64 {\n  return sum[i < n] f64(x[i]) * 2\n}\n' >conv.adl
r=$("$ADLAB" grad conv.adl --strategy iverson --mode jvp --input x=x2.json 2>err)
check "iverson jvp through f64(x) of an f32 x" grep -qxF '  tangent of result 0: f64 = 4' <<<"$r"

# Input values that would silently change (decision 176)
printf 'func f(x: f32) -> f64 {\n  return f64(x) * 0\n}\n' >f32in.adl
printf '1e39\n' >big39.json
expect_err "an f32 input past f32's range" 'error: input `x` (big39.json): 1e+39 is outside the range of f32' \
  eval f32in.adl --input x=big39.json
printf 'func f(k: i64[2]) -> i64[2] {\n  return gen[i < 2] k[i]\n}\n' >kin.adl
printf '[100000000000000001.0, 1]\n' >kbig.json
expect_err "an i64 in float syntax past 2^53" 'kbig.json: error: expected an integer (i64) at $[0], found number 1e+17' \
  eval kin.adl --input k=kbig.json
printf '[1e400, 1]\n' >k400.json
expect_err "a JSON number past double's range" 'k400.json: error: unreadable JSON: ...' eval kin.adl --input k=k400.json
mkdir -p sparsegen
printf 'func f(A: f64[n, m] @csr) -> f64 {\n  return sum[(i, j) in A] A[i, j]\n}\n' >sparsegen/p.adl
sparse_gen() {
  printf '{"suite": "t", "entries": [{"name": "f", "program": "p.adl", "function": "f", "sizes": {"small": {"n": 3, "m": 4}}, "inputs": {"A": %s}}]}\n' "$1" >sparsegen/manifest.json
}
sparse_gen '{"dist": "sparse", "nnz": -6, "lo": 1, "hi": 2}'
expect_err "a negative nnz (was an empty matrix)" 'error: input `A` of `f`: `nnz` must be a non-negative count, got -6' \
  eval sparsegen/p.adl
sparse_gen '{"dist": "sparse", "nnz": 6, "hi": 5}'
expect_err "hi without lo (was normal values)" 'error: input `A` of `f`: uniform sparse values need both `lo` and `hi`' \
  eval sparsegen/p.adl
sparse_gen '{"dist": "sparse", "nnz": 6, "density": 0.5}'
expect_err "nnz and density" 'error: input `A` of `f`: give `nnz` or `density`, not both' eval sparsegen/p.adl
sparse_gen '{"dist": "sparse", "nnz": "n"}'
r=$("$ADLAB" eval sparsegen/p.adl --json 2>err)
check "nnz as a size expression" grep -q '"results"' <<<"$r"

# --- bad input ----------------------------------------------------------------------------
expect_err "syntax error" 'syntax.adl:3:1: error: expected an expression, found `}`' eval syntax.adl --input x=x.json
expect_err "syntax error (print)" 'syntax.adl:3:1: error: expected an expression, found `}`' print syntax.adl
expect_err "syntax error (check-syntax)" 'syntax.adl:3:1: error: expected an expression, found `}`' check-syntax syntax.adl
expect_err "type error in select" 'types.adl:2:10: error: the branches of select have different types: f64[n] and f64[m]' \
  check-syntax types.adl
expect_err "unknown function" 'dot.adl:1:1: error: no function `nope` in this file' eval dot.adl --func nope
expect_err "missing program" 'error: cannot open program file `nofile.adl`' eval nofile.adl
expect_err "missing input file" 'missing.json: error: cannot open file...' eval dot.adl --input x=missing.json --input y=y.json
expect_err "malformed JSON" 'malformed.json:1:7: error: malformed JSON...' eval dot.adl --input x=malformed.json --input y=y.json
expect_err "ragged JSON" 'ragged.json: error: ragged array at $[1]...' eval dot.adl --input x=ragged.json --input y=y.json
expect_err "truncated .npy" "truncated.npy: error: truncated .npy data: shape [3] of '<f8' needs 3 x 8 bytes, the file has 12" \
  eval dot.adl --input x=truncated.npy --input y=y.json
expect_err "wrong rank" 'error: input `x` (matrix.json): expected a rank-1 tensor f64[n], the data has rank 2' \
  eval dot.adl --input x=matrix.json --input y=y.json
expect_err "shape mismatch between inputs" 'spmv.adl:1:30: error: shape mismatch: size `m` is 2 but parameter `x` dimension 0 gives 3' \
  eval spmv.adl --input A=matrix.json --input x=x.json
expect_err "out-of-range access" 'access.adl:2:10: error: index out of range: `k` = 7 is outside [0, 3) in `x[k]` (dimension 0)' \
  eval access.adl --input x=x.json --input k=seven.json
expect_err "a float .npy too large for i64" 'error: input `k` (big.npy): expected integers (exact, |n| <= 2^53), found 1e+300' \
  eval access.adl --input x=x.json --input k=big.npy
expect_err "missing size" 'sized.adl:1:8: error: size `m` of `h` is not bound by any parameter' eval sized.adl --input x=x.json
check "missing size suggests --size" grep -qF -- '--size m=N' err
expect_err "missing random size" 'error: no value for size `n` (give it with --size n=N)' eval dot.adl --input x=random --input y=random
expect_err "missing input" 'error: missing input `y`: give --input y=PATH or --input y=random' eval dot.adl --input x=x.json
expect_err "unknown parameter" 'error: `dot` has no parameter `z`' eval dot.adl --input x=x.json --input y=y.json --input z=y.json
expect_err "an input given twice" 'error: --input x is given twice (`x.json` and `y.json`)' eval dot.adl --input x=x.json --input y=y.json --input x=y.json
expect_err "bad --size" 'error: --size n=abc: not an integer' eval dot.adl --input x=random --input y=random --size n=abc
expect_err "negative --size" 'error: --size n=-3: a size is non-negative' eval dot.adl --input x=random --input y=random --size n=-3
expect_err "--size with trailing text" 'error: --size n=4abc: not an integer' eval dot.adl --input x=random --input y=random --size n=4abc
expect_err "--size in float notation" 'error: --size n=1e3: not an integer' eval dot.adl --input x=random --input y=random --size n=1e3
cat >huge.adl <<'EOF'
func g[m](x: f64[n]) -> f64 {
  let A = gen[i < m, j < m] x[0] * f64(i)
  return A[1, 1]
}
EOF
# the interpreter places a shape past 2^63 entries at its gen (decision 223)
expect_err "a shape past 2^63 entries names its gen" \
  'huge.adl:2:11: error: a tensor of shape [4294967297, 4294967297] has more than 2^63 entries' \
  eval huge.adl --input x=x.json --size m=4294967297
expect_err "--size given twice" 'error: --size n is given twice (3 and 4)' eval dot.adl --input x=random --input y=random --size n=3 --size n=4
expect_err "--size of no size" 'error: --size m=3: `dot` has no size `m`' eval dot.adl --input x=random --input y=random --size n=3 --size m=3
expect_err "--size against a file" 'error: --size n=10 but input `x` (x.json) has n = 3' eval dot.adl --input x=x.json --input y=y.json --size n=10
if [[ -w /dev/full ]]; then
  expect_err "a failed write exits 1" 'error: cannot write `/dev/full` (disk full?)' eval dot.adl --input x=x.json --input y=y.json --out /dev/full
fi
expect_err "unknown input format" 'error: input file `x.txt`: unknown format `.txt` (use .json, .npy or .mtx)' \
  eval dot.adl --input x=x.txt --input y=y.json
expect_err "missing suite folder" 'error: suite folder `nosuite` does not exist' eval-suite nosuite

# CLI11 usage errors: non-zero exit, a message, no crash.
for args in "frob dot.adl" "eval dot.adl --bogus" "eval dot.adl --scalar quad" "eval" ""; do
  # shellcheck disable=SC2086
  "$ADLAB" $args >out 2>err
  rc=$?
  check "usage error \`adlab $args\` exits non-zero" test $rc -ne 0
  check "usage error \`adlab $args\` says why" test -s err
  check "usage error \`adlab $args\` does not crash" test $rc -lt 128 -a "$(crashed && echo y)" != y
done
# adlab grad (DESIGN 8): values of the derivative in each mode's calling convention (ad/strategy.h).
# fd is accurate to about 1e-10 here, so the values are compared to 6 digits.
cat >prod.adl <<'EOF'
func prod(x: f64, y: f64) -> f64 {
  return x * y
}
EOF
echo 3 >x3.json
echo 4 >y4.json
# An integer result has no derivative block in jvp/jacobian mode, whichever convention the
# strategy follows: the labels were shifted ("jacobian of result 0" for result 1's block).
cat >mixed.adl <<'EOF'
func f(x: f64[n]) -> (i64, f64[n]) {
  return (n, gen[i < n] 3.0 * x[i])
}
EOF
for s in sparse fwdvec dualrev; do
  expect_out "jacobian labels past an integer result ($s)" \
    $'f ('$s$', jacobian)\n  result 0: i64 = 3\n  result 1: f64[3] = [3, 6, 9]\n  jacobian of result 1 wrt x: f64[3, 3] = [[3, 0, 0], [0, 3, 0], [0, 0, 3]]' \
    grad mixed.adl --strategy $s --mode jacobian --input x=x.json
done
for s in sparse fwdvec; do
  expect_out "jvp skips an integer result's tangent ($s)" \
    $'f ('$s$', jvp)\n  result 0: i64 = 3\n  result 1: f64[3] = [3, 6, 9]\n  tangent of result 1: f64[3] = [3, 3, 3]' \
    grad mixed.adl --strategy $s --mode jvp --input x=x.json
done
grad_vals() {
  "$ADLAB" grad prod.adl --strategy fd --input x=x3.json --input y=y4.json "$@" 2>err |
    sed -n 's/.*= //p' | xargs printf '%.6g '
}
check "grad gradient of x*y at (3, 4) is (4, 3)" test "$(grad_vals)" = "12 4 3 "
check "grad jvp with ones is x + y" test "$(grad_vals --mode jvp)" = "12 7 "
check "grad vjp with ones is (y, x)" test "$(grad_vals --mode vjp --wrt y)" = "12 3 "
# dualrev on the compiled backend: the generated unit with T = Dual records the tape (exact).
check "grad dualrev --backend cpu of x*y at (3, 4) is (4, 3)" test "$(ADLAB_CACHE_DIR=$T/cache \
  "$ADLAB" grad prod.adl --strategy dualrev --backend cpu --input x=x3.json --input y=y4.json \
  2>err | sed -n 's/.*= //p' | xargs)" = "12 4 3"
# A NaN prints `nan` on both backends (x86's 0/0 sets the sign bit, which printed `-nan` on cpu).
printf 'func nans(x: f64[n]) -> f64[n] {\n  return gen[i < n] (x[i] - x[i]) / (x[i] - x[i])\n}\n' \
  >nans.adl
for b in interp cpu; do
  check "eval prints a NaN as nan on backend $b" test "$(ADLAB_CACHE_DIR=$T/cache \
    "$ADLAB" eval nans.adl --size n=2 --input x=random:1 --backend $b 2>err | tail -1)" = \
    "  result 0: f64[2] = [nan, nan]"
done
# An error in the second of two functions that spell `x[i + 1]` alike cites the second (decision 218).
printf 'func f(x: f64[n]) -> f64 {\n  return sum[i < n] x[i + 1]\n}\nfunc g(x: f64[n]) -> f64 {\n  return 2.0 * sum[i < n] x[i + 1]\n}\n' \
  >twice.adl
for b in interp cpu; do
  ADLAB_CACHE_DIR=$T/cache expect_err "eval cites the running function's occurrence on backend $b" \
    'twice.adl:5:27: error: index out of range: `i + 1` = 3 is outside [0, 3) in `x[i + 1]` (dimension 0)' \
    eval twice.adl --func g --size n=3 --input x=random:1 --backend "$b"
done
expect_err "grad dualrev on an unknown backend" 'error: unknown backend `gpu` (known: ...' \
  grad prod.adl --strategy dualrev --backend gpu --input x=x3.json --input y=y4.json
expect_err "grad unknown strategy" 'error: unknown strategy `nope` (known: ...' grad prod.adl --strategy nope
expect_err "grad unknown mode" 'error: unknown mode `sideways` (gradient, vjp, jvp, jacobian, hvp)' \
  grad prod.adl --strategy fd --mode sideways
expect_err "grad mode the strategy lacks" 'error: strategy `fd` has no hvp mode' grad prod.adl --strategy fd --mode hvp
w1=$("$ADLAB" grad prod.adl --strategy fwdvec --input x=x3.json --input y=y4.json 2>err)
w2=$("$ADLAB" grad prod.adl --strategy fwdvec --width 2 --input x=x3.json --input y=y4.json 2>err)
check "grad fwdvec --width 2 gives the full width's gradient" test -n "$w1" -a "$w1" = "$w2"
expect_err "grad --width for a strategy without one" 'error: --width: strategy `iverson` carries no tangent width (fwdvec does)' grad prod.adl --strategy iverson --width 2
expect_err "grad emit of an engine" 'error: strategy `fd` builds an executable engine, not a program: there is nothing to emit' \
  grad prod.adl --strategy fd --emit
expect_err "grad unknown wrt" 'error: `prod` has no parameter `z`' grad prod.adl --strategy fd --wrt z --input x=x3.json --input y=y4.json
expect_err "grad bad direction" 'error: --direction expects ones, random or random:SEED, got `up`' \
  grad prod.adl --strategy fd --mode jvp --direction up --input x=x3.json --input y=y4.json

# adlab print --simplify --trace (issue 3): paper 000 E4 / TC5, the one-hot sensitivity of the
# 1D convolution, rewrites to Gen_i [0 <= i - 2 < m] c[i - 2] (0-based: shifted by m - 1).
cat >e4.adl <<'EOF'
func onehot(c: f64[m], n: i64) -> f64[n] {
  return gen[i < n] sum[j < m] (gen[k < n + m - 1] [k == 2] * 1.0)[i - j + m - 1] * c[j]
}
EOF
expect_out "print --simplify (000 TC5)" 'func onehot(c: f64[m], n: i64) -> f64[n] {
  return gen[i < n] [0 <= m + i - 3 && m + i - 3 < m] * c[m + i - 3]
}' print e4.adl --simplify
"$ADLAB" print e4.adl --simplify --trace >out 2>err
check "print --trace names the rules with positions" grep -q '^# e4.adl:2:21: sum-elim-solved \[000 errata 10' out
check "print --trace output still parses" "$ADLAB" check-syntax out --quiet
expect_err "print --trace without --simplify" 'error: --trace needs --simplify' print e4.adl --trace
# let-dead drops a let only if its value cannot fail: `i64(floor(x))` at x = NaN is an error in
# the original, and was a value once simplified (an audit helper; decision 197).
cat >deadlet.adl <<'EOF'
func f(x: f64, v: f64[n]) -> f64 {
  return { let k = i64(floor(x)) ; v[0] * 2 } + { let t = x / x ; v[1] }
}
EOF
expect_out "print --simplify keeps a dead let that can fail, drops one that cannot" 'func f(x: f64, v: f64[n]) -> f64 {
  return {
    let k = i64(floor(x))
    v[0] * 2 + v[1]
  }
}' print deadlet.adl --simplify
cat >deadscatter.adl <<'EOF'
func f(x: f64[n]) -> f64 {
  return { let k = scatter[i < n] to f64[2] at (i + 5) add 1.0 ; x[0] * 2 }
}
EOF
expect_out "print --simplify keeps a dead scatter (its index may be out of range)" 'func f(x: f64[n]) -> f64 {
  return {
    let k = scatter[i < n] to f64[2] at (i + 5) add 1
    x[0] * 2
  }
}' print deadscatter.adl --simplify
expect_err "print --simplify with an unknown table" 'error: unknown rule table `nope` (see `adlab rules --list`)' \
  print e4.adl --simplify --table nope
expect_err "print --simplify refuses the errata" 'error: the errata table holds wrong rules: it is not applied' \
  print e4.adl --simplify --table errata
# adlab rules: the errata corpus must be refuted (exit 0), each counterexample replayed.
"$ADLAB" rules --table errata >out 2>err
check "rules --table errata exits 0 (every erratum refuted)" test $? -eq 0
check "rules: 000 (5.21) unguarded is refuted" grep -q '000-5.21-unguarded .*REFUTED' out
check "rules: counterexamples are replayed" grep -q 'replayed on the interpreter: left error' out
"$ADLAB" rules --table ring --json >out 2>err
check "rules --json lists the ring table" grep -q '"rule": "mul-one"' out
expect_err "rules with an unknown table" 'error: unknown rule table `nope` (known: ...' rules --table nope
"$ADLAB" rules --list >out 2>err
check "rules --list shows the citations" grep -q 'index-gen \[000 (5.21) guarded' out

for sub in "" eval print check-syntax eval-suite check grad rules; do
  # shellcheck disable=SC2086
  "$ADLAB" $sub --help >out 2>err
  check "\`adlab $sub --help\` exits 0" test $? -eq 0
  check "\`adlab $sub --help\` prints usage" grep -q 'Usage' out
done

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
