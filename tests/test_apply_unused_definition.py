"""Issue 43: a definition deleted together with its every use.  The shape, from a real release
(ethers' providers/network.ts): the snippet starts at the closing lines of one function (`}`,
`});`, `}`: a weak edge, found all over the file), skips the helper after it without a marker, and
rewrites the one call of that helper further on.  Deleted by omission, as the snippet shows.

The merge refused it ("would delete `getFeePlugin` ..., which the snippet does not show"), as it
must when a lazy model merely forgot a marker.  Now a refused snippet is read once more, letting a
region drop definitions the snippet never shows that the file uses outside that region; the
reading stands only when the result uses none of them any more.  When the call survives (under a
marker) the refusal stands.  The deletion is reported with the definition it removes.  (Python's
helper here ends unlike the previous function, so its edge is not weak: merged before, too.)"""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (the file, the snippet, the helper's name, the call's old and new lines)
CASES = {
    "go": (
        'package networks\n'
        '\n'
        'func gasStation(url string) FeePlugin {\n'
        '\treturn NewFeePlugin(url, func(fetch Fetch) Fee {\n'
        '\t\tdata, err := fetch()\n'
        '\t\tif err == nil {\n'
        '\t\t\treturn data\n'
        '\t\t}\n'
        '\t})\n'
        '}\n'
        '\n'
        '// Used by one network for a custom fee\n'
        'func getFeePlugin(maxFee int) FeePlugin {\n'
        '\treturn NewFeePlugin("data:", func(fetch Fetch) Fee {\n'
        '\t\tfee, _ := fetch()\n'
        '\t\tif fee.MaxFee == 0 {\n'
        '\t\t\treturn fee\n'
        '\t\t}\n'
        '\t\treturn data\n'
        '\t})\n'
        '}\n'
        '\n'
        '// See: the list of networks\n'
        'func injectCommonNetworks() {\n'
        '\tregister("mainnet", 1, []FeePlugin{gasStation("a")})\n'
        '\tregister("goerli", 5, nil)\n'
        '\tregister("optimism", 10, []FeePlugin{\n'
        '\t\tgetFeePlugin(1000),\n'
        '\t})\n'
        '\tregister("polygon", 137, nil)\n'
        '}\n',
        '// ... existing code ...\n'
        '\t\t}\n'
        '\t})\n'
        '}\n'
        '\n'
        '// See: the list of networks\n'
        'func injectCommonNetworks() {\n'
        '\t// ... existing code ...\n'
        '\tregister("goerli", 5, nil)\n'
        '\tregister("optimism", 10, nil)\n'
        '\tregister("polygon", 137, nil)\n'
        '}\n',
        'getFeePlugin',
        '\tregister("optimism", 10, []FeePlugin{\n'
        '\t\tgetFeePlugin(1000),\n'
        '\t})\n',
        '\tregister("optimism", 10, nil)\n'),
    "javascript": (
        'import { plugin } from "./plugin";\n'
        '\n'
        'function gasStation(url) {\n'
        '    return new FeePlugin(url, async (fetchFeeData) => {\n'
        '        try {\n'
        '            const data = await fetchFeeData();\n'
        '            return data;\n'
        '        } catch (error) {\n'
        '            assert(false, "bad station");\n'
        '        }\n'
        '    });\n'
        '}\n'
        '\n'
        '// Used by one network for a custom fee\n'
        'function getFeePlugin(maxFee) {\n'
        '    return new FeePlugin("data:", async (fetchFeeData) => {\n'
        '        const feeData = await fetchFeeData();\n'
        '        if (feeData.maxFee == null) {\n'
        '            return feeData;\n'
        '        }\n'
        '        return {\n'
        '            maxFee: feeData.maxFee + maxFee,\n'
        '        };\n'
        '    });\n'
        '}\n'
        '\n'
        '// See: the list of networks\n'
        'let injected = false;\n'
        'function injectCommonNetworks() {\n'
        '    if (injected) { return; }\n'
        '    injected = true;\n'
        '    register("mainnet", 1, { plugins: [ gasStation("a") ] });\n'
        '    register("goerli", 5, { });\n'
        '    register("optimism", 10, {\n'
        '        plugins: [\n'
        '            getFeePlugin(1000)\n'
        '        ]\n'
        '    });\n'
        '    register("polygon", 137, { });\n'
        '}\n',
        '// ... existing code ...\n'
        '        }\n'
        '    });\n'
        '}\n'
        '\n'
        '// See: the list of networks\n'
        'let injected = false;\n'
        'function injectCommonNetworks() {\n'
        '    // ... existing code ...\n'
        '    register("goerli", 5, { });\n'
        '    register("optimism", 10, {\n'
        '        plugins: [ ]\n'
        '    });\n'
        '    register("polygon", 137, { });\n'
        '}\n',
        'getFeePlugin',
        '    register("optimism", 10, {\n'
        '        plugins: [\n'
        '            getFeePlugin(1000)\n'
        '        ]\n'
        '    });\n',
        '    register("optimism", 10, {\n'
        '        plugins: [ ]\n'
        '    });\n'),
    "python": (
        'import sys\n'
        '\n'
        '\n'
        'def gas_station(url):\n'
        '    def fee(fetch):\n'
        '        try:\n'
        '            return fetch()\n'
        '        except Exception:\n'
        '            raise\n'
        '    return fee\n'
        '\n'
        '\n'
        '# Used by one network for a custom fee\n'
        'def get_fee_plugin(max_fee):\n'
        '    def fee(fetch):\n'
        '        data = fetch()\n'
        '        if data.max_fee is None:\n'
        '            raise\n'
        '    return lambda fetch: fee(fetch)\n'
        '\n'
        '\n'
        '# See: the list of networks\n'
        'def inject_common_networks():\n'
        '    register("mainnet", 1, [gas_station("a")])\n'
        '    register("goerli", 5, [])\n'
        '    register("optimism", 10, [\n'
        '        get_fee_plugin(1000),\n'
        '    ])\n'
        '    register("polygon", 137, [])\n',
        '# ... existing code ...\n'
        '            raise\n'
        '    return fee\n'
        '\n'
        '\n'
        '# See: the list of networks\n'
        'def inject_common_networks():\n'
        '    # ... existing code ...\n'
        '    register("goerli", 5, [])\n'
        '    register("optimism", 10, [])\n'
        '    register("polygon", 137, [])\n',
        'get_fee_plugin',
        '    register("optimism", 10, [\n'
        '        get_fee_plugin(1000),\n'
        '    ])\n',
        '    register("optimism", 10, [])\n'),
    "rust": (
        'use crate::fee::{Fee, FeePlugin};\n'
        '\n'
        'fn gas_station(url: &str) -> FeePlugin {\n'
        '    FeePlugin::new(url, |fetch| {\n'
        '        match fetch() {\n'
        '            Ok(data) => data,\n'
        '            Err(_) => panic!("bad station"),\n'
        '        }\n'
        '    })\n'
        '}\n'
        '\n'
        '// Used by one network for a custom fee\n'
        'fn get_fee_plugin(max_fee: u64) -> FeePlugin {\n'
        '    FeePlugin::new("data:", move |fetch| {\n'
        '        let fee = fetch().unwrap();\n'
        '        if fee.max_fee == 0 {\n'
        '            return fee;\n'
        '        }\n'
        '        Fee { max_fee: fee.max_fee + max_fee }\n'
        '    })\n'
        '}\n'
        '\n'
        '// See: the list of networks\n'
        'fn inject_common_networks(injected: &mut bool) {\n'
        '    if *injected { return; }\n'
        '    *injected = true;\n'
        '    register("mainnet", 1, vec![gas_station("a")]);\n'
        '    register("goerli", 5, vec![]);\n'
        '    register("optimism", 10, vec![\n'
        '        get_fee_plugin(1000),\n'
        '    ]);\n'
        '    register("polygon", 137, vec![]);\n'
        '}\n',
        '// ... existing code ...\n'
        '        }\n'
        '    })\n'
        '}\n'
        '\n'
        '// See: the list of networks\n'
        'fn inject_common_networks(injected: &mut bool) {\n'
        '    // ... existing code ...\n'
        '    register("goerli", 5, vec![]);\n'
        '    register("optimism", 10, vec![]);\n'
        '    register("polygon", 137, vec![]);\n'
        '}\n',
        'get_fee_plugin',
        '    register("optimism", 10, vec![\n'
        '        get_fee_plugin(1000),\n'
        '    ]);\n',
        '    register("optimism", 10, vec![]);\n'),
}

