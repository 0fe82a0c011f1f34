"""rowsocket answers like the original: one server, both plugins, the same requests.

Both plugins are loaded into ONE server over the same tables. Every case sends its
lines (after a common set of index opens) on a fresh connection to the original and
then to rowsocket, and compares the answers line by line and, for writes, the tables
afterwards (reset before each run). The exceptions in KNOWN_DIFFERENCES are cases
where the original is known wrong; for them rowsocket must give the contract's answer
and the original must still differ (so a stale exception is noticed).
Requests that crash or stall the original are not here (see test_safety.py).
"""

import pytest

import harness
import hs
import servers
from db import Sql

pytestmark = pytest.mark.skipif(
    harness.rowsocket_plugin_path() is None,
    reason="needs ROWSOCKET_PLUGIN=/path/to/rowsocket.so to compare with the original")

SETUP = [
    "P\t0\ttest\tuser\tPRIMARY\tuser_name,user_email,created",
    "P\t1\ttest\tcnums\tPRIMARY\tid,v\ta,b,v,id",
    "P\t2\ttest\tcnums\tab\tid,a,b",
    "P\t3\ttest\tcmod\tPRIMARY\tk,v,n",
    "P\t4\ttest\tcmod\tPRIMARY\tn\tn",
    "P\t5\ttest\tcai\tPRIMARY\tv",
    "P\t6\ttest\tcai\tPRIMARY\tid,v",
    "P\t7\ttest\tcdflt\tPRIMARY\tk,v,n",
]
LONG_KEY = "7" * 200_000

