#!/usr/bin/env bash
# redis-cli (Debian's redis-tools) runs the scenario of README.md.
#
# Usage: redis_cli_client.sh HOST PORT PREFIX HPREFIX SECTION...
#
# A command is one line as redis-cli reads it from its standard input (its own
# quoting: "\x00", "\r", "\n" in double quotes, so keys and values may hold any byte),
# answered in redis-cli's human form (--no-raw), which the awk below turns into the
# scenario's form. Steps that must share a connection (connect, transactions) are one
# redis-cli reading several lines. The 1 MiB value goes in through -x (the last
# argument read from standard input) and comes back through --raw. The pipeline section
# is --pipe mass insertion of 1000 commands, half in the inline form and half as RESP.
set -euo pipefail
HOST=$1 PORT=$2 PREFIX=$3 HPREFIX=$4
shift 4
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cli() { redis-cli -h "$HOST" -p "$PORT" "$@"; }

# redis-cli's human form of replies, a line each, into the scenario's: a status is
# bare, a bulk string quoted, `(integer) 5`, `(nil)`, `(error) ...`, and an array one
# line an element numbered `N) ` (only flat arrays occur here).
canon() {
  awk '
    function one(s) {
      if (s == "(nil)") return "nil"
      if (s == "(empty array)") return "[]"
      if (s ~ /^\(integer\) /) return ":" substr(s, 11)
      if (s ~ /^\(error\) /) return "-" substr(s, 9)
      if (s ~ /^"/) return s
      return "+" s
    }
    function flush() { if (open) { print items "]"; open = 0 } }
    match($0, /^ *[0-9]+\) /) {
      n = substr($0, 1, RLENGTH); gsub(/[ )]/, "", n)
      v = one(substr($0, RLENGTH + 1))
      if (n == 1) { flush(); items = "[" v; open = 1 } else items = items ", " v
      next
    }
    { flush(); print one($0) }
    END { flush() }'
}

# One command on its own connection; prints its reply in the scenario's form.
run() { printf '%s\n' "$1" | cli --no-raw | canon; }

show() { printf '%s %s\n' "$1" "$2"; }
step() { show "$1" "$(run "$2")"; }

