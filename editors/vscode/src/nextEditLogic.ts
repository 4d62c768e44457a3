// Next edits (issue 24), the decisions without `vscode`: tested directly (test/unit). nextEdit.ts
// (NextEditController) sends `redraft/nextEdit`, draws the edit and runs the commands with these.
//
// The server answers `{edits: [{range, text, textDocument: {uri, version}}], region, confidence,
// forwardPasses}`: `edits` is empty when it proposes nothing, and ranges are in UTF-16 (the only
// position encoding vscode-languageclient offers), so they are VS Code positions as they are.

export const NEXT_EDIT_METHOD = 'redraft/nextEdit';
export const JUMP_OR_APPLY_COMMAND = 'redraft.nextEdit.jumpOrApply';
export const DISMISS_COMMAND = 'redraft.nextEdit.dismiss';
export const REQUEST_COMMAND = 'redraft.nextEdit.request';
export const CONTEXT_KEY = 'redraft.nextEditVisible';
export const ENABLED_SETTING = 'nextEdit.enabled'; // in the `redraft` section
export const DEBOUNCE_MS = 300;

export interface Pos {
  line: number;
  character: number;
}

export interface Rng {
  start: Pos;
  end: Pos;
}

/** The document a request is for, or the document as it is now. */
export interface DocRef {
  uri: string; // as the LanguageClient sends it
  version: number;
}

/** An edit the server proposed for one version of one document. */
export interface NextEdit extends DocRef {
  range: Rng;
  text: string;
}

export type Parsed = { kind: 'edit'; edit: NextEdit } | { kind: 'none' | 'stale' | 'invalid' };

/** Whether the server's InitializeResult capabilities offer next edits. */
export function supportsNextEdit(capabilities: unknown): boolean {
  const experimental = (capabilities as { experimental?: unknown } | undefined)?.experimental;
  return typeof experimental === 'object' && experimental !== null
    && (experimental as { redraftNextEdit?: unknown }).redraftNextEdit === true;
}