READS = {
    "find": ["0\t=\t1\t101"],
    "find_missing": ["0\t=\t1\t999"],
    "find_crlf": ["0\t=\t1\t101\r"],
    "gt_default_limit": ["1\t>\t1\t5"],
    "gt": ["1\t>\t1\t5\t3\t0"],
    "ge": ["1\t>=\t1\t5\t3\t0"],
    "lt": ["1\t<\t1\t5\t3\t0"],
    "le": ["1\t<=\t1\t5\t3\t0"],
    "offset": ["1\t>=\t1\t5\t3\t2"],
    "past_the_end": ["1\t>\t1\t59\t5\t0", "1\t<\t1\t1\t5\t0"],
    "prefix_eq": ["2\t=\t1\t2\t20\t0"],
    "prefix_eq_offset": ["2\t=\t1\t2\t3\t4"],
    "prefix_gt": ["2\t>\t1\t2\t5\t0"],
    "prefix_le": ["2\t<=\t1\t2\t5\t0"],
    "full_key_ge": ["2\t>=\t2\t2\t5\t5\t0"],
    "full_key_lt": ["2\t<\t2\t2\t5\t5\t0"],
    "in": ["1\t=\t1\t0\t10\t0\t@\t0\t3\t7\t3\t5"],
    "in_missing_value": ["1\t=\t1\t0\t10\t0\t@\t0\t3\t7\t999\t5"],
    "in_non_leading_part": ["2\t=\t2\t1\t0\t10\t0\t@\t1\t3\t7\t3\t5"],
    "in_limit_offset": ["1\t=\t1\t0\t2\t1\t@\t0\t3\t7\t3\t5"],
    "in_prefix": ["2\t=\t1\t0\t30\t0\t@\t0\t2\t3\t2"],
    "in_with_filter": ["1\t=\t1\t0\t10\t0\t@\t0\t3\t7\t3\t5\tF\t>\t1\t4"],
    "filter_each_op": [f"1\t>=\t1\t1\t100\t0\tF\t{op}\t0\t2"
                       for op in ("=", "!=", "<", "<=", ">", ">=")],
    "filter_string": ["1\t<=\t1\t59\t100\t0\tF\t>\t2\tv35"],
    "while_each_op": ["1\t>=\t1\t1\t100\t0\tW\t=\t0\t0", "1\t>=\t1\t1\t100\t0\tW\t<\t0\t3",
                      "1\t<=\t1\t59\t100\t0\tW\t>\t0\t3", "1\t>=\t1\t1\t100\t0\tW\t!=\t0\t3",
                      "1\t>=\t1\t1\t100\t0\tW\t<=\t0\t2", "1\t<=\t1\t59\t100\t0\tW\t>=\t0\t3"],
    "filters_and": ["1\t>=\t1\t1\t100\t0\tF\t>\t0\t1\tF\t<\t1\t3\tW\t<\t3\t45"],
    "filter_offset": ["1\t>=\t1\t1\t3\t2\tF\t=\t1\t5"],
    "filter_nothing": ["1\t>=\t1\t1\t100\t0\tF\t=\t0\t99"],
    "limit_zero": ["1\t>=\t1\t1\t0\t0"],
    "reopen_replaces": ["P\t0\ttest\tuser\tPRIMARY\tuser_email", "0\t=\t1\t101"],
    "null_key": ["1\t=\t1\t\x00"],
    "long_key": ["0\t=\t1\t" + LONG_KEY],
    "readonly_insert": ["3\t+\t3\t9\tx\t9"],
    "readonly_update": ["3\t=\t1\t1\t1\t0\tU\t1\tx\t1", "4\t=\t1\t1\t1\t0\t+?\t1"],
    "readonly_delete": ["3\t=\t1\t1\t1\t0\tD"],
    "readonly_malformed": ["3\t+\t0", "3\t+\t3\t9", "3\t=\t1\t1\t1\t0\tZ\t1",
                           "3\t=\t1\t1\t1\t0\tD\tx", "1\t=\t1\t1\t1\t0\textra"],
    "readonly_index_not_open": ["9\t+\t1\tx", "9\t=\t1\t1\t1\t0\tU\tx"],
    # How leniently a request is read (section 3 of ORIGINAL-DIFFERENCES.md): the
    # forms the original answers sensibly, answered the same ...
    "offset_left_out": ["0\t=\t1\t101\t1", "1\t>=\t1\t5\t3", "1\t<\t1\t9\t0"],
    "limit_zero_with_offset": ["1\t>=\t1\t1\t0\t2", "2\t=\t1\t3\t0\t0"],
    "empty_limit_and_offset": ["0\t=\t1\t101\t\t", "1\t>=\t1\t5\t3\t", "1\t>=\t1\t5\t\t2"],
    "trailing_tab": ["0\t=\t1\t101\t", "1\t>=\t1\t1\t3\t1\t",
                     "1\t=\t1\t0\t10\t0\t@\t0\t2\t7\t3\t",
                     "1\t>=\t1\t1\t3\t0\tF\t>\t0\t4\t"],
    "open_empty_index_name": ["P\t9\ttest\tuser\t\tuser_name", "9\t=\t1\t101",
                              "P\t9\ttest\tcnums\t\tid,v", "9\t>=\t1\t7\t2\t0"],
    "open_index_by_position": ["P\t9\ttest\tcnums\t1\tid,a,b", "9\t=\t1\t2\t3\t0",
                               "P\t9\ttest\tcnums\t0\tid", "9\t=\t1\t2",
                               "P\t9\ttest\tcnums\t2\tid"],
    "open_empty_columns": ["P\t9\ttest\tuser\t\t", "9\t=\t1\t101"],
    "open_names_left_out": ["P\t9\ttest\tuser", "9\t=\t1\t101", "P\t9\ttest\tuser\tPRIMARY",
                            "9\t=\t1\t101", "P\t9", "P\t9\ttest"],
    "open_extra_tokens": ["P\t9\ttest\tuser\tPRIMARY\tuser_name\tuser_id\textra",
                          "9\t=\t1\t101"],
    "open_empty_column_name": ["P\t9\ttest\tuser\tPRIMARY\tuser_name,,user_id"],
    "key_value_conversions": ["0\t=\t1\tabc", "0\t=\t1\t101x", "0\t=\t1\t 101"],
    "control_bytes_in_a_token": ["0\t=\t1\t10\x021", "1\t=\t1\t1\x02"],
    "auth_without_a_secret": ["A\t1\tx", "0\t=\t1\t101"],
    # ... and the forms it reads as something the client did not send, refused.
    "index_id_with_junk": ["0x\t=\t1\t101", "0 \t=\t1\t101"],
    "index_id_wraps": ["4294967296\t=\t1\t101"],
    "key_values_left_out": ["0\t=\t1", "2\t=\t2\t1"],
    "key_count_with_sign_or_junk": ["0\t=\t-1\t101", "0\t=\t1x\t101"],
    "offset_not_a_number": ["0\t=\t1\t101\t1\t-1", "0\t=\t1\t101\t1\tx"],
    "limit_overflows": ["0\t=\t1\t101\t99999999999999999999\t0"],
    "filter_left_short": ["1\t>=\t1\t1\t5\t0\tF", "1\t>=\t1\t1\t5\t0\tF\t=",
                          "1\t>=\t1\t1\t5\t0\tF\t=\t0"],
    "filter_column_not_a_number": ["1\t>=\t1\t1\t5\t0\tF\t>\tx\t2",
                                   "1\t>=\t1\t1\t5\t0\tF\t>\t-1\t2"],
    "filter_op_unknown": ["1\t>=\t1\t1\t5\t0\tF\t<>\t0\t2", "1\t>=\t1\t1\t5\t0\tF\t=<\t0\t2",
                          "1\t>=\t1\t1\t5\t0\tF\t!\t0\t2"],
    "in_key_part_beyond_the_key": ["0\t=\t1\t101\t1\t0\t@\t5\t1\t101",
                                   "2\t=\t1\t1\t5\t0\t@\t1\t2\t3\t4"],
    "in_header_not_a_number": ["0\t=\t1\t101\t1\t0\t@\tx\t1\t101",
                               "1\t=\t1\t1\t5\t0\t@\t0\t-1\t7"],
    "in_without_limit": ["1\t=\t1\t0\t@\t0\t2\t7\t3"],
    "open_index_id_not_a_number": ["P\tx\ttest\tuser\tPRIMARY\tuser_name", "0\t=\t1\t101"],
    "open_names_in_any_case": ["P\t9\ttest\tuser\tprimary\tuser_name", "9\t=\t1\t101",
                               "P\t9\ttest\tuser\tPRIMARY\tUSER_NAME", "9\t=\t1\t101"],
    "open_trailing_comma": ["P\t9\ttest\tuser\tPRIMARY\tuser_name,", "9\t=\t1\t101"],
}

