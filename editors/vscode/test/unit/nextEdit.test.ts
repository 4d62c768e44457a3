import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  CONTEXT_KEY,
  DISMISS_COMMAND,
  endOfInsert,
  hint,
  InlineAnswers,
  isCurrent,
  JUMP_OR_APPLY_COMMAND,
  NextEditSession,
  parseNextEdit,
  preview,
  REQUEST_COMMAND,
  requestParams,
  skipReason,
  supportsNextEdit,
  type NextEdit,
} from '../../src/nextEditLogic';

const doc = { uri: 'file:///work/app.py', version: 7 };
const pos = (line: number, character: number) => ({ line, character });
const range = (l0: number, c0: number, l1: number, c1: number) => ({ start: pos(l0, c0), end: pos(l1, c1) });
/** An answer as the server sends it (redraft/nextEdit: the edit plus region, confidence, forwardPasses). */
const answer = (edits: unknown[]) => ({ edits, region: null, confidence: 0.4, forwardPasses: 3 });
const serverEdit = (r = range(4, 8, 4, 11), text = 'name', td: unknown = doc) => ({ range: r, text, textDocument: td });
const edit = (r = range(4, 8, 4, 11), text = 'name'): NextEdit => ({ ...doc, range: r, text });

test('the capability is experimental.redraftNextEdit === true', () => {
  assert.ok(supportsNextEdit({ experimental: { redraftNextEdit: true } }));
  for (const caps of [undefined, {}, { experimental: null }, { experimental: { redraftNextEdit: 'yes' } }, { experimental: {} }]) {
    assert.ok(!supportsNextEdit(caps));
  }
});

test('the request names the uri, the version and the cursor', () => {
  assert.deepEqual(requestParams(doc, { line: 3, character: 9, extra: 1 } as never), {
    textDocument: { uri: 'file:///work/app.py', version: 7 },
    position: { line: 3, character: 9 },
  });
});

test('an answer becomes the edit for the document and version asked for', () => {
  assert.deepEqual(parseNextEdit(answer([serverEdit()]), doc), { kind: 'edit', edit: edit() });
  // the textDocument may be missing (Copilot's shape allows it): the request's document is assumed
  assert.deepEqual(parseNextEdit({ edits: [{ range: range(1, 0, 2, 0), text: 'x\n' }] }, doc),
    { kind: 'edit', edit: edit(range(1, 0, 2, 0), 'x\n') });
  // a pure deletion and a pure insertion are edits
  assert.equal(parseNextEdit(answer([serverEdit(range(1, 2, 1, 5), '')]), doc).kind, 'edit');
  assert.equal(parseNextEdit(answer([serverEdit(range(1, 2, 1, 2), 'ab')]), doc).kind, 'edit');
});

test('no edit, stale edits and malformed answers are not shown', () => {
  assert.deepEqual(parseNextEdit(answer([]), doc), { kind: 'none' });
  assert.deepEqual(parseNextEdit({ edits: [] }, doc), { kind: 'none' });
  assert.deepEqual(parseNextEdit(answer([serverEdit(range(1, 2, 1, 2), '')]), doc), { kind: 'none' });
  assert.deepEqual(parseNextEdit(answer([serverEdit(undefined, undefined, { ...doc, version: 6 })]), doc), { kind: 'stale' });
  assert.deepEqual(parseNextEdit(answer([serverEdit(undefined, undefined, { ...doc, uri: 'file:///other.py' })]), doc), { kind: 'stale' });
  for (const bad of [null, undefined, 'x', {}, { edits: null }, { edits: [null] }, { edits: [{ range: range(0, 0, 0, 1) }] },
    { edits: [{ text: 'x' }] }, { edits: [serverEdit(range(2, 0, 1, 0))] }, { edits: [serverEdit(range(1, 5, 1, 4))] },
    { edits: [serverEdit(range(-1, 0, 0, 0))] }, { edits: [serverEdit(range(0, 0.5, 0, 1))] }]) {
    assert.deepEqual(parseNextEdit(bad, doc), { kind: 'invalid' }, JSON.stringify(bad));
  }
});

test('an edit is current only for its own document version', () => {
  assert.ok(isCurrent(edit(), doc));
  assert.ok(!isCurrent(edit(), { ...doc, version: 8 }));
  assert.ok(!isCurrent(edit(), { ...doc, uri: 'file:///other.py' }));
});

test('Tab away from the edit jumps to its start; Tab on its lines applies it', () => {
  const s = new NextEditSession();
  assert.deepEqual(s.tab(doc, pos(0, 0)), { kind: 'none' });
  s.show(edit(range(4, 8, 5, 2)), pos(0, 3));
  assert.deepEqual(s.tab(doc, pos(0, 3)), { kind: 'jump', to: pos(4, 8) });
  assert.equal(s.moved(doc.uri, pos(4, 8)), 'keep'); // the jump's own move keeps it
  assert.deepEqual(s.tab(doc, pos(4, 8)), { kind: 'apply', edit: edit(range(4, 8, 5, 2)) });
  assert.deepEqual(s.tab(doc, pos(5, 0)), { kind: 'apply', edit: edit(range(4, 8, 5, 2)) }); // any of its lines
  assert.equal(s.tab(doc, pos(6, 0)).kind, 'jump');
});

