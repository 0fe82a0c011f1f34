#!/usr/bin/env bash
# libmemcached's command-line tools (Debian's libmemcached-tools) as operators use
# them: memcstat and memcping on connect, memccp/memccat/memcexist/memcrm/memctouch
# (files as items, text and binary protocol, flags, spread over two servers), and the
# load generators memcslap and memcaslap, whose answers must hold no error. Run as
# `bash libmemcached_tools.sh HOST:PORT HOST:PORT PREFIX`; prints `ok <check>` or
# `FAIL <check>: <why>` per check and `restart` where the test restarts the first
# server (then reads a line); exits 0 only when every check passed.
set -uo pipefail
a=$1 b=$2 prefix=$3
failed=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
STATS_FIELDS="pid uptime time version curr_connections total_connections cmd_get cmd_set
              get_hits get_misses curr_items bytes limit_maxbytes threads evictions"

check() {   # check NAME FUNCTION: the function fails with its reason on stdout
  local name=$1 out; shift
  if out=$("$@" 2>&1); then echo "ok $name"
  else failed=$((failed + 1)); echo "FAIL $name: $(echo "$out" | tail -n 3 | tr '\n' ' ' | cut -c1-300)"; fi
}

connect() {
  memcping --servers="$a" || { echo "memcping failed"; return 1; }
  local out; out=$(memcstat --servers="$a") || { echo "memcstat failed: $out"; return 1; }
  for f in $STATS_FIELDS; do
    grep -q "^[[:space:]]$f: " <<<"$out" || { echo "memcstat lacks $f"; return 1; }
  done
  grep -Eq '^[[:space:]]version: [0-9]+\.[0-9]+\.[0-9]+$' <<<"$out" \
    || { echo "version: $(grep version: <<<"$out")"; return 1; }
}

files() {
  local proto f
  for proto in "" --binary; do
    f="$work/$prefix:file${proto}"
    head -c 200000 /dev/urandom > "$f"
    memccp $proto --servers="$a" --flags=42 "$f" || { echo "memccp $proto failed"; return 1; }
    memccat $proto --servers="$a" --file="$work/back" "$(basename "$f")" \
      || { echo "memccat $proto failed"; return 1; }
    cmp -s "$f" "$work/back" || { echo "memccat $proto: not the bytes memccp stored"; return 1; }
    memccat $proto -v --flags --servers="$a" "$(basename "$f")" > "$work/meta"
    grep -aq '^flags: 42$' "$work/meta" \
      || { echo "memccat $proto --flags: not 42"; return 1; }
    memcexist $proto --servers="$a" "$(basename "$f")" || { echo "memcexist $proto: no"; return 1; }
    memcrm $proto --servers="$a" "$(basename "$f")" || { echo "memcrm $proto failed"; return 1; }
    if memcexist $proto --servers="$a" "$(basename "$f")"; then
      echo "memcexist $proto: a removed item exists"; return 1
    fi
  done
}

touch_expiry() {
  echo soon > "$work/$prefix:ttl"; echo long > "$work/$prefix:stays"
  memccp --servers="$a" "$work/$prefix:ttl" "$work/$prefix:stays" || return 1
  memctouch --servers="$a" --expire=1 "$prefix:ttl" || { echo "memctouch failed"; return 1; }
  local touched; touched=$(date +%s.%N)  # the expiry wait counts from here
  sleep "$(awk -v s="$touched" -v n="$(date +%s.%N)" 'BEGIN { d = s + 2.2 - n; print (d > 0 ? d : 0) }')"
  if memcexist --servers="$a" "$prefix:ttl"; then echo "an item past its exptime exists"; return 1; fi
  memcexist --servers="$a" "$prefix:stays" || { echo "an item without exptime is gone"; return 1; }
}

two_servers() {
  local i names=() on_a=0 on_b=0 f
  for i in $(seq 1 20); do
    f="$work/$prefix:h$i"; echo "$i" > "$f"; names+=("$prefix:h$i")
    memccp --servers="$a,$b" "$f" || { echo "memccp to two servers failed"; return 1; }
  done
  for f in "${names[@]}"; do
    memccat --servers="$a,$b" "$f" >/dev/null || { echo "memccat $f over two: missing"; return 1; }
    local x=0 y=0
    memcexist --servers="$a" "$f" && x=1
    memcexist --servers="$b" "$f" && y=1
    [ $((x + y)) = 1 ] || { echo "$f is on $((x + y)) servers"; return 1; }
    on_a=$((on_a + x)); on_b=$((on_b + y))
  done
  [ $on_a -gt 0 ] && [ $on_b -gt 0 ] || { echo "keys on each server: $on_a, $on_b"; return 1; }
}

slap() {
  local t out
  for t in set get mget; do
    out=$(memcslap --servers="$a" --concurrency=2 --execute-number=300 --test=$t 2>&1) \
      || { echo "memcslap --test=$t: $out"; return 1; }
    ! grep -qi 'error\|fail' <<<"$out" || { echo "memcslap --test=$t: $out"; return 1; }
  done
  out=$(memcslap --binary --servers="$a" --concurrency=2 --execute-number=300 --test=get 2>&1) \
    || { echo "memcslap --binary: $out"; return 1; }
}

aslap() {   # its keys begin with the byte 0x10: memcached takes any byte but space, CR, LF, NUL
  local out
  out=$(timeout 60 memcaslap --servers="$a" --execute_number=2000 --threads=1 --concurrency=4 2>&1) \
    || { echo "memcaslap: $out"; return 1; }
  ! grep -a 'ERROR' <<<"$out" | head -n 2 | grep . || return 1
  grep -Eq '^cmd_get: [1-9]' <<<"$out" && grep -q '^get_misses: 0$' <<<"$out" \
    || { echo "memcaslap: $(grep -E '^(cmd_get|cmd_set|get_misses):' <<<"$out" | tr '\n' ' ')"; return 1; }
}

check "memcping and memcstat on connect" connect
check "memccp, memccat, memcexist, memcrm (text and binary)" files
check "memctouch and expiry" touch_expiry
check "items spread over two servers" two_servers
check "memcslap set, get, mget" slap
check "memcaslap" aslap
echo restart
read -r _
reconnect() {
  local deadline=$((SECONDS + 15))
  until memcping --servers="$a"; do
    [ $SECONDS -lt $deadline ] || { echo "memcping: no answer within 15 s"; return 1; }
    sleep 0.2
  done
  echo back > "$work/$prefix:after"
  memccp --servers="$a" "$work/$prefix:after" && memccat --servers="$a" "$prefix:after" | grep -q back
}
check "reconnect after a restart" reconnect
exit $((failed > 0))
