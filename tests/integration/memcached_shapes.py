"""The container shapes of test_memcached_differential.py: key types, value columns,
meta columns, partitioning, system versioning, generated columns, CHECK constraints.

Every shape has the keys `present` (a row with a plain value), `absent` (no row) and,
where the shape has an expiry column, `expired` (a row whose time has passed); keys
labelled `bad...` are not exactly a value of the key column (SQL's strict INSERT
refuses them, or they do not read back as themselves), `alias...` are other spellings
that SQL's collation takes for a row's key. The labels only name the keys: which keys
are values SQL decides (memcached_differential.SqlSide.key_is_value). Rows are in the
container's column order: key, value columns, then flags, cas, expires where the
shape has them.
"""

from memcached_differential import PAST, McShape

FLAGS = ("flags", "INT UNSIGNED NOT NULL DEFAULT 0")
CAS = ("cas", "BIGINT UNSIGNED NOT NULL DEFAULT 0")
EXPIRES = ("expires", "INT UNSIGNED NOT NULL DEFAULT 0")
META = (FLAGS, CAS, EXPIRES)

INT_KEYS = (("present", b"1"), ("numeric", b"2"), ("expired", b"3"), ("absent", b"99"),
            ("negative", b"-7"), ("bad_x", b"x"), ("bad_1abc", b"1abc"),
            ("bad_1.4", b"1.4"), ("bad_01", b"01"), ("bad_1e0", b"1e0"), ("bad_-0", b"-0"),
            ("bad_2^31", b"2147483648"))
INT_ROWS = ((0, "zero", 0, 10, 0), (1, "one", 1, 11, 0), (2, "41", 2, 12, 0),
            (3, "old", 3, 13, PAST))

# A CHAR(10) or VARCHAR(10) key: ten characters, more, multibyte, spaces at the end.
TEN = "abcdefghij"
STRING_KEYS = (("present", b"abc"), ("ten", TEN.encode()), ("numeric", b"n"),
               ("expired", b"exp"), ("absent", b"zz"), ("bad_11", (TEN + "k").encode()),
               ("bad_13", (TEN + "XYZ").encode()), ("multibyte", "éé".encode()),
               ("multibyte_10_absent", ("é" * 10).encode()),
               ("bad_multibyte_11", ("é" * 11).encode()), ("bad_bytes", b"\xff\xfe"))
STRING_ROWS = (("abc", "three", 1, 11, 0), (TEN, "ten", 2, 12, 0), ("éé", "two é", 3, 13, 0),
               ("n", "41", 4, 14, 0), ("exp", "old", 5, 15, PAST))


def int_keyed(name, **fields):
    return McShape(name, (("k", "INT PRIMARY KEY"), ("v", "VARCHAR(20) NOT NULL")) + META,
                   rows=INT_ROWS, keys=INT_KEYS,
                   more_values=(("empty", b""),), **fields)


