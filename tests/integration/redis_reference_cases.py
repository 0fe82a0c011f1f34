"""The inputs whose answers from redis-server are the Redis protocol layer's reference
data (redis_reference.py writes them; test_redis_reference.py re-checks them).

FRAMING: raw bytes sent on a fresh connection, then half-closed. They use only PING
and ECHO (and unknown commands), whose answers follow from the words alone, so the
C++ test can replay its parser's framing and compare the bytes.
COMMANDS: the commands and subcommands of the command table (COMMAND INFO).
ARGUMENTS: a command after a setup on an empty database, for the argument helpers.
"""

HEADER = {
    "framing_unauthenticated": "name\tinput bytes\tredis-server's answer before AUTH (requirepass set)",
    "framing": "name\tinput bytes\tredis-server's answer until it closed (input half-closed)",
    "commands": "name\tarity\tflags\tfirst key\tlast key\tstep (COMMAND INFO)",
    "arguments": "name\targv (space-separated, escaped)\tredis-server's reply",
}

LONG = b"1" * 66000  # past PROTO_INLINE_MAX_SIZE (64 KiB)

FRAMING = [
    ("ping", b"*1\r\n$4\r\nPING\r\n"),
    ("pipeline", b"*1\r\n$4\r\nping\r\n*2\r\n$4\r\nEcHo\r\n$5\r\nhello\r\n*2\r\n$4\r\nPING\r\n$1\r\nx\r\n"),
    ("bulk_with_crlf_inside", b"*2\r\n$4\r\nECHO\r\n$4\r\na\r\nb\r\n"),
    ("bulk_with_nul_inside", b"*2\r\n$4\r\nECHO\r\n$3\r\na\x00b\r\n"),
    ("empty_bulk", b"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n"),
    ("bytes_after_bulk_unread", b"*1\r\n$4\r\nPINGXY*1\r\n$4\r\nPING\r\n"),
    ("byte_after_count_cr_unread", b"*1\rX$4\r\nPING\r\n"),
    ("byte_after_bulk_cr_unread", b"*1\r\n$4\rXPING\r\n"),
    ("zero_count", b"*0\r\n*1\r\n$4\r\nPING\r\n"),
    ("negative_count", b"*-1\r\n*-10\r\n*1\r\n$4\r\nPING\r\n"),
    ("count_leading_zero", b"*01\r\n$4\r\nPING\r\n"),
    ("count_plus", b"*+1\r\n$4\r\nPING\r\n"),
    ("count_empty", b"*\r\n"),
    ("count_letters", b"*abc\r\n"),
    ("count_over_int_max", b"*3000000000\r\n"),
    ("count_minus_zero", b"*-0\r\n"),
    ("count_too_long_line", b"*" + LONG),
    ("count_nul_hides_cr", b"*1\x00\r\n$4\r\nPING\r\n"),
    ("expected_dollar", b"*3\r\n$4\r\nECHO\r\n$1\r\nx\r\nfooz\r\n"),
    ("expected_dollar_cr", b"*1\r\n\r\n"),
    ("expected_dollar_lf", b"*1\r\n\n\r\n"),
    ("expected_dollar_high_byte", b"*1\r\n\xffxx\r\n"),
    ("expected_dollar_colon", b"*2\r\n$4\r\nECHO\r\n:1\r\n"),
    ("bulk_negative", b"*1\r\n$-1\r\n"),
    ("bulk_letters", b"*1\r\n$x\r\n"),
    ("bulk_leading_zero", b"*1\r\n$04\r\nPING\r\n"),
    ("bulk_over_512mb", b"*1\r\n$536870913\r\n"),
    ("bulk_512mb_waits", b"*1\r\n$536870912\r\nab"),
    ("bulk_count_too_long_line", b"*1\r\n$" + LONG),
    ("bulk_nul_hides_cr", b"*1\r\n$4\x00\r\nPING\r\n"),
    ("incomplete_after_complete", b"*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$5\r\nhel"),
    ("incomplete_header", b"*1\r\n$4\r"),
    ("wrong_arity_echo", b"*1\r\n$4\r\necho\r\n*3\r\n$4\r\nPING\r\n$1\r\na\r\n$1\r\nb\r\n"),
    ("unknown_command", b"*3\r\n$3\r\nfoo\r\n$1\r\na\r\n$2\r\nbb\r\n"),
    ("unknown_command_nul", b"*2\r\n$4\r\nPI\x00G\r\n$3\r\na\x00b\r\n"),
    ("unknown_command_long_args", b"FOO " + b"x" * 100 + b" " + b"y" * 100 + b" z\r\n"),
    ("unknown_command_long_name", b"Q" * 200 + b"\r\n"),
    ("unknown_command_crlf_in_name", b"*1\r\n$3\r\na\r\n\r\n"),
    ("inline_crlf", b"PING\r\n"),
    ("inline_lf", b"PING\nPING x\n"),
    ("inline_spaces", b"  ECHO   hello  \r\n"),
    ("inline_blank_lines", b"\r\n\n   \r\nPING\r\n"),
    ("inline_tab_vtab", b"\tECHO\ta\x0bb\r\n"),
    ("inline_vtab_lead", b"\x0b\x0cPING\r\n"),
    ("inline_cr_inside", b"ECHO a\rb\r\n"),
    ("inline_double_quotes", b'ECHO "a b"\r\n'),
    ("inline_escapes", b'ECHO "\\x41\\x4a\\n\\r\\t\\b\\a\\\\\\"\\q"\r\n'),
    ("inline_hex_short", b'ECHO "\\x4"\r\n'),
    ("inline_hex_bad", b'ECHO "\\xZZ"\r\n'),
    ("inline_single_quotes", b"ECHO 'it\\'s \\n'\r\n"),
    ("inline_quote_mid_word", b'ECHO a"b c"\r\n'),
    ("inline_single_mid_word", b"ECHO a'b c'\r\n"),
    ("inline_empty_quoted", b'ECHO ""\r\n'),
    ("inline_empty_single", b"ECHO ''\r\n"),
    ("inline_quote_then_tab", b'ECHO "a"\tPING\r\n'),
    ("inline_unbalanced_double", b'ECHO "abc\r\n'),
    ("inline_unbalanced_single", b"ECHO 'abc\r\n"),
    ("inline_closing_quote_glued", b'ECHO "abc"x\r\n'),
    ("inline_single_glued", b"PING 'a'b\r\n"),
    ("inline_backslash_at_end", b'ECHO "abc\\\r\n'),
    ("inline_nul_hides_lf", b"PING\x00\r\nPING\r\n"),
    ("inline_too_long", b"A" * 66000),
    ("inline_then_multibulk", b"PING\r\n*2\r\n$4\r\nECHO\r\n$1\r\nz\r\n"),
    ("multibulk_then_inline", b"*1\r\n$4\r\nPING\r\nECHO inline\r\n"),
    ("error_stops_pipeline", b"PING\r\n*1\r\n$-5\r\nPING\r\n"),
    ("nested_array", b"*2\r\n*1\r\n$4\r\nPING\r\n"),
    ("huge_count_waits", b"*2147483647\r\n$4\r\nPING\r\n"),
    ("bulk_length_with_space", b"*1\r\n$ 4\r\nPING\r\n"),
    ("deep_pipeline", b"*1\r\n$4\r\nPING\r\n" * 200 + b"PING\r\n" * 200),
]