ERRORS = {
    "stmtnum": ["9\t=\t1\t101"],
    "kpnum": ["0\t=\t2\t101\t5", "2\t=\t3\t1\t2\t3"],
    "fld": ["P\t9\ttest\tuser\tPRIMARY\tnosuch", "P\t9\ttest\tuser\tPRIMARY\tuser_name\tnosuch"],
    "open_table": ["P\t9\ttest\tnosuch\tPRIMARY\tuser_name",
                   "P\t9\tnosuchdb\tuser\tPRIMARY\tuser_name"],
    "idxnum": ["P\t9\ttest\tuser\tnosuch\tuser_name"],
    "op": ["0\t!\t1\t101", "0\t==\t1\t101", "0"],
    "modop": ["0\t=\t1\t101\t1\t0\tZ", "0\t=\t1\t101\t1\t0\tu\t1"],
    "filtertype": ["1\t>=\t1\t1\t1\t0\tFX\t=\t0\t1", "1\t>=\t1\t1\t1\t0\tWW\t=\t0\t1"],
    "filterfld": ["1\t>=\t1\t1\t1\t0\tF\t=\t4\t1", "0\t=\t1\t101\t1\t0\tF\t=\t0\t1"],
    "invalueslen": ["0\t=\t1\t101\t1\t0\t@\t0\t0", "0\t=\t1\t101\t1\t0\t@\t0\tx\t1",
                    "0\t=\t1\t101\t1\t0\t@"],
    "in_fewer_values_than_length": ["0\t=\t1\t101\t1\t0\t@\t0\t3\t101"],
    "cmd": ["garbage", "", "\x01\x02", "x\t=\t1\t101", "-1\t=\t1\t101", "\t"],
    "klen": ["0\t=\tx\t101", "0\t=\t0", "0\t=", "3\t+\t0", "3\t+\tx"],
    "limit_not_a_number": ["0\t=\t1\t101\tx\ty", "0\t=\t1\t101\t1x\t0",
                           "0\t=\t1\t101\t-1\t0"],
    "filter_before_in": ["0\t=\t1\t101\t1\t0\tF\t=\t0\t1\t@\t0\t1\t101"],
    "open_without_an_id": ["P"],
}