SHAPES = [
    int_keyed("int_key"),
    McShape("bigint_unsigned", (("k", "BIGINT UNSIGNED PRIMARY KEY"), ("a", "VARCHAR(10) NULL"),
                                ("b", "VARCHAR(10) NULL"), FLAGS, EXPIRES),
            values=("a", "b"), cas="",
            rows=((2**64 - 1, "x|y", "z", 1, 0), (7, None, "n", 2, 0), (0, "a", None, 0, 0),
                  (8, "q", "r", 0, PAST), (9, "", "40", 0, 0)),
            keys=(("present", str(2**64 - 1).encode()), ("null_first", b"7"),
                  ("null_last", b"0"), ("expired", b"8"), ("absent", b"5"),
                  ("bad_2^64", str(2**64).encode()), ("bad_-1", b"-1"), ("bad_+7", b"+7"),
                  ("bad_07", b"07")),
            write=b"p|q", more_values=(("separator", b"p|q|r"), ("one_field", b"pq"),
                                       ("empty_fields", b"|"))),
    McShape("char_bin", (("k", "CHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY"),
                         ("v", "VARCHAR(20) NOT NULL")) + META,
            rows=STRING_ROWS,
            keys=STRING_KEYS + (("alias_space", b"abc "), ("upper_absent", b"ABC"),
                                ("alias_ten_space", (TEN + "  ").encode())),
            more_values=(("empty", b""),)),
    McShape("varchar_ci", (("k", "VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci "
                                 "NOT NULL"),
                           ("note", "VARCHAR(10) NOT NULL DEFAULT 'd'"),
                           ("a", "VARCHAR(10) NULL"), ("b", "VARCHAR(10) NULL"),
                           ("c", "VARCHAR(10) NULL"), CAS, EXPIRES),
            extra="UNIQUE KEY uk (k)", values=("a", "b", "c"), flags="",
            rows=(("abc", "x", "y|z", None, 11, 0), (TEN, "t", None, "u", 12, 0),
                  ("éé", "", "", "", 13, 0), ("n", "40", "", "1", 14, 0),
                  ("exp", "o", "l", "d", 15, PAST)),
            keys=STRING_KEYS + (("alias_space", b"abc "), ("alias_upper", b"ABC"),
                                ("alias_accent", "àbc".encode()),
                                ("alias_ten_space", (TEN + "  ").encode())),
            write=b"p|q|r", more_values=(("separator", b"p|q|r|s"), ("two_fields", b"p|q"))),
    McShape("varbinary", (("k", "VARBINARY(10) PRIMARY KEY"), ("v", "VARBINARY(20) NOT NULL"))
            + META,
            rows=((b"abc", b"three", 1, 11, 0), (TEN.encode(), b"ten", 2, 12, 0),
                  (b"\xff\x00z", b"bytes", 3, 13, 0), (b"n", b"41", 4, 14, 0),
                  (b"exp", b"old", 5, 15, PAST)),
            keys=(("present", b"abc"), ("ten", TEN.encode()), ("numeric", b"n"),
                  ("expired", b"exp"), ("absent", b"zz"), ("bytes", b"\xff\x00z"),
                  ("upper_absent", b"ABC"), ("space_absent", b"abc "),
                  ("bad_11", (TEN + "k").encode())),
            more_values=(("empty", b""), ("bytes", bytes(range(0, 256, 17))))),
    McShape("no_meta_columns", (("k", "VARCHAR(20) PRIMARY KEY"), ("v", "VARCHAR(20) NOT NULL")),
            flags="", cas="", expires="", rows=(("abc", "three"), ("n", "41")),
            keys=(("present", b"abc"), ("numeric", b"n"), ("absent", b"zz"))),
    McShape("typed_values", (("k", "INT PRIMARY KEY"), ("a", "VARCHAR(10) NOT NULL"),
                             ("b", "INT NULL"), ("c", "VARCHAR(10) NULL")) + META,
            values=("a", "b", "c"),
            rows=((1, "x|y", 5, None, 1, 11, 0), (2, "q", None, "r", 2, 12, 0),
                  (3, "old", 1, "o", 3, 13, PAST)),
            keys=(("present", b"1"), ("null_middle", b"2"), ("expired", b"3"),
                  ("absent", b"99")),
            write=b"p|5|q", more_values=(("not_int", b"p|x|q"), ("separator", b"p|5|q|r"),
                                         ("too_long", b"p|5|" + b"q" * 11))),
    McShape("int_value", (("k", "VARCHAR(10) PRIMARY KEY"), ("v", "INT NOT NULL")) + META,
            rows=(("one", 1, 0, 11, 0), ("max", 2**31 - 1, 0, 12, 0), ("neg", -5, 0, 13, 0),
                  ("exp", 9, 0, 14, PAST)),
            keys=(("present", b"one"), ("max", b"max"), ("negative", b"neg"),
                  ("expired", b"exp"), ("absent", b"zz")),
            write=b"12", more_values=(("text", b"abc"), ("big", b"99999999999"),
                                      ("empty", b""))),
    McShape("partitioned", (("k", "INT PRIMARY KEY"), ("v", "VARCHAR(20) NOT NULL")) + META,
            options="ENGINE=InnoDB PARTITION BY RANGE (k) (PARTITION p0 VALUES LESS THAN (2), "
                    "PARTITION p1 VALUES LESS THAN (100))",
            rows=INT_ROWS,
            keys=(("present", b"1"), ("numeric", b"2"), ("expired", b"3"), ("absent", b"99"),
                  ("no_partition", b"500"), ("bad_x", b"x"), ("bad_01", b"01"))),
    int_keyed("versioned", options="ENGINE=InnoDB WITH SYSTEM VERSIONING", history=True),
    McShape("generated", (("k", "INT PRIMARY KEY"), ("v", "VARCHAR(20) NOT NULL"),
                          ("g", "VARCHAR(25) AS (CONCAT(v, '!')) VIRTUAL"),
                          ("s", "INT AS (CHAR_LENGTH(v)) STORED")) + META,
            extra="KEY ks (s), KEY kg (g)", rows=INT_ROWS,
            keys=(("present", b"1"), ("numeric", b"2"), ("expired", b"3"), ("absent", b"99"))),
    McShape("generated_value", (("k", "INT PRIMARY KEY"), ("v", "VARCHAR(20) NOT NULL"),
                                ("g", "VARCHAR(25) AS (CONCAT(v, '!')) STORED")) + META,
            values=("v", "g"), rows=INT_ROWS, row_columns=("k", "v") + tuple(c for c, _ in META),
            write=b"p|p!",
            keys=(("present", b"1"), ("expired", b"3"), ("absent", b"99"))),
    McShape("check", (("k", "INT PRIMARY KEY"),
                      ("v", "VARCHAR(20) NOT NULL CHECK (v NOT LIKE '%W%' AND v <> '46')"))
            + META,
            extra="CONSTRAINT two CHECK (v <> 'p' OR flags <> 5)",
            rows=INT_ROWS, write=b"q",
            keys=(("present", b"1"), ("numeric", b"2"), ("expired", b"3"), ("absent", b"99")),
            more_values=(("refused", b"xWx"), ("refused_with_flags", b"p"))),
]
