"""Issue 43: a method shown without its class, given a docstring (or a JSDoc comment) written like
another class's method's, is not taken for that one when its code is another's.  The shape, from a
real release (smolagents' remote_executors.py, fresh26): `ModalExecutor.run_code_raise_errors`, its
call given a new argument and a docstring copied from `BlaxelExecutor`'s with "Modal" for "Blaxel";
token by token, docstring included, it was likest to the Blaxel one, whose code is another (headers
built from settings), and the merge rewrote that one (6 lost lines, silently).  The pick by all the
tokens stands only when the candidate is also likest by its code alone (candidates._by_code); else the
merge refuses, naming the classes.  In Python and TypeScript."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

CASES = {
    "python": ('''class ModalExecutor(RemoteExecutor):
    def run_code_raise_errors(self, code: str) -> CodeOutput:
        from websocket import create_connection

        with closing(create_connection(self.ws_url)) as ws:
            return run_over_websocket(code, ws, self.logger)
''', '''class BlaxelExecutor(RemoteExecutor):
    def run_code_raise_errors(self, code: str) -> CodeOutput:
        """
        Execute Python code in the Blaxel sandbox and return the result.

        Args:
            code (`str`): Python code to execute.

        Returns:
            `CodeOutput`: Code output containing the result, logs, and whether it is the final answer.
        """
        from blaxel.core import settings
        from websocket import create_connection

        headers = [f"{key}: {value}" for key, value in settings.headers.items()]
        with closing(create_connection(self.ws_url, header=headers)) as ws:
            return run_over_websocket(code, ws, self.logger)
''', '''    def run_code_raise_errors(self, code: str) -> CodeOutput:
        """
        Execute Python code in the Modal sandbox and return the result.

        Args:
            code (`str`): Python code to execute.

        Returns:
            `CodeOutput`: Code output containing the result, logs, and whether it is the final answer.
        """
        from websocket import create_connection

        with closing(create_connection(self.ws_url)) as ws:
            return run_over_websocket(code, ws, self.logger, self.allow_pickle)
''', "\n\n"),
    "typescript": ('''export class ModalExecutor extends RemoteExecutor {
  async runCodeRaiseErrors(code: string): Promise<CodeOutput> {
    const ws = await createConnection(this.wsUrl);
    return runOverWebsocket(code, ws, this.logger);
  }
}
''', '''export class BlaxelExecutor extends RemoteExecutor {
  /**
   * Execute code in the Blaxel sandbox and return the result.
   *
   * @param code - The code to execute.
   * @returns The code output: its result, its logs, and whether it is the final answer.
   */
  async runCodeRaiseErrors(code: string): Promise<CodeOutput> {
    const headers = Object.entries(settings.headers).map(([key, value]) => `${key}: ${value}`);
    const ws = await createConnection(this.wsUrl, { headers });
    return runOverWebsocket(code, ws, this.logger);
  }
}
''', '''  /**
   * Execute code in the Modal sandbox and return the result.
   *
   * @param code - The code to execute.
   * @returns The code output: its result, its logs, and whether it is the final answer.
   */
  async runCodeRaiseErrors(code: string): Promise<CodeOutput> {
    const ws = await createConnection(this.wsUrl);
    return runOverWebsocket(code, ws, this.logger, this.allowPickle);
  }
''', "\n"),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_docstring_like_another_methods_does_not_pick_that_method(lang):
    modal, blaxel, new, gap = CASES[lang]
    result = merge(modal + gap + blaxel, new, lang)
    assert not result.ok
    assert "matches more than one place" in result.reason and "BlaxelExecutor" in result.reason


@pytest.mark.parametrize("lang", sorted(CASES))
def test_without_the_docstring_the_method_of_that_code_is_rewritten(lang):
    """The same snippet without its docstring: likest to the Modal one by all its tokens and by its
    code, which is rewritten."""
    modal, blaxel, new, gap = CASES[lang]
    lines = new.splitlines(keepends=True)
    start = next(i for i, l in enumerate(lines) if "def " in l or "async " in l)
    if lang == "python":
        code = lines[:start + 1] + lines[next(i for i, l in enumerate(lines) if "from websocket" in l):]
    else:
        code = lines[start:]
    result = merge(modal + gap + blaxel, "".join(code), lang)
    assert result.ok, result.reason
    header, close = modal.splitlines(keepends=True)[0], "}\n" if lang == "typescript" else ""
    assert result.text == header + "".join(code) + close + gap + blaxel
