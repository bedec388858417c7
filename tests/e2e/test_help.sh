#!/usr/bin/env bash
# test_help.sh - --help and the parsers cannot drift: for tvs run/show/equal/
# check and tvsc, every option the generated --help lists is accepted by the
# parser (no "unknown option", in the "--opt VALUE" and "--opt=VALUE" forms),
# and a made-up option is refused.
# usage: test_help.sh TVS WORKDIR   (env: TVSC)
set -u
TVS=$1
W=$2
TVSC=${TVSC:?set TVSC to the tvsc binary}
rm -rf "$W" && mkdir -p "$W"
cd "$W" || exit 1
pass=0 fail=0

# options CMD... : the option spellings listed in CMD --help ("NAME" or
# "NAME=" for one that takes a value), one a line.
options() {
  "$@" --help | awk '
    /^options:/ { on = 1; next }
    on && /^  -/ {
      col = substr($0, 3); sub(/  .*/, "", col)       # the name column
      n = split(col, w, /[ ,]+/); val = 0
      for (k = 1; k <= n; k++) if (w[k] != "" && w[k] !~ /^-/) val = 1
      for (k = 1; k <= n; k++) if (w[k] ~ /^-/) {
        if (w[k] ~ /\[=/) { sub(/\[=.*/, "", w[k]); print w[k] "=" }
        else print w[k] (val ? "=" : "")
      }
    }'
}

# accepted CMD... : the command line runs (any exit but a crash) without an
# "unknown option" complaint.
accepted() {
  "$@" </dev/null >"$W/out" 2>&1
  local rc=$?
  if [ "$rc" -lt 128 ] && ! grep -q "unknown option" "$W/out"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: listed in --help but refused (exit $rc): $*"; cat "$W/out"; fi
}

check_command() {
  local listed
  listed=$(options "$@")
  if [ -z "$listed" ]; then fail=$((fail + 1)); echo "FAIL: $* --help lists no options"; return; fi
  echo "$listed" | grep -qx -- "--help" || { fail=$((fail + 1)); echo "FAIL: $* --help lacks --help"; }
  for o in $listed; do
    case $o in
      --*=) accepted "$@" "${o%=}" x; accepted "$@" "${o}x" ;;
      *=) accepted "$@" "${o%=}" x ;;
      *) accepted "$@" "$o" x ;;
    esac
  done
  "$@" --no-such-option x >"$W/out" 2>&1
  local rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "unknown option '--no-such-option'" "$W/out"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $* accepts --no-such-option (exit $rc)"; cat "$W/out"; fi
}

check_command "$TVS" run
check_command "$TVS" show
check_command "$TVS" equal
check_command "$TVS" check
check_command "$TVSC"

# The options the issue found missing from the help are listed now.
for o in --schedule= --time --dump-after= --repeat= --fast-math --mcpu= -O0; do
  if options "$TVS" run | grep -qx -- "$o" || options "$TVS" show | grep -qx -- "$o"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $o not in tvs run/show --help"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