CASES["typescript"] = (CASES["javascript"][0].replace("function getFeePlugin(maxFee)",
                                                      "function getFeePlugin(maxFee: bigint): FeePlugin")
                       .replace("function gasStation(url)", "function gasStation(url: string): FeePlugin"),
                       *CASES["javascript"][1:])


def _expected(text: str, old: str, new: str) -> str:
    comment = "# Used by" if "# Used by" in text else "// Used by"
    see = "# See:" if "# See:" in text else "// See:"
    head, rest = text.split(comment)
    return (head + rest[rest.index(see):]).replace(old, new)


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_helper_deleted_with_its_only_call_is_deleted_and_named(lang):
    text, snippet, name, old, new = CASES[lang]
    res = merge(text, snippet, lang)
    assert res.ok, res.reason
    assert res.text == _expected(text, old, new)
    assert [d for d in res.deletions if f"`{name}`" in d.summary()], [d.summary() for d in res.deletions]


@pytest.mark.parametrize("lang", sorted(set(CASES) - {"python"}))
def test_a_helper_whose_call_stays_under_a_marker_is_refused(lang):
    text, snippet, name, old, new = CASES[lang]
    marker = snippet.splitlines()[0].strip()
    indent = new[:len(new) - len(new.lstrip())]
    res = merge(text, snippet.replace(new, indent + marker + "\n"), lang)
    assert not res.ok
    assert f"`{name}`" in res.reason


@pytest.mark.parametrize("lang", sorted(set(CASES) - {"python"}))
def test_keep_unmarked_reads_it_once(lang):
    """`--keep-unmarked` deletes nothing by omission: no second reading, the refusal stands."""
    text, snippet, name, old, new = CASES[lang]
    res = merge(text, snippet, lang, delete_unmarked=False)
    assert not res.ok
    assert f"`{name}`" in res.reason