# Sent to a daemon with a password, before AUTH: small requests only.
FRAMING_UNAUTHENTICATED = [
    ("ten_arguments", b"*10\r\n$4\r\nPING\r\n" + b"$1\r\na\r\n" * 9),
    ("eleven_arguments", b"*11\r\n"),
    ("bulk_16384", b"*2\r\n$4\r\nECHO\r\n$16384\r\n" + b"e" * 16384 + b"\r\n"),
    ("bulk_16385", b"*2\r\n$4\r\nECHO\r\n$16385\r\n"),
    ("unknown_before_noauth", b"*1\r\n$3\r\nfoo\r\nECHO\r\nPING\r\n"),
    ("inline_long_line", b"PING " + b"p" * 60000 + b"\r\n"),
]

COMMANDS = [
    "hello", "auth", "select", "client", "client|setname", "client|getname", "client|id",
    "client|info", "client|list", "command", "command|count", "command|docs", "command|info",
    "command|list", "ping", "echo", "quit", "reset", "info", "config", "config|get",
    "config|set", "config|resetstat",
    "get", "set", "setnx", "setex", "getset", "getdel", "getex", "mget", "mset", "msetnx",
    "append", "strlen", "getrange", "incr", "decr", "incrby", "decrby", "incrbyfloat",
    "del", "unlink", "exists", "type", "expire", "pexpire", "expireat", "pexpireat", "ttl",
    "pttl", "persist", "scan", "dbsize", "flushdb",
    "hget", "hmget", "hgetall", "hset", "hsetnx", "hincrby", "hincrbyfloat", "hexists",
    "hlen", "hkeys", "hvals", "hstrlen", "hdel",
    "multi", "exec", "discard", "watch", "unwatch",
]