WRITES = {
    "insert": ["3\t+\t3\t10\tx\t100"],
    "insert_null_and_empty": ["3\t+\t3\t11\t\x00\t\x00", "3\t+\t3\t12\t\t0"],
    "insert_auto_increment": ["5\t+\t1\tx", "5\t+\t1\ty", "6\t+\t2\t\x00\tz"],
    "insert_explicit_auto_increment_id": ["6\t+\t2\t50\ty"],
    "insert_duplicate": ["3\t+\t3\t1\tdup\t0"],
    "insert_defaults_outside_columns": ["7\t+\t3\t1\tx\t1"],
    "insert_fewer_values_explicit_defaults": ["7\t+\t1\t2"],
    "insert_fewer_values_null_defaults": ["3\t+\t1\t13"],
    "update": ["3\t=\t1\t2\t1\t0\tU\t2\tbb\t21"],
    "update_range": ["3\t>=\t1\t2\t3\t0\tU?\t2\tx\t1", "3\t>=\t1\t1\t10\t0"],
    "update_no_match": ["3\t=\t1\t99\t1\t0\tU\t99\tx\t1"],
    "update_fewer_values": ["3\t=\t1\t2\t1\t0\tU\t2\tbb"],
    "update_with_filter": ["4\t>=\t1\t1\t10\t0\tF\t>\t0\t5\tU\t0"],
    "plus_minus": ["4\t=\t1\t1\t1\t0\t+\t5", "4\t=\t1\t1\t1\t0\t-\t3", "4\t=\t1\t5\t1\t0\t-\t7"],
    "minus_crossing_zero": ["4\t=\t1\t1\t1\t0\t-\t11", "4\t=\t1\t3\t1\t0\t-\t-6",
                            "4\t=\t1\t3\t1\t0\t-\t2", "4\t=\t1\t1\t1\t0\t-?\t11"],
    "question_forms": ["4\t=\t1\t1\t1\t0\t+?\t5", "4\t=\t1\t2\t1\t0\t-?\t5",
                       "3\t>=\t1\t2\t2\t1\tD?", "3\t=\t1\t99\t1\t0\tD?"],
    "delete": ["3\t=\t1\t2\t1\t0\tD", "3\t>=\t1\t1\t2\t1\tD", "3\t=\t1\t99\t1\t0\tD"],
    "delete_with_filter": ["4\t>=\t1\t1\t10\t0\tF\t>\t0\t0\tD"],
    "in_minus": ["4\t=\t1\t0\t10\t0\t@\t0\t3\t1\t2\t5\t-\t8"],
    # Section 3 of ORIGINAL-DIFFERENCES.md, for writes: answered the same ...
    "modify_limit_zero": ["3\t>=\t1\t1\t0\t0\tU\t1\tz\t1", "4\t>=\t1\t2\t0\t0\t+\t1",
                          "3\t>=\t1\t3\t0\t1\tD"],
    "delete_with_values": ["3\t=\t1\t2\t1\t0\tD\tx", "3\t=\t1\t3\t1\t0\tD?\t"],
    "insert_trailing_tab": ["3\t+\t3\t9\tx\t9\t"],
    "modify_through_an_index_without_columns": ["P\t9\ttest\tcmod\tPRIMARY",
                                                "9\t=\t1\t2\t1\t0\tD"],
    "insert_more_values_than_columns": ["3\t+\t4\t9\tx\t9\tEXTRA"],
    "update_more_values_than_columns": ["3\t=\t1\t2\t1\t0\tU\t2\tx\t1\tEXTRA",
                                        "3\t=\t1\t2\t1\t0\tU\t2\tx\t1\t"],
    # ... or refused.
    "limit_then_a_modify": ["3\t=\t1\t2\t1\tD"],
    "modify_without_limit": ["3\t=\t1\t2\tD"],
    "modify_op_with_junk": ["3\t=\t1\t2\t1\t0\tUU\tq", "3\t=\t1\t2\t1\t0\t+x\t1",
                            "3\t=\t1\t3\t1\t0\tD?x"],
}


class KnownDifference:
    """A case where the original is known wrong; rowsocket must answer `answers`
    (and leave `rows` in test.cmod when given)."""

    def __init__(self, why, answers=None, rows=None):
        self.why, self.answers, self.rows = why, answers, rows


NOT_A_NUMBER = ("the original reads only the digits of a number token ('-1' is 1, "
                "'1x' is 1, 'x' is 0) and wraps past 2^32, so it answers a request "
                "the client did not send; rowsocket refuses the token")
UNCHANGED = [("1", "a", "10"), ("2", "b", "20"), ("3", "c", "-5"), ("4", "d", "0"),
             ("5", "e", "7")]
USER_ROW = "0\t3\tYukari Takeba\tyukari.takeba@dena.jp\t2010-02-03 11:22:33"

