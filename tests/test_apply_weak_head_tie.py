"""Issue 43: a fragment that starts with a line without words (`};`, `}`) after a marker, then adds
a block like the one before it.  The shape, from a real release (tantivy's schemabuilder.rs): the
function's parameters with a new `fast`, a marker, `};`, a new `let options = if fast {...}` block,
and the function's `Ok(options)` and `}`.

The `};` closing the `let options = if stored {...}` block and the earlier one closing the `match`
both fit.  The earlier place scored better because it would rewrite the `if stored` block into the
new, alike one, so that block, which the marker may stand for, was deleted (8 lost lines,
silently).  Taking the nearer place instead broke as many real rewrites as it fixed additions
(redux-toolkit's dev.cjs, svgo's coa.js), so the merge refuses such a tie, naming both places: a
place that drops lines and wins only for rewriting them with alike ones, against a nearer place of
the weak line that drops nothing and scores as well without that credit (places.weak_tie).
With a line with words above the weak one, the snippet merges.  (On c1d4d77 Rust and Go deleted
the block; their twins merged as now.)"""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (file, snippet, a line with words to show above the weak one) per language
LANGS = {
    "rust": ('''impl SchemaBuilder {
    fn build_text_option(
        stored: bool,
        tokenizer_name: &str,
        index_option: &str,
    ) -> PyResult<TextOptions> {
        let index_option = match index_option {
            "position" => IndexRecordOption::WithFreqsAndPositions,
            "freq" => IndexRecordOption::WithFreqs,
            _ => return Err(invalid_option()),
        };

        let indexing = TextFieldIndexing::default()
            .set_tokenizer(tokenizer_name)
            .set_index_option(index_option);

        let options = TextOptions::default().set_indexing_options(indexing);
        let options = if stored {
            options.set_stored()
        } else {
            options
        };

        Ok(options)
    }
}
''', '''    fn build_text_option(
        stored: bool,
        fast: bool,
        tokenizer_name: &str,
        index_option: &str,
    // ... existing code ...
        };

        let options = if fast {
            let text_tokenizer = if tokenizer_name != NO_TOKENIZER_NAME {
                Some(tokenizer_name)
            } else {
                None
            };
            options.set_fast(text_tokenizer)
        } else {
            options
        };

        Ok(options)
    }
    // ... existing code ...
''', '            options'),
    "go": ('''package schema

func (b *SchemaBuilder) BuildTextOption(
	stored bool,
	tokenizerName string,
	indexOption string,
) (TextOptions, error) {
	option, ok := indexOptions[indexOption]
	if !ok {
		return TextOptions{}, errInvalid
	}

	indexing := NewTextFieldIndexing().
		SetTokenizer(tokenizerName).
		SetIndexOption(option)

	options := NewTextOptions().SetIndexingOptions(indexing)
	if stored {
		options = options.SetStored()
	} else {
		options = options.SetIndexed()
	}

	return options, nil
}
''', '''func (b *SchemaBuilder) BuildTextOption(
	stored bool,
	fast bool,
	tokenizerName string,
	indexOption string,
	// ... existing code ...
	}

	if fast {
		textTokenizer := tokenizerName
		options = options.SetFast(textTokenizer)
	} else {
		options = options.SetIndexed()
	}

	return options, nil
}
''', '\t\toptions = options.SetIndexed()'),
}


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_weak_first_line_that_adds_or_rewrites_is_refused(lang):
    original, snippet, _ = LANGS[lang]
    r = merge(original, snippet, lang)
    assert not r.ok
    assert "fits at line" in r.reason and "show a line with words above it" in r.reason


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_with_a_line_with_words_above_it_the_block_is_added(lang):
    original, snippet, words = LANGS[lang]
    marker = next(l for l in snippet.splitlines() if "... existing code ..." in l)
    snippet = snippet.replace(marker + "\n", marker + "\n" + words + "\n", 1)
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    orig, snip = original.splitlines(), snippet.splitlines()
    added = snip[snip.index("") + 1:snip.index(next(l for l in snip if l.strip().startswith(("Ok(", "return "))))]
    at = next(i for i, l in enumerate(orig) if l.strip().startswith(("Ok(", "return options")))
    param = next(l for l in snip if l.strip().startswith("fast"))
    stored = next(i for i, l in enumerate(orig) if l.strip().startswith("stored"))
    want = orig[:stored + 1] + [param] + orig[stored + 1:at] + added + orig[at:]
    assert r.text == "\n".join(want) + "\n"