# An integer reply within low..high.
range() {
  local v=$1 low=$2 high=$3 n=${1#:}
  if [[ $v == :* && $n =~ ^-?[0-9]+$ ]] && ((n >= low && n <= high)); then
    echo "in $low..$high"
  else
    echo "out of $low..$high: $v"
  fi
}

K="$PREFIX:"
H="$HPREFIX:"

connect() {
  # One connection: each line one reply.
  mapfile -t r < <(printf '%s\n' 'PING' 'ECHO "hello world"' 'SELECT 0' \
    'CLIENT SETNAME rctest' 'CLIENT GETNAME' 'CLIENT ID' | cli --no-raw | canon)
  show ping "${r[0]}"
  show echo "${r[1]}"
  # RESP3: redis-cli -3 sends HELLO 3 on connecting; the map comes back `N# "k" => v`.
  local hello fields proto
  hello=$(cli -3 --no-raw HELLO 3)
  fields=$(sed -nE 's/^ *[0-9]+# "([^"]*)" => .*/\1/p' <<<"$hello" | sort | paste -sd, -)
  proto=$(sed -nE 's/^ *[0-9]+# "proto" => \(integer\) ([0-9]+)$/\1/p' <<<"$hello")
  show hello-fields "$fields"
  if [ "$proto" = 3 ]; then show hello-proto same; else show hello-proto "differs $hello"; fi
  show select-0 "${r[2]}"
  show client-setname "${r[3]}"
  show client-getname "${r[4]}"
  if [[ ${r[5]} =~ ^:[1-9][0-9]*$ ]]; then show client-id positive; else show client-id "${r[5]}"; fi
}

strings() {
  step set "SET ${K}s v1"
  step get "GET ${K}s"
  step get-missing "GET ${K}missing"
  step set-xx "SET ${K}s v2 XX"
  step set-xx-missing "SET ${K}x v XX"
  step set-nx "SET ${K}nx v NX"
  step set-nx-exists "SET ${K}nx w NX"
  step set-get "SET ${K}s v3 GET"
  step get-after-set-get "GET ${K}s"
  step set-ex "SET ${K}ex v EX 100"
  show ttl-ex "$(range "$(run "TTL ${K}ex")" 1 100)"
  step set-px "SET ${K}px v PX 100000"
  show pttl-px "$(range "$(run "PTTL ${K}px")" 1 100000)"
  step mset "MSET ${K}m1 a ${K}m2 b"
  step mget "MGET ${K}m1 ${K}missing ${K}m2"
  step incr "INCR ${K}n"
  step incrby "INCRBY ${K}n 10"
  step decr "DECR ${K}n"
  step decrby "DECRBY ${K}n 3"
  step get-counter "GET ${K}n"
  step incr-not-integer "INCR ${K}s"
  step append-new "APPEND ${K}a hello"
  step append "APPEND ${K}a \" world\""
  step strlen "STRLEN ${K}a"
  step strlen-missing "STRLEN ${K}missing"
  step getset "GETSET ${K}a x"
  step getdel "GETDEL ${K}a"
  step getdel-missing "GETDEL ${K}a"
  step setnx "SETNX ${K}snx v"
  step setnx-exists "SETNX ${K}snx w"
  local bin="\"${K}bin\\x00\\r\\n\\xff\""
  step set-binary "SET $bin \"a\\x00b\\r\\nc\\xff\""
  step get-binary "GET $bin"
  step strlen-binary "STRLEN $bin"
  # 1 MiB holding every byte value: 256 bytes doubled 12 times.
  local i
  for i in $(seq 0 255); do printf '%b' "\\x$(printf %02x "$i")"; done > "$TMP/big"
  for i in $(seq 12); do cat "$TMP/big" "$TMP/big" > "$TMP/big2"; mv "$TMP/big2" "$TMP/big"; done
  show set-1mb "$(cli --no-raw -x SET "${K}big" < "$TMP/big" | canon)"
  cli --raw GET "${K}big" > "$TMP/got"       # --raw ends the value with a newline
  if [ "$(stat -c %s "$TMP/got")" = 1048577 ] && cmp -s -n 1048576 "$TMP/got" "$TMP/big"; then
    show get-1mb same
  else
    show get-1mb "differs ($(stat -c %s "$TMP/got") bytes with the newline)"
  fi
  step strlen-1mb "STRLEN ${K}big"
  step cleanup "DEL ${K}s ${K}nx ${K}ex ${K}px ${K}m1 ${K}m2 ${K}n ${K}snx $bin ${K}big"
}

keys() {
  step set-k1 "SET ${K}k1 a"
  step set-k2 "SET ${K}k2 b"
  step exists-multi "EXISTS ${K}k1 ${K}k2 ${K}missing ${K}k1"
  step del-multi "DEL ${K}k1 ${K}missing"
  step exists-deleted "EXISTS ${K}k1"
  step type-string "TYPE ${K}k2"
  step type-none "TYPE ${K}missing"
  step ttl-no-expiry "TTL ${K}k2"
  step expire "EXPIRE ${K}k2 100"
  show ttl "$(range "$(run "TTL ${K}k2")" 1 100)"
  show pttl "$(range "$(run "PTTL ${K}k2")" 1 100000)"
  step persist "PERSIST ${K}k2"
  step ttl-persisted "TTL ${K}k2"
  step persist-again "PERSIST ${K}k2"
  step ttl-missing "TTL ${K}missing"
  step pttl-missing "PTTL ${K}missing"
  step expire-missing "EXPIRE ${K}missing 100"
  step set-k3 "SET ${K}k3 c"
  step expire-0 "EXPIRE ${K}k3 0"
  step exists-expired "EXISTS ${K}k3"
  step cleanup "DEL ${K}k2"
}

# RESP of one command from its arguments.
resp() {
  local a
  printf '*%d\r\n' $#
  for a in "$@"; do printf '$%d\r\n%s\r\n' "${#a}" "$a"; done
}

pipeline() {
  local i out
  {
    for i in $(seq 0 399); do printf 'SET %sp:%d v%d\r\n' "$K" "$i" "$i"; done   # inline
    for i in $(seq 0 99); do resp INCR "${K}pc"; done
    for i in $(seq 0 399); do resp GET "${K}p:$i"; done
    for i in $(seq 0 99); do printf 'DEL %sp:%d\n' "$K" "$i"; done             # inline, LF only
  } > "$TMP/pipe"
  out=$(cli --pipe < "$TMP/pipe")
  show pipeline-replies "$(sed -nE 's/^errors: [0-9]+, replies: ([0-9]+)$/\1/p' <<<"$out")"
  show pipeline-errors "$(sed -nE 's/^errors: ([0-9]+), replies: [0-9]+$/\1/p' <<<"$out")"
  step get-counter "GET ${K}pc"
  step exists-kept "EXISTS $(for i in $(seq 0 399); do printf '%sp:%d ' "$K" "$i"; done)"
  step get-kept "GET ${K}p:123"
  step get-deleted "GET ${K}p:50"
  step cleanup "DEL ${K}pc $(for i in $(seq 100 399); do printf '%sp:%d ' "$K" "$i"; done)"
}

# HGETALL's flat array of fields and values as {"field": "value", ...} by field.
hgetall() {
  local lines
  lines=$(printf '%s\n' "HGETALL $1" | cli --no-raw)
  if [ "$lines" = "(empty array)" ]; then echo "{}"; return; fi
  sed -E 's/^ *[0-9]+\) //' <<<"$lines" | paste -d'\t' - - | LC_ALL=C sort \
    | awk -F'\t' '{ s = s (NR > 1 ? ", " : "") $1 ": " $2 } END { print "{" s "}" }'
}

hashes() {
  local h="${H}h1" s="${K}hs"
  step hset-new "HSET $h name Ada email ada@example.org visits 1 note x"
  step hget "HGET $h name"
  step hexists "HEXISTS $h email"
  step hdel "HDEL $h note"
  step hdel-again "HDEL $h note"
  step hexists-deleted "HEXISTS $h note"
  step hget-deleted "HGET $h note"
  step hincrby "HINCRBY $h visits 5"
  step hmget "HMGET $h name visits note"
  step hlen "HLEN $h"
  show hgetall "$(hgetall "$h")"
  step hset-existing "HSET $h name Grace"
  step hget-updated "HGET $h name"
  step type-hash "TYPE $h"
  show hgetall-missing "$(hgetall "${H}missing")"
  step hlen-missing "HLEN ${H}missing"
  step set-string "SET $s v"
  step hget-wrongtype "HGET $s name"
  step del-hash "DEL $h"
  step exists-hash-deleted "EXISTS $h"
  step cleanup "DEL $s"
}

transactions() {
  # One connection; EXEC's array is the 5th reply.
  mapfile -t r < <(printf '%s\n' 'MULTI' "SET ${K}t1 a" "INCR ${K}t2" "GET ${K}t1" 'EXEC' \
    | cli --no-raw | canon)
  show exec "${r[4]}"
  step after-exec "GET ${K}t2"
  mapfile -t r < <(printf '%s\n' 'MULTI' "SET ${K}t3 x" 'DISCARD' | cli --no-raw | canon)
  show multi "${r[0]}"
  show queued "${r[1]}"
  show discard "${r[2]}"
  step after-discard "EXISTS ${K}t3"
  mapfile -t r < <(printf '%s\n' 'MULTI' 'EXEC' | cli --no-raw | canon)
  show multi-empty "${r[0]}"
  show exec-empty "${r[1]}"
  step cleanup "DEL ${K}t1 ${K}t2"
}

execabort() {
  mapfile -t r < <(printf '%s\n' 'MULTI' "SET ${K}t4 a" "SET ${K}t5" 'EXEC' | cli --no-raw | canon)
  show multi "${r[0]}"
  show queued "${r[1]}"
  show queue-error "${r[2]}"
  show execabort "${r[3]}"
  step after-execabort "EXISTS ${K}t4 ${K}t5"
}

for section in "$@"; do
  echo "[$section]"
  "$section"
done