KNOWN_DIFFERENCES = {
    "in_prefix": KnownDifference(
        "the original returns only the first row of each IN value's lookup",
        answers=["0\t3\t" + "\t".join(f"{i}\t{i // 10}\t{i % 10}"
                                      for i in [*range(30, 40), *range(20, 30)])]),
    "in_fewer_values_than_length": KnownDifference(
        "the original reads IN values past the end of the request",
        answers=["2\t1\tinvalueslen"]),
    "update_fewer_values": KnownDifference(
        "the original sets the columns without a value to '' / 0",
        answers=["0\t1\t1"],
        rows=[("1", "a", "10"), ("2", "bb", "20"), ("3", "c", "-5"), ("4", "d", "0"),
              ("5", "e", "7")]),
    "insert_fewer_values_null_defaults": KnownDifference(
        "the original stores '' / 0 instead of a column's NULL default",
        answers=["0\t1"],
        rows=[("1", "a", "10"), ("2", "b", "20"), ("3", "c", "-5"), ("4", "d", "0"),
              ("5", "e", "7"), ("13", None, None)]),
    "update_range": KnownDifference(
        "the original keeps the rows a failing multi-row update changed before the "
        "failure; rowsocket puts them back, so an error answer means no effect",
        answers=["1\t1\t121", "0\t3\t1\ta\t10\t2\tb\t20\t3\tc\t-5\t4\td\t0\t5\te\t7"],
        rows=[("1", "a", "10"), ("2", "b", "20"), ("3", "c", "-5"), ("4", "d", "0"),
              ("5", "e", "7")]),
    "readonly_index_not_open": KnownDifference(
        "on the read listener the original looks up the index id before it refuses a "
        "write; rowsocket refuses every write there first",
        answers=["2\t1\treadonly", "2\t1\treadonly"]),
    "insert_explicit_auto_increment_id": KnownDifference(
        "the original answers id 0 when the client gives the AUTO_INCREMENT value; "
        "rowsocket answers the id of the row, as the C API's mysql_insert_id() does",
        answers=["0\t1\t50"]),
    # Section 3: refused where the original guesses.
    "index_id_with_junk": KnownDifference(NOT_A_NUMBER, answers=["2\t1\tcmd"] * 2),
    "index_id_wraps": KnownDifference(NOT_A_NUMBER, answers=["2\t1\tstmtnum"]),
    "key_values_left_out": KnownDifference(
        "the original reads key values the line leaves out as ''; rowsocket refuses a "
        "key count the values do not fill", answers=["2\t1\tklen"] * 2),
    "key_count_with_sign_or_junk": KnownDifference(NOT_A_NUMBER, answers=["2\t1\tklen"] * 2),
    "offset_not_a_number": KnownDifference(NOT_A_NUMBER, answers=["2\t1\tsyntax"] * 2),
    "limit_overflows": KnownDifference(NOT_A_NUMBER, answers=["2\t1\tsyntax"]),
    "limit_not_a_number": KnownDifference(NOT_A_NUMBER, answers=["2\t1\tmodop"] * 3),
    "filter_left_short": KnownDifference(
        "the original reads a filter's missing parts as '' (and a missing operator as "
        "the end of the filter list); rowsocket refuses a filter without its operator, "
        "column and value", answers=["2\t1\tsyntax"] * 3),
    "filter_column_not_a_number": KnownDifference(NOT_A_NUMBER, answers=["2\t1\tsyntax"] * 2),
    "filter_op_unknown": KnownDifference(
        "the original applies some comparison, or none, for an operator it does not "
        "know; rowsocket refuses it", answers=["2\t1\top"] * 3),
    "in_key_part_beyond_the_key": KnownDifference(
        "the original ignores an IN on a key part the request gives no value for, and "
        "answers rows the IN would not match; rowsocket refuses it",
        answers=["2\t1\tkpnum"] * 2),
    "in_header_not_a_number": KnownDifference(NOT_A_NUMBER, answers=["2\t1\tinvalueslen"] * 2),
    "in_without_limit": KnownDifference(
        "the original reads the two tokens after the key as limit and offset whatever "
        "they are, so an IN without them is garbled; rowsocket reads the documented "
        "form, where the limit is optional", answers=["0\t2\t7\tv7"]),
    "open_index_id_not_a_number": KnownDifference(
        NOT_A_NUMBER + " (here it replaces index id 0)",
        answers=["2\t1\tstmtnum", USER_ROW]),
    "open_names_in_any_case": KnownDifference(
        "rowsocket finds index and column names as SQL does, in any letter case; the "
        "original compares bytes", answers=["0\t1", "0\t1\tYukari Takeba"] * 2),
    "open_trailing_comma": KnownDifference(
        "rowsocket reads a column list ending in a comma as the list without it; the "
        "original answers fld", answers=["0\t1", "0\t1\tYukari Takeba"]),
    "filter_before_in": KnownDifference(
        "both refuse it; the original checks the filter column first (filterfld), "
        "rowsocket the order of the parts (modop)", answers=["2\t1\tmodop"]),
    "open_without_an_id": KnownDifference(
        "both refuse it; the original tries to open index id 0 on table '' "
        "(open_table), rowsocket says the request is short (syntax)",
        answers=["2\t1\tsyntax"]),
    "limit_then_a_modify": KnownDifference(
        "the original takes the token after a limit as the offset, so `1 D` is a find "
        "there; rowsocket refuses it rather than delete or ignore the D",
        answers=["2\t1\tsyntax"], rows=UNCHANGED),
    "modify_without_limit": KnownDifference(
        "the original reads the tokens after the key as limit and offset, so a modify "
        "without them is a find there; rowsocket reads the documented form, where the "
        "limit is optional", answers=["0\t1\t1"],
        rows=[r for r in UNCHANGED if r[0] != "2"]),
    "modify_op_with_junk": KnownDifference(
        "the original acts on the first letter of a modify operation with junk after "
        "it (`UU` updates, `D?x` deletes); rowsocket refuses a write it would have to "
        "guess", answers=["2\t1\tmodop"] * 3, rows=UNCHANGED),
}

