"""test_docs_python.py - the >>> examples of docs/python.md run (doctest)."""
import doctest
import os

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs",
                   "python.md")


def test_docs_python_examples():
    res = doctest.testfile(DOC, module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.attempted >= 15 and res.failed == 0, res
