"""The documents' promises: the C++ example of docs/CLIENT.md is the file the suite
builds and runs, the README's first session is the one the protocol tests pin, its
options table names exactly the plugin's options, and it stays a short document."""

import os
import re

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def document(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def readme():
    return document("README.md")


def test_client_guide_cpp_example_is_the_built_example():
    blocks = re.findall(r"```cpp\n(.*?)```", document("docs/CLIENT.md"), re.S)
    with open(os.path.join(ROOT, "examples", "client_example.cc")) as f:
        example = f.read()
    assert example in blocks


def test_readme_first_session_is_the_tested_one():
    session = ("P\t0\ttest\tuser\tPRIMARY\tuser_name,user_email,created\n0\t1\n"
               "0\t=\t1\t101\n"
               "0\t3\tYukari Takeba\tyukari.takeba@dena.jp\t2010-02-03 11:22:33\n")
    assert session in readme()


def readme_options():
    """The variables the first column of the README's options table names; a `_x`
    beside a full name stands for `rowsocket_x`."""
    names = set()
    for row in re.findall(r"^\| (`rowsocket_[^|]*)\|", readme(), re.M):
        for token in re.findall(r"`([a-z_]+)`", row):
            names.add(token if token.startswith("rowsocket_") else "rowsocket" + token)
    return names


def plugin_options():
    source = document("src/plugin/plugin.cc")
    return {"rowsocket_" + n for n in re.findall(r"MYSQL_SYSVAR_[A-Z]+\(\s*(\w+)", source)}


def test_readme_options_table_names_every_plugin_option_and_no_other():
    assert plugin_options(), "no MYSQL_SYSVAR_* found in src/plugin/plugin.cc"
    assert plugin_options() == readme_options()


def test_readme_stays_a_short_users_document():
    with open(os.path.join(ROOT, "README.md")) as f:
        assert len(f.read().splitlines()) <= 300
