"""Issue 43: a snippet without any marker that is the whole new file, its first line rewritten and
its last lines the file's closing braces.  The shape, from a real release (python-calamine's
src/utils.rs): `use calamine::Error;` became `use calamine::{Error, OdsError, ...};`, arms were added
to the one function's `match`, and the snippet, written out whole, ends as the file does with
`}` lines.

A snippet with no marker that ends as the file does was read as the whole new file only when its
last line had a word in it; with `}` it was anchored from its second line, the new first line put
before the old one, which stayed (silently wrong: the file imported twice).  Now a last line
without a word counts when the snippet's last three lines with text are the file's, a word among
them.  (The Rust case fails without the rule; the others, merged right before by other rules, guard
that it changes nothing for them.)"""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (file, new file): the first line rewritten, a line added inside
LANGS = {
    "rust": ('''use calamine::Error;
use pyo3::PyErr;

pub fn err_to_py(e: Error) -> PyErr {
    match e {
        Error::Io(err) => PyIOError::new_err(err.to_string()),
        _ => CalamineError::new_err(e.to_string()),
    }
}
''', '''use calamine::{Error, OdsError, XlsError, XlsbError, XlsxError};
use pyo3::PyErr;

pub fn err_to_py(e: Error) -> PyErr {
    match e {
        Error::Io(err) => PyIOError::new_err(err.to_string()),
        Error::Ods(err) => ZipError::new_err(err.to_string()),
        _ => CalamineError::new_err(e.to_string()),
    }
}
'''),
    "go": ('''package utils

func errToPy(e error) error {
	switch e.(type) {
	case *IoError:
		return NewIOError(e.Error())
	default:
		return NewCalamineError(e.Error())
	}
}
''', '''package utils // import "example.com/calamine/utils"

func errToPy(e error) error {
	switch e.(type) {
	case *IoError:
		return NewIOError(e.Error())
	case *OdsError:
		return NewZipError(e.Error())
	default:
		return NewCalamineError(e.Error())
	}
}
'''),
    "javascript": ('''import { Error } from "calamine";

export function errToPy(e) {
  switch (e.kind) {
    case "io":
      return new IOError(e.message);
    default:
      return new CalamineError(e.message);
  }
}
''', '''import { Error, OdsError, XlsError, XlsbError, XlsxError } from "calamine";

export function errToPy(e) {
  switch (e.kind) {
    case "io":
      return new IOError(e.message);
    case "ods":
      return new ZipError(e.message);
    default:
      return new CalamineError(e.message);
  }
}
'''),
    "python": ('''from calamine import Error


def err_to_py(e: Error) -> Exception:
    if isinstance(e, IoError):
        return OSError(str(e))
    return CalamineError(str(e))
''', '''from calamine import Error, OdsError, XlsError, XlsbError, XlsxError


def err_to_py(e: Error) -> Exception:
    if isinstance(e, IoError):
        return OSError(str(e))
    if isinstance(e, OdsError):
        return ZipError(str(e))
    return CalamineError(str(e))
'''),
}
LANGS["typescript"] = tuple(t.replace("errToPy(e)", "errToPy(e: Error): Error") for t in LANGS["javascript"])


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_whole_new_file_ending_in_braces_replaces_its_first_line(lang):
    original, new = LANGS[lang]
    res = merge(original, new, lang)
    assert res.ok, res.reason
    assert res.text == new, res.text


def test_a_snippet_whose_closing_lines_are_not_the_files_is_not_the_whole_file():
    """Only `}` shared: the snippet is one function (merged by name), the file's others stay."""
    original = LANGS["rust"][0] + '''
pub fn other() -> u32 {
    1
}
'''
    snippet = '''pub fn err_to_py(e: Error) -> PyErr {
    match e {
        Error::Io(err) => PyIOError::new_err(err.to_string()),
        Error::Ods(err) => ZipError::new_err(err.to_string()),
        _ => CalamineError::new_err(e.to_string()),
    }
}
'''
    res = merge(original, snippet, "rust")
    assert res.ok, res.reason
    assert "pub fn other() -> u32 {" in res.text and "use calamine::Error;" in res.text
    assert "Error::Ods(err)" in res.text
