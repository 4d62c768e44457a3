"""Issue 43: a method shown without its class, in a file where two classes have it, when the
snippet is one of them with lines left out.  The shape, from a real release (Flask's
json/provider.py): the base class's `loads` raises NotImplementedError, the subclass's `loads`
decodes; the release deleted the subclass's deprecated branch, so the snippet is the subclass's
method minus those lines.  Token by token the short base method looked more alike (a long method
loses likeness by its length), and the merge rewrote the base class's method.  When the snippet is
another candidate with lines left out (every token of it there in order), that reading is as likely
as the rewrite: the merge refuses with the name.  Twin: when no other candidate holds the whole
snippet, the clearly most alike one is replaced, as before."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

CASES = {
    "python": ('''class Provider:
    def loads(self, s, **kwargs):
        """Deserialize data as JSON."""
        raise NotImplementedError


class DefaultProvider(Provider):
    def loads(self, s, **kwargs):
        """Deserialize data as JSON from a string."""
        cls = self._app.decoder
        bp = self._app.blueprints.get(request.blueprint) if request else None
        if bp is not None and bp.decoder is not None:
            cls = bp.decoder
        if cls is not None:
            warn("Setting 'decoder' on the app or a blueprint is deprecated; customize 'app.json' instead.")
            kwargs.setdefault("cls", cls)
        return json.loads(s, **kwargs)
''', '''    def loads(self, s, **kwargs):
        """Deserialize data as JSON from a string."""
        return json.loads(s, **kwargs)
'''),
    "typescript": ('''class Provider {
  loads(s: string, opts: Options): unknown {
    // Deserialize data as JSON.
    throw new Error("not implemented");
  }
}

class DefaultProvider extends Provider {
  loads(s: string, opts: Options): unknown {
    // Deserialize data as JSON from a string.
    let cls = this.app.decoder;
    const bp = request ? this.app.blueprints.get(request.blueprint) : undefined;
    if (bp !== undefined && bp.decoder !== undefined) {
      cls = bp.decoder;
    }
    if (cls !== undefined) {
      warn("Setting 'decoder' on the app or a blueprint is deprecated; customize 'app.json' instead.");
      opts.reviver = cls;
    }
    return JSON.parse(s, opts.reviver);
  }
}
''', '''  loads(s: string, opts: Options): unknown {
    // Deserialize data as JSON from a string.
    return JSON.parse(s, opts.reviver);
  }
'''),
    "rust": ('''impl Provider {
    fn loads(&self, s: &str, opts: &Options) -> Value {
        // Deserialize data as JSON.
        unimplemented!()
    }
}

impl DefaultProvider {
    fn loads(&self, s: &str, opts: &Options) -> Value {
        // Deserialize data as JSON from a string.
        let mut cls = self.app.decoder();
        let bp = request.and_then(|r| self.app.blueprints.get(&r.blueprint));
        if let Some(d) = bp.and_then(|b| b.decoder()) {
            cls = Some(d);
        }
        if let Some(cls) = cls {
            warn("Setting 'decoder' on the app or a blueprint is deprecated; customize 'app.json' instead.");
            opts.set_reviver(cls);
        }
        serde_json::from_str(s, opts.reviver())
    }
}
''', '''    fn loads(&self, s: &str, opts: &Options) -> Value {
        // Deserialize data as JSON from a string.
        serde_json::from_str(s, opts.reviver())
    }
'''),
}
CASES["javascript"] = tuple(t.replace("s: string, opts: Options): unknown", "s, opts)") for t in CASES["typescript"])
LANGS = ["python", "javascript", "typescript", "rust"]       # Go's methods are named with their receiver


@pytest.mark.parametrize("lang", LANGS)
def test_a_snippet_that_shortens_the_other_method_is_refused(lang):
    src, snippet = CASES[lang]
    r = merge(src, snippet, lang)
    assert not r.ok
    assert "`loads`" in r.reason and "more than one place" in r.reason


@pytest.mark.parametrize("lang", LANGS)
def test_the_clearly_most_alike_method_is_still_replaced(lang):
    src, snippet = CASES[lang]
    base = src[:src.index("}\n\n") if lang != "python" else src.index("\n\n\n")]
    body = base[base.index("loads"):].split("\n")
    shown = base[:base.index("loads")].rsplit("\n", 1)[1] + "\n".join(body[:-1] if lang != "python" else body)
    rewritten = shown.replace("Deserialize data as JSON.", "Deserialize data as JSON (abstract).")
    r = merge(src, rewritten + "\n", lang)
    assert r.ok, r.reason
    assert r.text == src.replace("Deserialize data as JSON.", "Deserialize data as JSON (abstract).")