export function requestParams(doc: DocRef, position: Pos): { textDocument: DocRef; position: Pos } {
  return { textDocument: { uri: doc.uri, version: doc.version }, position: { line: position.line, character: position.character } };
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;
const isPos = (p: unknown): p is Pos => typeof p === 'object' && p !== null
  && isCount((p as Pos).line) && isCount((p as Pos).character);
const before = (a: Pos, b: Pos) => a.line < b.line || (a.line === b.line && a.character < b.character);

/**
 * The server's answer to a request for `doc` -> the edit to show: 'none' (no edit), 'stale' (an
 * edit for another document or version), 'invalid' (not the documented shape).
 */
export function parseNextEdit(result: unknown, doc: DocRef): Parsed {
  const edits = (result as { edits?: unknown } | null | undefined)?.edits;
  if (!Array.isArray(edits)) return { kind: 'invalid' };
  if (edits.length === 0) return { kind: 'none' };
  const e = edits[0] as { range?: { start?: unknown; end?: unknown }; text?: unknown; textDocument?: Partial<DocRef> };
  if (typeof e !== 'object' || e === null || typeof e.text !== 'string' || !isPos(e.range?.start) || !isPos(e.range?.end)) {
    return { kind: 'invalid' };
  }
  const range = { start: { ...e.range.start }, end: { ...e.range.end } };
  if (before(range.end, range.start)) return { kind: 'invalid' };
  const td = e.textDocument;
  if (td && ((td.uri !== undefined && td.uri !== doc.uri) || (td.version !== undefined && td.version !== doc.version))) {
    return { kind: 'stale' };
  }
  if (e.text === '' && !before(range.start, range.end)) return { kind: 'none' };
  return { kind: 'edit', edit: { uri: doc.uri, version: doc.version, range, text: e.text } };
}

/** Whether the edit is still for the document as it is now. */
export function isCurrent(edit: NextEdit, doc: DocRef): boolean {
  return edit.uri === doc.uri && edit.version === doc.version;
}

/** The cursor is "at" the edit when it is on one of the edit's lines. */
export function onEditLines(edit: NextEdit, cursor: Pos): boolean {
  return cursor.line >= edit.range.start.line && cursor.line <= edit.range.end.line;
}

/** Where the cursor goes after the edit is applied: the end of its new text. */
export function endOfInsert(edit: NextEdit): Pos {
  const lines = edit.text.split(/\r\n|\r|\n/);
  const last = lines[lines.length - 1];
  return lines.length === 1
    ? { line: edit.range.start.line, character: edit.range.start.character + last.length }
    : { line: edit.range.start.line + lines.length - 1, character: last.length };
}

/** The new text as one line of decoration text: line breaks as ⏎, tabs as spaces, at most `max` characters. */
export function preview(text: string, max = 80, tabSize = 4): string {
  const flat = text.replace(/\r\n|\r|\n/g, ' ⏎ ').replace(/\t/g, ' '.repeat(tabSize));
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The hint shown at the end of a line: on the cursor line while the edit is elsewhere, else on the edit's first line. */
export function hint(edit: NextEdit, cursor: Pos): { line: number; text: string } {
  return onEditLines(edit, cursor)
    ? { line: edit.range.start.line, text: 'Tab: apply edit' }
    : { line: cursor.line, text: `Tab: jump to edit (line ${edit.range.start.line + 1})` };
}

export type TabAction = { kind: 'jump'; to: Pos } | { kind: 'apply'; edit: NextEdit } | { kind: 'stale' } | { kind: 'none' };

/**
 * The edit on screen, and what moves and changes do to it. The anchor is where the cursor was when
 * it was shown (or where a jump put it): the edit stays while the cursor is there or on its lines.
 */
export class NextEditSession {
  private current: { edit: NextEdit; anchor: Pos } | undefined;

  get edit(): NextEdit | undefined {
    return this.current?.edit;
  }

  show(edit: NextEdit, cursor: Pos): void {
    this.current = { edit, anchor: { ...cursor } };
  }

  hide(): boolean {
    const was = this.current !== undefined;
    this.current = undefined;
    return was;
  }

  /** The cursor of document `uri` moved: 'keep' (redraw the hint), 'hide', or 'none' (nothing shown there). */
  moved(uri: string, cursor: Pos): 'keep' | 'hide' | 'none' {
    const c = this.current;
    if (!c || c.edit.uri !== uri) return 'none';
    const atAnchor = c.anchor.line === cursor.line && c.anchor.character === cursor.character;
    return atAnchor || onEditLines(c.edit, cursor) ? 'keep' : 'hide';
  }

  /** Document `uri` changed: the edit on it is out of date. */
  changed(uri: string): 'hide' | 'none' {
    return this.current?.edit.uri === uri ? 'hide' : 'none';
  }

  /** Tab: jump to the edit's start (the new anchor), apply it when the cursor is on its lines, or
   * 'stale' (hide it: the document is not the one it was for). */
  tab(doc: DocRef, cursor: Pos): TabAction {
    const c = this.current;
    if (!c) return { kind: 'none' };
    if (!isCurrent(c.edit, doc)) return { kind: 'stale' };
    if (!onEditLines(c.edit, cursor)) {
      c.anchor = { ...c.edit.range.start };
      return { kind: 'jump', to: { ...c.edit.range.start } };
    }
    return { kind: 'apply', edit: c.edit };
  }
}

/**
 * Inline completions go first: a next edit is not asked for while the last inline answer for the
 * document's current version had items (VS Code shows them as ghost text).
 */
export class InlineAnswers {
  private readonly last = new Map<string, { version: number; items: boolean }>();

  note(doc: DocRef, items: number): void {
    this.last.set(doc.uri, { version: doc.version, items: items > 0 });
  }

  shown(doc: DocRef): boolean {
    const l = this.last.get(doc.uri);
    return l !== undefined && l.version === doc.version && l.items;
  }

  clear(): void {
    this.last.clear();
  }
}

/** Why an automatic request is not sent (undefined: send it). */
export function skipReason(s: {
  enabled: boolean; // redraft.nextEdit.enabled
  serverEnabled: boolean; // redraft.enabled
  supported: boolean;
  language: boolean;
  emptySelection: boolean;
  inlineShown: boolean;
  editShown: boolean;
}): string | undefined {
  if (!s.enabled) return 'next edits are turned off (redraft.nextEdit.enabled)';
  if (!s.serverEnabled) return 'suggestions are turned off (redraft.enabled)';
  if (!s.supported) return 'the server does not offer next edits';
  if (!s.language) return 'not a language redraft serves';
  if (!s.emptySelection) return 'text is selected';
  if (s.inlineShown) return 'an inline suggestion is shown';
  if (s.editShown) return 'a next edit is already shown';
  return undefined;
}
