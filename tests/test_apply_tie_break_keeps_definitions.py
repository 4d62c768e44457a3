"""Issue 43: when the best place of a fragment drops a line that binds a name still used after it (here
an `xform:` key, which the next method has too), the merge looks at the other places; it may not take
one that drops a definition the snippet never shows (fresh33's @supabase/auth-js GoTrueAdminApi.js:
`deleteUser`'s new body, ending with the `catch (error) {` / `if (isAuthError(error)) {` lines every
method has, went to a later method's copy of them, deleting `_listFactors` whole: 16 lines lost in
each of two bundles)."""
from __future__ import annotations

from redraft.engine.apply import merge


def _method(name: str, body: str, failed: str) -> str:
    return f"""    async {name}(id) {{
        validate(id);
        try {{
{body}
        }}
        catch (error) {{
            if (isAuthError(error)) {{
                return {{ data: {failed}, error }};
            }}
            throw error;
        }}
    }}
"""


GET = _method("getUser", "            const { data, error } = await request('GET', `/users/${id}`);\n"
                         "            return { data, error };", "{ user: null }")
OLD_BODY = """            return await request('DELETE', `/users/${id}`, {
                xform: userResponse,
            });"""
DELETE = _method("deleteUser", OLD_BODY, "{ user: null }")
FACTORS = _method("listFactors", """            const { data, error } = await request('GET', `/users/${id}/factors`, {
                xform: (factors) => ({ factors }),
            });
            return { data, error };""", "null")
LINKS = _method("listLinks", "            return await request('GET', `/users/${id}/links`);", "null")
FILE = "class Admin {\n" + GET + DELETE + FACTORS + LINKS + "}\n"

NEW_BODY = """            const { data, error } = await this.getUser(id);
            if (error) {
                return { data: { user: null }, error };
            }
            await request('DELETE', `/users/${id}`);
            return { data, error: null };"""

SNIPPET = """// ... existing code ...
    async deleteUser(id) {
        validate(id);
        try {
""" + NEW_BODY + """
        }
        catch (error) {
            if (isAuthError(error)) {
                // ... existing code ...
"""


def test_the_method_is_rewritten_and_the_next_one_kept():
    result = merge(FILE, SNIPPET, "javascript")
    assert result.ok, result.reason
    assert result.text == FILE.replace(OLD_BODY, NEW_BODY)
