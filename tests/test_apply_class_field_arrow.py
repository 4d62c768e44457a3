"""Issue 43: methods written as class fields (`emit: EmitFn = (event) => {`) are definitions.  The
shape, from a real release (@tanstack/router-core's router.ts): a snippet ends a method with `}`,
then rewrites `cancelMatches = () => {...}`, then a marker.  Its first and last lines are braces and
its body is new, so a short region far before the real one (the end of `subscribe`, then `emit`)
scored best, and the merge replaced `emit` with the new `cancelMatches`: `emit` was lost silently
and the file had two `cancelMatches`, because a class field's arrow function was not read as a
definition (regions.arrow_name knew `const f = () =>` only).

Now it is: deleting `emit`, which the snippet does not show, is refused with its name, and a
region that leaves the file's own `cancelMatches` beside the new one gives way to one that takes
it in (anchors' check for a definition brought twice reads them with regions.definition_name).
JavaScript and TypeScript only: the other languages have no class fields holding functions.  (On
9fe1149 both languages replaced `emit`.)"""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

HEAD = '''export class Router {
  subscribe = (fn) => {
    this.subscribers.add(fn)
    return () => {
      this.subscribers.delete(fn)
    }
  }

  emit = (event) => {
    this.subscribers.forEach((listener) => {
      if (listener.type === event.type) {
        listener.fn(event)
      }
    })
  }

  load = async (opts) => {
    const location = this.parseLocation(opts)
    await this.loadMatches(location)
    return location
  }

'''
# many small fields between: the region from `subscribe`'s end to `cancelMatches` is too long to be one
FILLER = "".join(f"  step{i} = (state) => {{\n    state.count += {i}\n    return state\n  }}\n\n" for i in range(60))
TAIL = '''  cancelMatch = (id) => {
    const match = this.getMatch(id)
    match.abortController.abort()
  }

  cancelMatches = () => {
    const currentPendingMatches = this.state.matches.filter(
      (match) => match.status === 'pending',
    )
    const currentLoadingMatches = this.state.matches.filter(
      (match) => match.isFetching === 'loader',
    )
    const matchesToCancel = new Set([
      ...(this.state.pendingMatches ?? []),
      ...currentPendingMatches,
      ...currentLoadingMatches,
    ])
    matchesToCancel.forEach((match) => {
      this.cancelMatch(match.id)
    })
  }

  buildLocation = (opts) => {
    return opts
  }
}
'''
NEW = '''  cancelMatches = () => {
    this.stores.pendingIds.get().forEach((matchId) => {
      this.cancelMatch(matchId)
    })

    this.stores.matchesId.get().forEach((matchId) => {
      if (this.stores.pendingMatchStores.has(matchId)) {
        return
      }

      const match = this.stores.matchStores.get(matchId)?.get()
      if (!match) {
        return
      }

      if (match.status === 'pending' || match.isFetching === 'loader') {
        this.cancelMatch(matchId)
      }
    })
  }
'''
TYPED = {"emit = (event) => {": "emit: EmitFn = (event) => {",
         "load = async (opts) => {": "load: LoadFn = async (opts) => {",
         "cancelMatches = () => {": "cancelMatches: CancelFn = () => {"}


def _case(lang: str) -> tuple[str, str]:
    original, new = HEAD + FILLER + TAIL, NEW
    if lang == "typescript":
        for old, typed in TYPED.items():
            original, new = original.replace(old, typed), new.replace(old, typed)
    return original, new


@pytest.mark.parametrize("lang", ["javascript", "typescript"])
def test_braces_around_a_rewritten_field_do_not_replace_another_field(lang):
    original, new = _case(lang)
    r = merge(original, "// ... existing code ...\n  }\n\n" + new + "\n  // ... existing code ...\n", lang)
    assert not r.ok
    assert "would delete `emit`" in r.reason


@pytest.mark.parametrize("lang", ["javascript", "typescript"])
def test_shown_after_the_method_before_it_the_field_is_rewritten(lang):
    """With the method before it shown, the rewritten field replaces the file's own."""
    original, new = _case(lang)
    before = TAIL[:TAIL.index("  cancelMatches")]
    r = merge(original, "// ... existing code ...\n" + before + new + "\n  // ... existing code ...\n", lang)
    assert r.ok, r.reason
    a, b = original.index(before) + len(before), original.index("  buildLocation")
    assert r.text == original[:a] + new + "\n" + original[b:]
    assert "emit" in r.text and r.text.count("cancelMatches") == 1
