"""Issue 43: a module of exported bindings, each under the same doc comment, and a snippet that adds
functions before the last one.  The shape, from a real release (@effect/platform's
HttpServerRequest.ts and its CommonJS build, trimmed here to their last bindings): a marker, then
`* @since 1.0.0`, `* @category conversions`, `*/` (the last lines of the doc comment every binding
has), a new `toWebEither` and `toWeb`, then the file's last binding `toURL`.  The comment's lines fit
above `toURL` and above the binding before it, `export const fromWeb: (request: Request) =>
HttpServerRequest = internal.fromWeb`, and the longer region, reading the new function as a rewrite
of `fromWeb`, deleted it (a lost line, on 406942d): an exported constant that is not a function was
no definition to the merge.  A module's exported binding now is one (`export const|let|var NAME` at
the top level, CommonJS's `const NAME = exports.NAME = ...`): a region that drops one the snippet
never names gets no credit for rewriting it, and the guards refuse to drop it silently."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge


def _doc(category: str) -> list[str]:
    return ["/**", " * @since 1.0.0", f" * @category {category}", " */"]


TS_FILE = ["import * as internal from \"./internal/httpServerRequest.js\"", ""] + _doc("schema") + [
    "export const schemaBodyFormJson: <A, I, R>(",
    "  schema: Schema.Schema<A, I, R>,",
    "  options?: ParseOptions | undefined",
    ") => (",
    "  field: string",
    ") => Effect.Effect<",
    "  A,",
    "  ParseResult.ParseError | Error.RequestError,",
    "  R | HttpServerRequest | FileSystem.FileSystem | Path.Path | Scope.Scope",
    "> = internal.schemaBodyFormJson",
    ""] + _doc("conversions") + [
    "export const fromWeb: (request: Request) => HttpServerRequest = internal.fromWeb",
    ""] + _doc("conversions") + [
    "export const toURL: (self: HttpServerRequest) => Option<URL> = internal.toURL"]
TS_NEW = [
    "export const toWebEither = (self: HttpServerRequest, options?: {",
    "  readonly signal?: AbortSignal | undefined",
    "  readonly runtime?: Runtime.Runtime<never> | undefined",
    "}): Either.Either<Request, Error.RequestError> => {",
    "  if (self.source instanceof Request) {",
    "    return Either.right(self.source)",
    "  }",
    "  const ourl = toURL(self)",
    "  if (Option.isNone(ourl)) {",
    "    return Either.left(new Error.RequestError({ request: self, reason: \"Decode\" }))",
    "  }",
    "  const requestInit: RequestInit = { method: self.method, headers: self.headers }",
    "  return Either.right(new Request(ourl.value, requestInit))",
    "}",
    ""] + _doc("conversions") + [
    "export const toWeb = (self: HttpServerRequest): Effect.Effect<Request, Error.RequestError> =>",
    "  Effect.flatMap(Effect.runtime<never>(), (runtime) => toWebEither(self, { runtime }))",
    ""] + _doc("conversions") + [
    "export const toURL: (self: HttpServerRequest) => Option.Option<URL> = internal.toURL"]

CJS_FILE = ["\"use strict\";", "var internal = require(\"./internal/httpServerRequest.js\");"] + _doc("schema") + [
    "const schemaBodyMultipart = exports.schemaBodyMultipart = internal.schemaBodyMultipart;"] + _doc("schema") + [
    "const schemaBodyFormJson = exports.schemaBodyFormJson = internal.schemaBodyFormJson;"] + _doc("conversions") + [
    "const fromWeb = exports.fromWeb = internal.fromWeb;"] + _doc("conversions") + [
    "const toURL = exports.toURL = internal.toURL;",
    "//# sourceMappingURL=HttpServerRequest.js.map"]
CJS_NEW = [
    "const toWebEither = (self, options) => {",
    "  if (self.source instanceof Request) {",
    "    return Either.right(self.source);",
    "  }",
    "  const ourl = toURL(self);",
    "  if (Option.isNone(ourl)) {",
    "    return Either.left(new Error.RequestError({ request: self, reason: \"Decode\" }));",
    "  }",
    "  const requestInit = { method: self.method, headers: self.headers };",
    "  return Either.right(new Request(ourl.value, requestInit));",
    "};"] + _doc("conversions") + [
    "exports.toWebEither = toWebEither;",
    "const toWeb = (self, options) => Effect.flatMap(Effect.runtime(), runtime => toWebEither(self, { runtime }));",
    ] + _doc("conversions") + [
    "exports.toWeb = toWeb;",
    "const toURL = exports.toURL = internal.toURL;",
    "//# sourceMappingURL=HttpServerRequest.js.map"]


# per language: the file, the snippet's new lines, the line of `fromWeb`, the lines kept after it
CASES = {
    "typescript": (TS_FILE, TS_NEW, "export const fromWeb: (request: Request) => HttpServerRequest = internal.fromWeb",
                   2),
    "javascript": (CJS_FILE, CJS_NEW, "const fromWeb = exports.fromWeb = internal.fromWeb;", 1),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_an_exported_binding_before_the_new_functions_stays(lang):
    """ESM's `export const` (TypeScript) and CommonJS's `const fromWeb = exports.fromWeb = ...`."""
    original, new, fromweb, after = CASES[lang]
    snippet = ["// ... existing code ..."] + _doc("conversions")[1:] + new
    r = merge("\n".join(original) + "\n", "\n".join(snippet) + "\n", lang)
    assert r.ok, r.reason
    at = original.index(fromweb)
    assert r.text == "\n".join(original[:at + after] + _doc("conversions") + new) + "\n"
    assert not r.deletions


def test_an_exported_constant_omitted_between_shown_ones_is_deleted():
    """Deletion by omission stays: `fromWeb` left out between the bindings around it, shown whole, is
    deleted and reported."""
    fromweb = TS_FILE.index("export const fromWeb: (request: Request) => HttpServerRequest = internal.fromWeb")
    shown = TS_FILE[fromweb - 6:fromweb - 4] + TS_FILE[fromweb + 2:]      # (its doc comment, itself, a blank)
    r = merge("\n".join(TS_FILE) + "\n", "\n".join(["// ... existing code ..."] + shown) + "\n", "typescript")
    assert r.ok, r.reason
    assert r.text == "\n".join(TS_FILE[:fromweb - 4] + TS_FILE[fromweb + 2:]) + "\n"
    assert len(r.deletions) == 1
