"""Issue 43: a fragment whose first line after a marker has no words (`/**`, `},`) and then adds a
member like the one before it.  The shape, from a real release (runloop's network-policies.ts): a
marker inside an interface, a blank line, `/**`, a new field with its comment, then the next field's
comment and a marker.

Both the `/**` of the field before and the nearer `/**` fit.  The farther place rewrites the field
before into the new one, alike to it, so the merge refused such a tie (places.weak_tie).  When that
rewrite would delete a member whose name the snippet's code never shows (`allow_mcp_gateway`), it is
not a rewrite of it: the nearer place, which deletes nothing, is taken.  A new member that keeps the
old one's name may be its rewrite: still refused, both places named.  In the five languages (a
member's line: `name?: T;`, `name: value,`, `name: T,`, `"name": value,`, `Name: value,`)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

CASES = {
    "typescript": ('''import { APIResource } from '../resource';

export interface PolicyCreateParams {
  /**
   * The policy's name.
   */
  name: string;

  /**
   * (Optional) If true, allows egress to the MCP gateway.
   * Defaults to false.
   */
  allow_mcp_gateway?: boolean | null;

  /**
   * (Optional) DNS-based allow list with wildcard support.
   */
  allowed_hostnames?: Array<string> | null;
}
''', '''// ... existing code ...
export interface PolicyCreateParams {
  // ... existing code ...

  /**
   * (Optional) If true, allows egress to the package registry mirrors.
   * Defaults to false.
   */
  allow_registry_mirrors?: boolean | null;

  /**
   * (Optional) DNS-based allow list with wildcard support.
  // ... existing code ...
}
''', "allow_registry_mirrors?: boolean | null;", "allow_mcp_gateway?: boolean;"),
    "javascript": ('''export const defaults = {
  /**
   * The policy's name.
   */
  name: 'default',

  /**
   * Whether to allow egress to the MCP gateway.
   */
  allowMcpGateway: false,

  /**
   * DNS-based allow list with wildcard support.
   */
  allowedHostnames: [],
};
''', '''export const defaults = {
  // ... existing code ...

  /**
   * Whether to allow egress to the package registry mirrors.
   */
  allowRegistryMirrors: false,

  /**
   * DNS-based allow list with wildcard support.
  // ... existing code ...
};
''', "allowRegistryMirrors: false,", "allowMcpGateway: null,"),
    "rust": ('''pub enum Event {
    Started {
        id: u64,
    },
    Gateway {
        allow_gateway: bool,
    },
    Hostnames {
        allowed_hostnames: Vec<String>,
    },
}
''', '''pub enum Event {
    // ... existing code ...
    },
    Mirrors {
        allow_mirrors: bool,
    },
    Hostnames {
        // ... existing code ...
    },
}
''', "allow_mirrors: bool,", "allow_gateway: Option<bool>,"),
    "python": ('''POLICIES = {
    "started": {
        "id": 0,
    },
    "gateway": {
        "allow_gateway": True,
    },
    "hosts": {
        "allowed_hostnames": ["github.com"],
    },
}
''', '''# ... existing code ...
    },
    "mirrors": {
        "allow_mirrors": True,
    },
    "hosts": {
        # ... existing code ...
    },
}
''', '"allow_mirrors": True,', '"allow_gateway": None,'),
    "go": ('''package policy

var policies = map[string]Policy{
	"started": {
		ID: 0,
	},
	"gateway": {
		AllowGateway: true,
	},
	"hosts": {
		AllowedHostnames: []string{"github.com"},
	},
}
''', '''// ... existing code ...
	},
	"mirrors": {
		AllowMirrors: true,
	},
	"hosts": {
		// ... existing code ...
	},
}
''', "AllowMirrors: true,", "AllowGateway: false,"),
}


# per language: the next member's first lines (once in the file) and the new member written before them
TRUTH = {
    "typescript": ("  /**\n   * (Optional) DNS-based", "  /**\n   * (Optional) If true, allows egress to the package "
                   "registry mirrors.\n   * Defaults to false.\n   */\n  allow_registry_mirrors?: boolean | null;\n\n"),
    "javascript": ("  /**\n   * DNS-based", "  /**\n   * Whether to allow egress to the package registry mirrors.\n"
                   "   */\n  allowRegistryMirrors: false,\n\n"),
    "rust": ("    Hostnames {", "    Mirrors {\n        allow_mirrors: bool,\n    },\n"),
    "python": ('    "hosts": {', '    "mirrors": {\n        "allow_mirrors": True,\n    },\n'),
    "go": ('\t"hosts": {', '\t"mirrors": {\n\t\tAllowMirrors: true,\n\t},\n'),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_new_member_after_a_weak_line_is_added_when_the_rewrite_deletes_an_unshown_name(lang):
    orig, snippet, new, _ = CASES[lang]
    result = merge(orig, snippet, lang)
    assert result.ok, result.reason
    nxt, member = TRUTH[lang]
    assert orig.count(nxt) == 1
    assert result.text == orig.replace(nxt, member + nxt)
    assert not result.deletions
    assert orig.count("\n") < result.text.count("\n")


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_new_member_keeping_the_old_name_is_still_a_tie(lang):
    orig, snippet, new, same_name = CASES[lang]
    result = merge(orig, snippet.replace(new, same_name), lang)
    assert not result.ok
    assert "(adding lines)" in result.reason and "(rewriting the lines between)" in result.reason