MOD_ROWS = [(1, "a", 10), (2, "b", 20), (3, "c", -5), (4, "d", 0), (5, "e", 7)]
CASES = ([pytest.param(n, "port", lines, id=n) for n, lines in READS.items()]
         + [pytest.param(n, "port_wr", lines, id=n) for n, lines in ERRORS.items()]
         + [pytest.param(n, "port_wr", lines, id=n) for n, lines in WRITES.items()])


@pytest.fixture(scope="module")
def both():
    plugins = [harness.original_plugin(),
               harness.rowsocket_plugin({"max_line_length": 16 * 1024 * 1024})]
    with servers.running_server(plugins) as srv:
        sql = Sql(srv)
        sql.create_table("cnums", "id INT PRIMARY KEY, a INT, b INT, v VARCHAR(20), "
                                  "KEY ab (a, b)",
                         [(i, i // 10, i % 10, f"v{i}") for i in range(1, 60)])
        reset_write_tables(sql)
        yield srv, sql
        sql.close()


def reset_write_tables(sql):
    sql.create_table("cmod", "k INT PRIMARY KEY, v VARCHAR(20), n INT", MOD_ROWS)
    sql.create_table("cai", "id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20)")
    sql.create_table("cdflt", "k INT PRIMARY KEY, v VARCHAR(20) DEFAULT 'dv', "
                              "n INT DEFAULT 42, note VARCHAR(10) DEFAULT 'nd'")


def dump_write_tables(sql):
    return {t: sql.rows(f"SELECT * FROM test.{t} ORDER BY 1") for t in ("cmod", "cai", "cdflt")}


def run(plugin, port_attr, lines, sql, writes):
    """Runs SETUP + lines on a fresh connection; returns (answers, tables after)."""
    if writes:
        reset_write_tables(sql)
    data = "".join(line + "\n" for line in SETUP + lines).encode("latin-1")
    with hs.Connection(getattr(plugin, port_attr)) as conn:
        answers = conn.raw(data, lines=len(SETUP) + len(lines)).decode("latin-1")
    return answers.split("\n")[:-1], dump_write_tables(sql) if writes else None


@pytest.mark.parametrize("name,port_attr,lines", CASES)
def test_rowsocket_answers_like_the_original(both, name, port_attr, lines):
    srv, sql = both
    writes = name in WRITES
    theirs = run(srv.plugin("original"), port_attr, lines, sql, writes)
    ours = run(srv.plugin("rowsocket"), port_attr, lines, sql, writes)
    known = KNOWN_DIFFERENCES.get(name)
    if known is None:
        assert ours == theirs
        return
    assert ours[0][:len(SETUP)] == theirs[0][:len(SETUP)]
    if known.answers is not None:
        assert ours[0][len(SETUP):] == known.answers, known.why
    if known.rows is not None:
        assert ours[1]["cmod"] == known.rows, known.why
    assert ours != theirs, f"stale exception, the original now agrees: {known.why}"


def test_every_known_difference_names_a_case():
    assert set(KNOWN_DIFFERENCES) <= set(READS) | set(ERRORS) | set(WRITES)
