import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorMessage, prepareApply, resultMessage, SERVER_APPLY_EDIT } from '../../src/applyEdit';

const LANGUAGES = ['python', 'rust'];
const doc = { uri: 'file:///work/app.py', version: 12, languageId: 'python' };

test('the request carries the uri, the version VS Code knows and the clipboard verbatim', () => {
  const snippet = '# ... existing code ...\r\ndef f():\n    return "🙂"\n';
  assert.deepEqual(prepareApply(doc, snippet, LANGUAGES, true), {
    ok: true,
    params: { command: SERVER_APPLY_EDIT, arguments: [{ uri: 'file:///work/app.py', snippet, version: 12 }] },
  });
  assert.equal(SERVER_APPLY_EDIT, 'redraft.applyEdit');
});

test('nothing is sent without an editor, for another language, without a server, or with an empty clipboard', () => {
  const cases: [Parameters<typeof prepareApply>, RegExp][] = [
    [[undefined, 'x = 1', LANGUAGES, true], /no active editor/],
    [[{ ...doc, languageId: 'markdown' }, 'x = 1', LANGUAGES, true], /markdown file.*python, rust/],
    [[doc, 'x = 1', LANGUAGES, false], /not running/],
    [[doc, '', LANGUAGES, true], /clipboard is empty/],
    [[doc, ' \n\t\n', LANGUAGES, true], /clipboard is empty/],
    [[doc, undefined, LANGUAGES, true], /clipboard is empty/],
  ];
  for (const [args, expected] of cases) {
    const prepared = prepareApply(...args);
    assert.equal(prepared.ok, false);
    if (!prepared.ok) {
      assert.match(prepared.message, expected);
      assert.ok(prepared.message.startsWith('redraft: ') && !prepared.message.includes('\n'));
    }
  }
});

test('a summary of an applied edit is an info message with the counts', () => {
  assert.deepEqual(resultMessage({ applied: true, version: 3, hunks: 2, linesAdded: 5, linesRemoved: 1 }), {
    level: 'info',
    text: 'redraft: applied the snippet: 2 changes, +5 -1 lines.',
  });
  assert.equal(resultMessage({ applied: true, hunks: 1, linesAdded: 1, linesRemoved: 1 }).text,
    'redraft: applied the snippet: 1 change, +1 -1 lines.');
  assert.deepEqual(resultMessage({ applied: true, version: 3, hunks: 0, linesAdded: 0, linesRemoved: 0 }), {
    level: 'info',
    text: 'redraft: the snippet changes nothing in this file.',
  });
});

test('an edit the editor did not apply is an error, with its reason when there is one', () => {
  assert.deepEqual(resultMessage({ applied: false, hunks: 2, failureReason: 'the user said no' }), {
    level: 'error',
    text: 'redraft: the snippet was not applied: the user said no',
  });
  assert.match(resultMessage({ applied: false, hunks: 2 }).text, /not applied: the editor refused the edit/);
  assert.equal(resultMessage(null).level, 'error');
  assert.equal(resultMessage('nonsense').level, 'error');
});

test("the server's refusal is shown with its reason", () => {
  // vscode-jsonrpc's ResponseError is an Error with the server's message and code
  const refusal = Object.assign(new Error('cannot apply the snippet: fragment `x = 1`: matches more than one place in the file'), { code: -32803 });
  assert.deepEqual(errorMessage(refusal), {
    level: 'error',
    text: 'redraft: cannot apply the snippet: fragment `x = 1`: matches more than one place in the file',
  });
  assert.equal(errorMessage({ code: -32801, message: 'refused as stale: try again' }).text, 'redraft: refused as stale: try again');
  assert.equal(errorMessage('boom').text, 'redraft: boom');
  assert.equal(errorMessage(new Error('')).text, 'redraft: the server gave no reason');
});
