"""Issue 43: a fragment whose first and last lines fit two definitions, one of which uses after the
region a name that the region would drop.  The shape, from a real release (werkzeug's
exceptions.py): two `__init__` methods open with the same lines and call `super().__init__` alike;
the snippet rewrites the parameters of the first one (`www_authenticate` written on one line).  The
second one's region drops fewer lines, so it scored best, but its dropped `retry_after` parameter
is still used right after the region (`self.retry_after = retry_after`): that reading lost a line
and left a name unbound.  A region that drops a line binding a name (a typed parameter, an
assignment) that the fragment never shows while the lines after it still use it gives way to the
best candidate that does not.  Go's parameters (`name Type`) are not read this way.  Twin: with
no other candidate, the region is rewritten as before."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

CASES = {
    "python": ('''class Unauthorized(HTTPException):
    def __init__(
        self,
        description: t.Optional[str] = None,
        www_authenticate: t.Optional[
            t.Iterable[str]
        ] = None,
    ) -> None:
        super().__init__(description)
        self.www_authenticate = www_authenticate


class RetryAfter(HTTPException):
    def __init__(
        self,
        description: t.Optional[str] = None,
        retry_after: t.Optional[int] = None,
    ) -> None:
        super().__init__(description)
        self.retry_after = retry_after
''', '''    # ... existing code ...
    def __init__(
        self,
        description: str | None = None,
        www_authenticate: None | t.Iterable[str] = None,
    ) -> None:
        super().__init__(description)
        # ... existing code ...
''', ["        description: t.Optional[str] = None,", "        www_authenticate: t.Optional[",
      "            t.Iterable[str]", "        ] = None,"],
        ["        description: str | None = None,", "        www_authenticate: None | t.Iterable[str] = None,"]),
    "typescript": ('''class Unauthorized extends HttpError {
  constructor(
    description: string | null = null,
    wwwAuthenticate: Array<
      string
    > | null = null,
  ) {
    super(description);
    this.wwwAuthenticate = wwwAuthenticate;
  }
}

class RetryAfter extends HttpError {
  constructor(
    description: string | null = null,
    retryAfter: number | null = null,
  ) {
    super(description);
    this.retryAfter = retryAfter;
  }
}
''', '''  // ... existing code ...
  constructor(
    description?: string,
    wwwAuthenticate?: string[],
  ) {
    super(description);
    // ... existing code ...
''', ["    description: string | null = null,", "    wwwAuthenticate: Array<", "      string",
      "    > | null = null,"], ["    description?: string,", "    wwwAuthenticate?: string[],"]),
    "rust": ('''impl Unauthorized {
    pub fn new(
        description: Option<String>,
        www_authenticate: Option<
            Vec<String>
        >,
    ) -> Self {
        let base = HttpError::new(description);
        Self { base, www_authenticate }
    }
}

impl RetryAfter {
    pub fn new(
        description: Option<String>,
        retry_after: Option<u64>,
    ) -> Self {
        let base = HttpError::new(description);
        Self { base, retry_after }
    }
}
''', '''    // ... existing code ...
    pub fn new(
        description: Option<&str>,
        www_authenticate: Option<Vec<String>>,
    ) -> Self {
        let base = HttpError::new(description);
        // ... existing code ...
''', ["        description: Option<String>,", "        www_authenticate: Option<", "            Vec<String>",
      "        >,"], ["        description: Option<&str>,", "        www_authenticate: Option<Vec<String>>,"]),
}
CASES["javascript"] = (CASES["typescript"][0].replace(": string | null = null", " = null")
                       .replace(": number | null = null", " = null")
                       .replace("wwwAuthenticate: Array<\n      string\n    > | null = null", "wwwAuthenticate = [\n      'Basic'\n    ]"),
                       CASES["typescript"][1].replace("description?: string", "description = undefined")
                       .replace("wwwAuthenticate?: string[]", "wwwAuthenticate = ['Basic']"),
                       ["    description = null,", "    wwwAuthenticate = [", "      'Basic'", "    ],"],
                       ["    description = undefined,", "    wwwAuthenticate = ['Basic'],"])
LANGS = ["python", "javascript", "typescript", "rust"]


@pytest.mark.parametrize("lang", LANGS)
def test_the_region_that_keeps_the_used_parameter_wins(lang):
    src, snippet, old, new = CASES[lang]
    r = merge(src, snippet, lang)
    assert r.ok, r.reason
    assert "\n".join(old) in src
    assert r.text == src.replace("\n".join(old), "\n".join(new), 1)


RETRY = {"python": "retry_after: t.Optional[int] = None,", "javascript": "retryAfter = null,",
         "typescript": "retryAfter: number | null = null,", "rust": "retry_after: Option<u64>,"}


@pytest.mark.parametrize("lang", LANGS)
def test_with_one_candidate_the_rewrite_stays(lang):
    src, snippet, _, new = CASES[lang]
    second = src[src.index("class RetryAfter" if lang != "rust" else "impl RetryAfter"):]
    r = merge(second, snippet, lang)
    assert r.ok, r.reason
    assert RETRY[lang] in second and RETRY[lang] not in r.text and "\n".join(new) in r.text
