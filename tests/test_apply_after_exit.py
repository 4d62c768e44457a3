"""Issue 43: a fragment that starts with a closing line (`  }`) and brings a new statement after it,
where the file has that closing line in several places, one of them the end of a `return (...)`.
The shape, from a real release (redux-toolkit's matchers.ts): `isAsyncThunkAction` ended with
`return (action: any): action is ... => { ... }`; the snippet shows the function's first lines, a
marker inside its first `if`, then `  }`, a blank line, a new one-line `return isAnyOf(...)` and the
function's `}`.

The merge took the last `  }`, the one that closes the old `return (...)`, because that region
dropped nothing: the new return went after the old one, where it could never run (silently wrong).
A place where the fragment's new lines would follow a `return`/`throw`/`raise` statement that the
closing line ends is no longer taken when there is another.  There, the old return's lines are
dropped: when they are few the merge is exact; when five or more in a row go with nothing like them
shown, the merge refuses, naming them.  (On 9139a15 the long JavaScript and TypeScript cases were
merged with the dead return; Go's and Rust's, and every short case, were already right: guards.)"""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (file with {ret}: the old return statement; the snippet; the new return line), per language
LANGS = {
    "javascript": ('''export function isThunkAction(...thunks) {
  if (thunks.length === 0) {
    return (action) => hasMetadata(action)
  }

  if (!isThunkArray(thunks)) {
    return isThunkAction()(thunks[0])
  }

{ret}
}
''', '''// ... existing code ...
export function isThunkAction(...thunks) {
  if (thunks.length === 0) {
    // ... existing code ...
  }

  return isAnyOf(...thunks.flatMap((t) => [t.pending, t.fulfilled]))
}
''', '''  return (action) => {
    const matcher = isAnyOf(...matchers(thunks))
{more}    return matcher(action)
  }''', "  return isAnyOf(...thunks.flatMap((t) => [t.pending, t.fulfilled]))"),
    "go": ('''package matchers

func IsThunkAction(thunks ...Thunk) Matcher {
	if len(thunks) == 0 {
		return HasMetadata
	}

	if !IsThunkArray(thunks) {
		return IsThunkAction()(thunks[0])
	}

{ret}
}
''', '''// ... existing code ...
func IsThunkAction(thunks ...Thunk) Matcher {
	if len(thunks) == 0 {
		// ... existing code ...
	}

	return IsAnyOf(FlatMatchers(thunks)...)
}
''', '''	return func(action Action) bool {
		matcher := IsAnyOf(Matchers(thunks)...)
{more}		return matcher(action)
	}''', "\treturn IsAnyOf(FlatMatchers(thunks)...)"),
    "rust": ('''pub fn is_thunk_action(thunks: &[Thunk]) -> Matcher {
    if thunks.is_empty() {
        return has_metadata();
    }

    if !is_thunk_array(thunks) {
        return is_thunk_action(&thunks[..1]);
    }

{ret}
}
''', '''// ... existing code ...
pub fn is_thunk_action(thunks: &[Thunk]) -> Matcher {
    if thunks.is_empty() {
        // ... existing code ...
    }

    is_any_of(flat_matchers(thunks))
}
''', '''    return Box::new(move |action: &Action| {
        let matcher = is_any_of(matchers(thunks));
{more}        matcher(action)
    });''', "    is_any_of(flat_matchers(thunks))"),
}
LANGS["typescript"] = tuple(t.replace("(...thunks)", "(...thunks: Thunk[])").replace("(action) =>", "(action: any) =>")
                            for t in LANGS["javascript"])
MORE = {"javascript": "    log(action)\n    count(action)\n    trace(action)\n",
        "go": "\t\tlog(action)\n\t\tcount(action)\n\t\ttrace(action)\n",
        "rust": "        log(action);\n        count(action);\n        trace(action);\n"}
MORE["typescript"] = MORE["javascript"]


def _case(lang: str, more: bool):
    file, snippet, ret, new = LANGS[lang]
    old = ret.replace("{more}", MORE[lang] if more else "")
    return file.replace("{ret}", old), snippet, old, new


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_short_old_return_is_replaced_not_followed_by_dead_code(lang):
    original, snippet, old, new = _case(lang, more=False)
    res = merge(original, snippet, lang)
    assert res.ok, res.reason
    assert res.text == original.replace(old, new), res.text


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_long_old_return_left_unshown_is_deleted_and_reported_or_refused_never_followed(lang):
    """Go's merge deletes the old return and reports it; the others refuse (five or more lines in a
    row, nothing like them shown); none puts the new return after the old one."""
    original, snippet, old, new = _case(lang, more=True)
    res = merge(original, snippet, lang)
    if lang == "go":
        assert res.ok, res.reason
        assert res.text == original.replace(old, new), res.text
        assert res.deletions and res.deletions[0].why == "not shown between two lines of the snippet"
    else:
        assert not res.ok, res.text
        assert "would delete lines" in res.reason and "does not show" in res.reason
