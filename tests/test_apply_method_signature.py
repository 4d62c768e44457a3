"""Issue 43: a method shown without its class, in a file where two classes have it, is placed by its
signature when the token-likest one is likest only for its length.  The shape, from a real release
(pyoxigraph's spareval): `PreparedQuery.explain`, a hundred lines, rewritten as three lines that call
a helper, shown without its impl; the deprecated `QueryEvaluator.explain` of another signature (a
`query` parameter, `&self`, another lifetime) was three lines too, so it was likest token by token,
and the merge rewrote it and left the long one (6 lost lines, silently).

The snippet's signature (its lines up to the one that opens the body) is the long one's as it is and
differs from the short one's in more than one line: the long one is rewritten.  One line apart (a
parameter dropped, now the same as the other method's: werkzeug's, httpx's and tomlkit's `__init__`
and `__enter__` with a return type added), the signature may be the edit, and the token-likest one is
still taken.  In Rust, Python and TypeScript."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# per language: the short method (its class's), the long one (the other class's), the file around them
SHORT = {
    "rust": '''    pub fn explain<'a>(
        &self,
        dataset: impl Dataset<'a>,
        query: &Query,
    ) -> (Results<'a>, Explanation) {
        self.explain_with(dataset, query)
    }
''',
    "python": '''    def explain(
        cls,
        dataset: Dataset,
        query: Query,
    ) -> tuple[Results, Explanation]:
        return cls.explain_with(dataset, query)
''',
    "typescript": '''  explain(
    dataset: Dataset,
    query: Query,
    limit: number,
  ): [Results, Explanation] {
    return this.explainWith(dataset, query);
  }
''',
}
LONG = {
    "rust": '''    pub fn explain<'b>(
        self,
        dataset: impl Dataset<'b>,
    ) -> (Results<'b>, Explanation) {
        let start = Timer::now();
        let pattern = self.optimizer.optimize(self.pattern);
        let evaluator = self.evaluator.with_dataset(dataset);
        let (results, plan) = evaluator.evaluate_select(&pattern, self.substitutions);
        let stats = plan.stats(self.evaluator.run_stats);
        (results, Explanation::new(stats, start.elapsed()))
    }
''',
    "python": '''    def explain(
        self,
        dataset: Dataset,
    ) -> tuple[Results, Explanation]:
        start = time.monotonic()
        pattern = self.optimizer.optimize(self.pattern)
        evaluator = self.evaluator.with_dataset(dataset)
        results, plan = evaluator.evaluate_select(pattern, self.substitutions)
        stats = plan.stats(self.evaluator.run_stats)
        return results, Explanation(stats, time.monotonic() - start)
''',
    "typescript": '''  explain(
    dataset: Dataset,
  ): [Results, Explanation] {
    const start = Date.now();
    const pattern = this.optimizer.optimize(this.pattern);
    const evaluator = this.evaluator.withDataset(dataset);
    const [results, plan] = evaluator.evaluateSelect(pattern, this.substitutions);
    const stats = plan.stats(this.evaluator.runStats);
    return [results, new Explanation(stats, Date.now() - start)];
  }
''',
}
FILE = {
    "rust": "impl QueryEvaluator {\n{short}}\n\nimpl PreparedQuery {\n{long}}\n",
    "python": "class QueryEvaluator:\n{short}\n\nclass PreparedQuery:\n{long}",
    "typescript": "export class QueryEvaluator {\n{short}}\n\nexport class PreparedQuery {\n{long}}\n",
}
# the new body, one line, and the number of signature lines (the lines up to the one opening the body)
BODY = {"rust": ("        self.evaluate(dataset, true)\n", 4),
        "python": ("        return self.evaluate(dataset, True)\n", 4),
        "typescript": ("    return this.evaluate(dataset, true);\n", 3)}
CLOSE = {"rust": "    }\n", "python": "", "typescript": "  }\n"}


def _file(lang: str, short: str, long: str) -> str:
    return FILE[lang].replace("{short}", short).replace("{long}", long)


@pytest.mark.parametrize("lang", sorted(FILE))
def test_a_method_whose_signature_is_anothers_is_placed_there_not_at_the_likest(lang):
    body, n = BODY[lang]
    new = "".join(LONG[lang].splitlines(keepends=True)[:n]) + body + CLOSE[lang]
    result = merge(_file(lang, SHORT[lang], LONG[lang]), new, lang)
    assert result.ok, result.reason
    assert result.text == _file(lang, SHORT[lang], new)


@pytest.mark.parametrize("lang", sorted(FILE))
def test_one_signature_line_apart_the_token_likest_is_rewritten(lang):
    """The short method's signature is the long one's with a `query` parameter more; the snippet drops
    that parameter (its signature now the long one's): the short one is meant, the edit its own."""
    body, n = BODY[lang]
    sig = LONG[lang].splitlines(keepends=True)[:n]
    param = sig[-2].replace("dataset", "query").replace("Dataset", "Query")
    short = "".join(sig[:-1] + [param] + sig[-1:]) + body.replace("dataset", "dataset, query") + CLOSE[lang]
    new = "".join(sig) + body + CLOSE[lang]
    result = merge(_file(lang, short, LONG[lang]), new, lang)
    assert result.ok, result.reason
    assert result.text == _file(lang, new, LONG[lang])