INTEGERS = ["1", "-1", "0", "+1", " 1", "1 ", "01", "-0", "00", "-", "", "1.0", "0x10", "1e3",
            "9223372036854775802", "9223372036854775803", "9223372036854775807",
            "-9223372036854775808", "-9223372036854775809", "99999999999999999999",
            "123456789012345678901", "1\x00"]
FLOATS = ["1.5", "-5", "1e3", "0.1", ".5", "5.", " 1", "1 ", "+1", "inf", "-inf", "nan",
          "infinity", "0x10", "0x1p3", "1e400", "1e5000", "1e-5000", "1,5", "", "abc",
          "3.0000000000000000001", "-5.0", "1e-20", "1.5\x00xyz", "\x001"]
SET_OPTIONS = [
    [], ["NX"], ["xx"], ["GET"], ["nx", "get"], ["KEEPTTL"], ["EX", "10"], ["px", "10000"],
    ["EXAT", "99999999999"], ["PXAT", "99999999999000"], ["EX"], ["EX", "0"], ["EX", "-1"],
    ["EX", "abc"], ["EX", "1.5"], ["EX", "9999999999999999"], ["PX", "9223372036854775807"],
    ["EXAT", "0"], ["PXAT", "-5"], ["EX", "10", "PX", "10"], ["EX", "10", "EX", "20"],
    ["NX", "XX"], ["XX", "NX"], ["NX", "NX"], ["KEEPTTL", "EX", "10"], ["EX", "10", "KEEPTTL"],
    ["PERSIST"], ["FOO"], ["NX\x00junk"], ["EX", "10", "EXAT", "10"], ["GET", "GET"],
    ["XX", "GET"], ["ex", "5", "xx"], ["PX", "1", "PXAT", "1"], ["EXAT", "1", "PXAT", "1"],
]
GETEX_OPTIONS = [[], ["PERSIST"], ["EX", "10"], ["EX", "0"], ["PERSIST", "EX", "1"],
                 ["EX", "1", "PERSIST"], ["KEEPTTL"], ["NX"], ["GET"], ["PXAT", "abc"]]
SCAN_ARGS = [
    ["0"], ["01"], ["-1"], ["+5"], [""], [" 1"], ["1 "], ["abc"], ["18446744073709551615"],
    ["18446744073709551616"], ["0", "COUNT", "10"], ["0", "count", "0"], ["0", "COUNT", "-1"],
    ["0", "COUNT", "x"], ["0", "COUNT"], ["0", "MATCH", "a*"], ["0", "MATCH"],
    ["0", "TYPE", "string"], ["0", "TYPE", "nosuchtype"], ["0", "FOO", "1"],
    ["0", "MATCH", "a*", "COUNT", "5", "TYPE", "hash"], ["0", "COUNT", "1", "COUNT", "2"],
    ["0", "count\x00x", "5"], ["0", "COUNT", "9223372036854775807"],
]

ARGUMENTS = (
    [(f"incrby_{i}", [["SET", "n", "5"]], ["INCRBY", "n", x]) for i, x in enumerate(INTEGERS)]
    + [(f"incrbyfloat_{i}", [["SET", "f", "5"]], ["INCRBYFLOAT", "f", x])
       for i, x in enumerate(FLOATS)]
    + [(f"set_{i}", [], ["SET", "k", "v", *o]) for i, o in enumerate(SET_OPTIONS)]
    + [(f"getex_{i}", [["SET", "k", "v"]], ["GETEX", "k", *o]) for i, o in enumerate(GETEX_OPTIONS)]
    + [(f"scan_{i}", [], ["SCAN", *a]) for i, a in enumerate(SCAN_ARGS)]
)