test('Tab does not apply an edit to another version of the document', () => {
  const s = new NextEditSession();
  s.show(edit(), pos(4, 0));
  assert.deepEqual(s.tab({ ...doc, version: 8 }, pos(4, 0)), { kind: 'stale' });
  assert.deepEqual(s.tab({ ...doc, uri: 'file:///b.py' }, pos(4, 0)), { kind: 'stale' });
});

test('moving away or changing the document hides the edit; staying put or on its lines keeps it', () => {
  const s = new NextEditSession();
  assert.equal(s.moved(doc.uri, pos(0, 0)), 'none');
  s.show(edit(range(4, 8, 4, 11)), pos(1, 2));
  assert.equal(s.moved(doc.uri, pos(1, 2)), 'keep');
  assert.equal(s.moved(doc.uri, pos(4, 0)), 'keep');
  assert.equal(s.moved('file:///other.py', pos(9, 9)), 'none');
  assert.equal(s.moved(doc.uri, pos(1, 3)), 'hide');
  assert.equal(s.changed('file:///other.py'), 'none');
  assert.equal(s.changed(doc.uri), 'hide');
  assert.ok(s.hide());
  assert.ok(!s.hide());
  assert.equal(s.edit, undefined);
});

test('the cursor lands at the end of the new text', () => {
  assert.deepEqual(endOfInsert(edit(range(4, 8, 4, 11), 'name')), pos(4, 12));
  assert.deepEqual(endOfInsert(edit(range(4, 8, 6, 0), 'a\n  bc')), pos(5, 4));
  assert.deepEqual(endOfInsert(edit(range(4, 8, 4, 8), 'x\r\n')), pos(5, 0));
  assert.deepEqual(endOfInsert(edit(range(4, 8, 4, 11), '')), pos(4, 8));
});

test('the hint: jump on the cursor line while away, apply on the edit line once there', () => {
  assert.deepEqual(hint(edit(range(4, 8, 4, 11)), pos(0, 0)), { line: 0, text: 'Tab: jump to edit (line 5)' });
  assert.deepEqual(hint(edit(range(4, 8, 6, 0)), pos(6, 0)), { line: 4, text: 'Tab: apply edit' });
});

test('the preview is one line', () => {
  assert.equal(preview('name'), 'name');
  assert.equal(preview('a\n\tb\r\nc', 80, 2), 'a ⏎   b ⏎ c');
  assert.equal(preview('x'.repeat(100), 10), `${'x'.repeat(9)}…`);
});

test('inline suggestions go first, per document version', () => {
  const inline = new InlineAnswers();
  assert.ok(!inline.shown(doc));
  inline.note(doc, 1);
  assert.ok(inline.shown(doc));
  assert.ok(!inline.shown({ ...doc, version: 8 }));
  inline.note(doc, 0);
  assert.ok(!inline.shown(doc));
  inline.note(doc, 2);
  inline.clear();
  assert.ok(!inline.shown(doc));
});

test('when an automatic request is sent', () => {
  const ok = { enabled: true, serverEnabled: true, supported: true, language: true, emptySelection: true, inlineShown: false, editShown: false };
  assert.equal(skipReason(ok), undefined);
  assert.match(skipReason({ ...ok, enabled: false })!, /redraft\.nextEdit\.enabled/);
  assert.match(skipReason({ ...ok, serverEnabled: false })!, /redraft\.enabled/);
  assert.match(skipReason({ ...ok, supported: false })!, /does not offer/);
  assert.match(skipReason({ ...ok, language: false })!, /language/);
  assert.match(skipReason({ ...ok, emptySelection: false })!, /selected/);
  assert.match(skipReason({ ...ok, inlineShown: true })!, /inline suggestion/);
  assert.match(skipReason({ ...ok, editShown: true })!, /already shown/);
});

test('package.json contributes the commands, the keybindings on the context key and the setting', () => {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
  const commands = manifest.contributes.commands.map((c: { command: string }) => c.command);
  for (const c of [JUMP_OR_APPLY_COMMAND, DISMISS_COMMAND, REQUEST_COMMAND]) assert.ok(commands.includes(c), c);
  const keys = Object.fromEntries(manifest.contributes.keybindings.map((k: { key: string; command: string; when: string }) => [k.key, k]));
  assert.equal(keys.tab.command, JUMP_OR_APPLY_COMMAND);
  assert.equal(keys.escape.command, DISMISS_COMMAND);
  for (const clause of [CONTEXT_KEY, '!inlineSuggestionVisible', '!suggestWidgetVisible']) {
    assert.ok(keys.tab.when.split(' && ').includes(clause), clause);
  }
  assert.ok(keys.escape.when.split(' && ').includes(CONTEXT_KEY));
  const setting = manifest.contributes.configuration.properties['redraft.nextEdit.enabled'];
  assert.deepEqual([setting.type, setting.default], ['boolean', false]);
});
