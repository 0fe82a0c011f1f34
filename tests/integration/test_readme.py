"""The documents' promises: the C++ example of docs/CLIENT.md is the file the suite
builds and runs, and the README's first session is the one the protocol tests pin."""

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
