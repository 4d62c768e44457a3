import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  applyWithConfirmation, confirmation, errorMessage, KEEP_DELETIONS, KEEP_LINES, prepareApply, resultMessage,
  SERVER_APPLY_EDIT, type Confirmation, type ExecuteCommandParams,
} from '../../src/applyEdit';

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

test("the snippet's lines the grammar cannot read make the summary a warning that names them", () => {
  const w = 'line 12 does not parse (typescript grammar); merged as the snippet wrote it';
  assert.deepEqual(resultMessage({ applied: true, hunks: 1, linesAdded: 3, linesRemoved: 1, warnings: [w] }), {
    level: 'warning',
    text: `redraft: applied the snippet: 1 change, +3 -1 lines. Warning: ${w}.`,
  });
  assert.equal(resultMessage({ applied: true, hunks: 1, linesAdded: 1, linesRemoved: 1, warnings: [3] }).level, 'info');
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

const DELETION = {
  start: 17, end: 19, lines: 3, why: "no marker after the snippet's last line", definitions: ['class `Old` (lines 17-19)'],
  summary: "deleted 3 lines at 17-19 (no marker after the snippet's last line); removed class `Old` (lines 17-19)",
};
const NEEDS = { applied: false, needsConfirmation: true, version: 12, hunks: 2, linesAdded: 1, linesRemoved: 4, deletions: [DELETION] };
const APPLIED = { applied: true, version: 12, hunks: 2, linesAdded: 1, linesRemoved: 4, deletions: [DELETION] };
const KEPT = { applied: true, version: 12, hunks: 1, linesAdded: 1, linesRemoved: 1, deletions: [] };

/** A fake server (answers by the arguments) and a user who picks `choice`; records both sides. */
function harness(choice: string | undefined, first: unknown = NEEDS) {
  const sent: ExecuteCommandParams['arguments'][0][] = [];
  const asked: Confirmation[] = [];
  const deps = {
    send: async (p: ExecuteCommandParams) => {
      const a = p.arguments[0];
      sent.push(a);
      return a.confirmDeletions ? first : a.deleteUnmarked === false ? KEPT : APPLIED;
    },
    confirm: async (q: Confirmation) => { asked.push(q); return choice; },
  };
  const prepared = prepareApply(doc, '# ... existing code ...\nx = 2\n', LANGUAGES, true);
  assert.ok(prepared.ok);
  return { sent, asked, deps, params: prepared.params };
}

test('deletions are shown before anything changes: the lines, where, why and the definitions removed', () => {
  const q = confirmation(NEEDS);
  assert.equal(q.message, 'redraft: the snippet deletes 3 lines it does not show, removing class `Old` (lines 17-19). Apply it?');
  assert.ok(q.detail.startsWith(DELETION.summary + '\n'));
  assert.deepEqual(q.choices, [KEEP_DELETIONS, KEEP_LINES]);
});

test('apply and delete: the request is sent again without confirmDeletions; the message names the deletion', async () => {
  const h = harness(KEEP_DELETIONS);
  const { message, result } = await applyWithConfirmation(h.params, h.deps);
  assert.deepEqual(h.sent.map((a) => [a.confirmDeletions, a.deleteUnmarked, a.version]), [[true, undefined, 12], [false, undefined, 12]]);
  assert.equal(h.asked.length, 1);
  assert.deepEqual(result, APPLIED);
  assert.equal(message.text, `redraft: applied the snippet: 2 changes, +1 -4 lines. ${DELETION.summary}.`);
});

test('keep those lines: sent again with deleteUnmarked false', async () => {
  const h = harness(KEEP_LINES);
  const { message } = await applyWithConfirmation(h.params, h.deps);
  assert.deepEqual(h.sent.map((a) => [a.confirmDeletions, a.deleteUnmarked]), [[true, undefined], [false, false]]);
  assert.equal(message.text, 'redraft: applied the snippet: 1 change, +1 -1 lines.');
});

test('cancel: nothing more is sent and nothing is applied', async () => {
  const h = harness(undefined);
  const { message } = await applyWithConfirmation(h.params, h.deps);
  assert.equal(h.sent.length, 1);
  assert.deepEqual(message, { level: 'info', text: 'redraft: cancelled; the snippet was not applied.' });
});

test('without deletions the first answer is the result: no question', async () => {
  const h = harness(KEEP_DELETIONS, KEPT);
  const { message } = await applyWithConfirmation(h.params, h.deps);
  assert.equal(h.sent.length, 1);
  assert.equal(h.asked.length, 0);
  assert.equal(message.text, 'redraft: applied the snippet: 1 change, +1 -1 lines.');
  const refused = { ...h.deps, send: async () => { throw new Error('cannot apply the snippet: x'); } };
  assert.deepEqual((await applyWithConfirmation(h.params, refused)).message,
    { level: 'error', text: 'redraft: cannot apply the snippet: x' });
  assert.match(resultMessage(NEEDS).text, /not applied: it deletes lines it does not show: deleted 3 lines at 17-19/);
});
