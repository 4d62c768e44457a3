"""Issue 43: a new method written after the last lines of the one before it, its lines nearly those
of the next method (a real release: cohere-ai's v2 Client.js, in its two builds: the new `parse`, 120
lines of generated request code like `embed`'s, shown after the end of `chat` and followed by `/**`
and a marker).  The region from `chat`'s end to the `/**` after `embed` kept most of `embed`'s lines and
read the new method as `embed` renamed: 21 lost lines each.  A region not framed by lines with words,
the fragment's last line without words, that drops a definition the snippet never names while the
fragment brings one of a new name as deep is a guess between a rename and a new method beside the old
one: refused (anchors._named_anew).  Also for functions assigned to a prototype (protobufjs's three
bundles, fresh22: a new `Reader.prototype.size` read as `Reader.prototype.tag` renamed, 11 lost lines
each).  A rename shown with the lines after it still merges (tests/test_apply_renamed_export.py)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

def method(name: str) -> list[str]:
    """A generated client method and its request helper, named `name`."""
    return [
        "    /**",
        f"     * Calls the {name} endpoint.",
        "     *",
        "     * @param {Request} request",
        "     * @throws {@link BadRequestError}",
        "     * @throws {@link UnauthorizedError}",
        "     */",
        f"    {name}(request, options) {{",
        f"        return Promise.resolve(this.__{name}(request, options));",
        "    }",
        f"    __{name}(request, options) {{",
        "        return wrap(this, function* () {",
        "        const headers = mergeHeaders(this.options.headers, options.headers);",
        "        const response = this.fetcher({",
        f'            url: join(this.options.baseUrl, "v2/{name}"),',
        '            method: "POST",',
        "            headers: headers,",
        "            timeoutMs: options.timeoutInSeconds * 1000,",
        "            maxRetries: options.maxRetries,",
        "        });",
        "        if (response.ok) {",
        f"            return {{ data: parse{name.title()}(response.body) }};",
        "        }",
        "        switch (response.error.statusCode) {",
        "            case 400:",
        "                throw new BadRequestError(response.error.body);",
        "            case 401:",
        "                throw new UnauthorizedError(response.error.body);",
        "        }",
        f'        return handleError(response.error, "/v2/{name}");',
        "        });",
        "    }",
    ]
def file(names: list[str]) -> str:
    out = ["export class V2Client {", "    constructor(options) {", "        this.options = options;", "    }"]
    for n in names: out += method(n)
    return "\n".join(out + ["}"]) + "\n"
OLD = file(["chat", "embed", "rerank"])
NEW = file(["chat", "parse", "embed", "rerank"])
CHAT_END = method("chat")[-4:]       # `}` closing its switch, `return handleError(...)`, `});`, `}`
SNIP = "\n".join(["    // ... existing code ..."] + CHAT_END + method("parse") +
                 ["    /**", "     // ... existing code ..."]) + "\n"


@pytest.mark.parametrize("lang", ["javascript", "typescript"])
def test_a_new_method_like_the_next_one_is_not_read_as_its_rename(lang):
    r = merge(OLD, SNIP, lang)
    assert not r.ok
    assert "`embed`" in r.reason and "rename or a new one beside it" in r.reason


@pytest.mark.parametrize("lang", ["javascript", "typescript"])
def test_shown_with_the_next_methods_header_it_is_inserted(lang):
    shown = "\n".join(method("embed")[:2]) + "\n     // ... existing code ...\n"   # `/**` and its first line
    snippet = SNIP.replace("    /**\n     // ... existing code ...\n", shown)
    r = merge(OLD, snippet, lang)
    assert r.ok, r.reason
    assert r.text == NEW


def proto(name: str, check: str) -> list[str]:
    """A reader function assigned to the prototype (protobufjs's bundles), named `name`."""
    return ["/**", f" * Reads a {name}.", " * @returns {number} Value read", " */",
            f"Reader.prototype.{name} = function read_{name}() {{",
            "    if (this.len - this.pos < 5) {",
            "        if (this.pos >= this.len)",
            "            throw indexOutOfRange(this);",
            "        if (this.buf[this.pos] >= 128)",
            "            return readVarint32NearEnd(this);",
            "    }",
            "    var buf = this.buf, pos = this.pos, value = (buf[pos] & 127) >>> 0;",
            "    if (buf[pos++] < 128) {",
            "        this.pos = pos;",
            "        return value;",
            "    }",
            f"    if ({check})",
            '        throw Error("invalid encoding");',
            "    return value;",
            "};",
            ""]


def reader(names: list[str]) -> str:
    lines = ["function Reader(buffer) {", "    this.buf = buffer;", "    this.pos = 0;", "}", ""]
    for n in names:
        lines += proto(n, f"buf[pos] > {len(n)}")
    return "\n".join(lines)


@pytest.mark.parametrize("lang", ["javascript", "typescript"])
def test_a_new_prototype_function_like_the_next_one_is_not_read_as_its_rename(lang):
    before = proto("skip", "buf[pos] > 4")
    snippet = "\n".join(["// ... existing code ..."] + before[-4:-1] + [""] + proto("size", "buf[pos] > 4")[:-1] +
                        ["", "/**", " // ... existing code ..."]) + "\n"
    r = merge(reader(["skip", "tag", "int32"]), snippet, lang)
    assert not r.ok
    assert "`tag`" in r.reason and "rename or a new one beside it" in r.reason
