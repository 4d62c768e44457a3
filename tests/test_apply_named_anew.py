"""Issue 43: a new method written after the last lines of the one before it, its lines nearly those
of the next method (a real release: cohere-ai's v2 Client.js, in its two builds: the new `parse`, 120
lines of generated request code like `embed`'s, shown after the end of `chat` and followed by `/**`
and a marker).  The region from `chat`'s end to the `/**` after `embed` kept most of `embed`'s lines and
read the new method as `embed` renamed: 21 lost lines each.  A region not framed by lines with words,
the fragment's last line without words, that drops a definition the snippet never names while the
fragment brings one of a new name as deep is a guess between a rename and a new method beside the old
one: refused (lost.named_anew).  Also for functions assigned to a prototype (protobufjs's three
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


# A new class whose first lines copy the class above it, shown up to the comment every `execute_command`
# has, then a deeper marker (cashews's redis client, fresh21: `RedisCluster` after `Redis`, read as
# `SafeRedis` renamed, its header lost).  The region reaches past the first copy of the fragment's last
# lines to the second: framed, but not evidence of a rename (anchors._tail_before).
def redis_class(name: str, base: str, command: str, tail: list[str]) -> list[str]:
    return [f"class {name}({base}):",
            f"    async def execute_command(self, {command}*args, **kwargs):",
            "        try:",
            f"            return await super().execute_command({command}*args, **kwargs)",
            "        except NoScriptError:",
            "            # used by register_script: a Script wrapper",
            "            # does not work unless it is raised again",
            "            raise"] + tail


REDIS = redis_class("Redis", "_Redis", "command, ", ["        except (ConnectionError, OSError) as exp:",
                                                     "            raise CacheBackendInteractionError() from exp"])
SAFE = redis_class("SafeRedis", "_Redis", "command, ",
                   ["        except (ConnectionError, OSError):",
                    '            logger.error("redis: can not execute %s", command)',
                    "            return None", "",
                    "    async def initialize(self):",
                    "        return await super().initialize()"])
REDIS_FILE = "\n".join(["from redis.asyncio import Redis as _Redis", "", ""] + REDIS + ["", ""] + SAFE) + "\n"


def test_a_new_class_copying_the_one_above_is_not_read_as_the_next_renamed():
    new = redis_class("RedisCluster", "_RedisCluster", "", [])[:-1]      # up to the comment
    snippet = "\n".join(["# ... existing code ..."] + REDIS + ["", ""] + new +
                        ["            # ... existing code ..."])
    r = merge(REDIS_FILE, snippet + "\n", "python")
    assert not r.ok, r.text
    assert "`SafeRedis`" in r.reason and "rename or a new one beside it" in r.reason


def test_shown_with_the_next_class_header_it_is_inserted():
    new = redis_class("RedisCluster", "_RedisCluster", "", REDIS[-2:])
    snippet = "\n".join(["# ... existing code ..."] + REDIS + ["", ""] + new + ["", ""] + SAFE[:2] +
                        ["        # ... existing code ..."])
    r = merge(REDIS_FILE, snippet + "\n", "python")
    assert r.ok, r.reason
    assert r.text == "\n".join(["from redis.asyncio import Redis as _Redis", "", ""] + REDIS + ["", ""] + new +
                               ["", ""] + SAFE) + "\n"


# A new type alias written after a function's last lines, its last lines those of the type alias after
# it (trpc's httpUtils.ts: `HTTPBaseRequestOptions` added before `GetUrlOptions`, both ending in
# `type: ProcedureType;` `path: string;` `};`).  The region from the function's end to that `};` read
# the new alias as `GetUrlOptions` renamed: its first two lines lost.  A type alias is a definition
# too (lost.defines, regions.in_new_definition).
def alias(name: str, first: str, second: str) -> list[str]:
    return [f"{'export ' if name != 'GetUrlOptions' else ''}type {name} = {first} &",
            f"  {second} & {{", "    type: ProcedureType;", "    path: string;", "  };"]


FN = ["export function getInput(opts: GetInputOptions) {", "  return 'input' in opts", "    ? opts.input",
      "    : opts.inputs.map((input) => serialize(input),", "      );", "}"]
AFTER = ["", "export function getUrl(opts: GetUrlOptions) {", "  return opts.url + '/' + opts.path;", "}"]


def test_a_new_type_alias_like_the_next_one_is_not_read_as_its_rename():
    old = "\n".join(FN + [""] + alias("GetUrlOptions", "ResolvedHTTPLinkOptions", "GetInputOptions") + AFTER) + "\n"
    new = alias("HTTPBaseRequestOptions", "GetInputOptions", "ResolvedHTTPLinkOptions")
    snippet = "\n".join(["// ... existing code ..."] + FN[-3:] + [""] + new + ["// ... existing code ..."]) + "\n"
    r = merge(old, snippet, "typescript")
    if r.ok:                          # (new beside the old one: the old one kept whole)
        assert r.text == "\n".join(FN + [""] + new + [""] + alias("GetUrlOptions", "ResolvedHTTPLinkOptions",
                                                                   "GetInputOptions") + AFTER) + "\n"
    else:
        assert "`GetUrlOptions`" in r.reason and "rename or a new one beside it" in r.reason
