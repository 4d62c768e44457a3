// "redraft: Apply Snippet from Clipboard": what is sent to the server and what the user is told.
// No `vscode` import: tested directly (test/unit). extension.ts reads the clipboard and the active
// editor, sends the request through the LanguageClient (which applies the server's
// workspace/applyEdit itself) and shows the message this module returns.

export const SERVER_APPLY_EDIT = 'redraft.applyEdit';
export const APPLY_SNIPPET_COMMAND = 'redraft.applySnippetFromClipboard';

/** The part of the active editor's document that the request needs. */
export interface EditorDocument {
  uri: string; // as the LanguageClient sends it (Uri.toString())
  version: number;
  languageId: string;
}

export interface ApplyArguments {
  uri: string;
  snippet: string;
  version: number;
  confirmDeletions?: boolean; // the server answers needsConfirmation instead of deleting unshown lines
  deleteUnmarked?: boolean; // false: keep the lines the snippet leaves out without a marker
}

export interface ExecuteCommandParams {
  command: string;
  arguments: [ApplyArguments];
}

export type Prepared = { ok: true; params: ExecuteCommandParams } | { ok: false; message: string };

export interface Message {
  level: 'info' | 'warning' | 'error';
  text: string;
}

/**
 * The workspace/executeCommand params for the server, or why there is nothing to send: no editor,
 * a language the server does not get, no server, an empty clipboard. `version` is the document's
 * version as VS Code (and so the server) knows it: a document that changes before the server merges
 * is refused as stale instead of being edited.
 */
export function prepareApply(
  doc: EditorDocument | undefined,
  snippet: string | undefined,
  languages: readonly string[],
  serverRunning: boolean,
): Prepared {
  if (!doc) return { ok: false, message: 'redraft: no active editor to apply the snippet to.' };
  if (!languages.includes(doc.languageId)) {
    return {
      ok: false,
      message: `redraft: cannot apply a snippet to a ${doc.languageId} file; redraft handles ${languages.join(', ')}.`,
    };
  }
  if (!serverRunning) return { ok: false, message: 'redraft: the language server is not running ("redraft: Restart Server").' };
  if (!snippet || snippet.trim() === '') {
    return { ok: false, message: 'redraft: the clipboard is empty; copy an edit snippet first.' };
  }
  return { ok: true, params: { command: SERVER_APPLY_EDIT, arguments: [{ uri: doc.uri, snippet, version: doc.version }] } };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The server's summary {applied, version, hunks, linesAdded, linesRemoved, failureReason?} -> a message. */
export function resultMessage(result: unknown): Message {
  const r = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  const num = (key: string) => (typeof r[key] === 'number' ? (r[key] as number) : 0);
  if (r.applied !== true) {
    const why = typeof r.failureReason === 'string' && r.failureReason ? r.failureReason
      : r.needsConfirmation === true ? `it deletes lines it does not show: ${deletionsOf(r).map((d) => d.summary).join('; ')}`
      : 'the editor refused the edit (did the file change?)';
    return { level: 'error', text: `redraft: the snippet was not applied: ${why}` };
  }
  if (num('hunks') === 0) return { level: 'info', text: 'redraft: the snippet changes nothing in this file.' };
  const dels = deletionsOf(r);
  // the snippet's own lines that the grammar cannot read, merged as written
  const warnings = Array.isArray(r.warnings) ? r.warnings.filter((w): w is string => typeof w === 'string') : [];
  return {
    level: warnings.length ? 'warning' : 'info',
    text: `redraft: applied the snippet: ${plural(num('hunks'), 'change')}, +${num('linesAdded')} -${num('linesRemoved')} lines.` +
      (dels.length ? ` ${dels.map((d) => d.summary).join('; ')}.` : '') +
      (warnings.length ? ` Warning: ${warnings.join('; ')}.` : ''),
  };
}

/** A rejected request (the server's error: a refusal, a stale version, bad arguments) -> a message. */
export function errorMessage(error: unknown): Message {
  let text = error instanceof Error ? error.message : typeof error === 'object' && error !== null && 'message' in error
    ? String((error as { message: unknown }).message)
    : String(error);
  text = text.trim() || 'the server gave no reason';
  return { level: 'error', text: `redraft: ${text}` };
}

/** One deletion in the server's answer (what the merge deletes because the snippet omits it). */
export interface Deletion {
  start: number;
  end: number;
  lines: number;
  why: string;
  definitions: string[];
  summary: string;
}

export const KEEP_DELETIONS = 'Apply and delete';
export const KEEP_LINES = 'Apply, keep those lines';

/** What the editor asks (a modal warning: message, detail, buttons; closing it is Cancel). */
export interface Confirmation {
  message: string;
  detail: string;
  choices: [typeof KEEP_DELETIONS, typeof KEEP_LINES];
}

export function deletionsOf(result: unknown): Deletion[] {
  const r = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  return Array.isArray(r.deletions) ? (r.deletions as Deletion[]).filter((d) => typeof d?.summary === 'string') : [];
}

/**
 * The question for an answer that needs confirmation: "deleted N lines at A-B (why)" and the
 * definitions removed, one line each, before the user keeps them.
 */
export function confirmation(result: unknown): Confirmation {
  const dels = deletionsOf(result);
  const total = dels.reduce((n, d) => n + (typeof d.lines === 'number' ? d.lines : 0), 0);
  const defs = dels.flatMap((d) => (Array.isArray(d.definitions) ? d.definitions : []));
  return {
    message: `redraft: the snippet deletes ${plural(total, 'line')} it does not show` +
      (defs.length ? `, removing ${defs.join(', ')}` : '') + '. Apply it?',
    detail: dels.map((d) => d.summary).join('\n') +
      '\n\nA snippet that forgot a "... existing code ..." marker looks the same: keep those lines if unsure.',
    choices: [KEEP_DELETIONS, KEEP_LINES],
  };
}

export interface ApplyDeps {
  send(params: ExecuteCommandParams): PromiseLike<unknown>; // workspace/executeCommand; rejects with the server's error
  confirm(question: Confirmation): PromiseLike<string | undefined>; // the choice, undefined for Cancel (a Thenable)
}

/**
 * The apply command's round trips: the snippet is sent with confirmDeletions; an answer that
 * needs confirmation (the merge deletes lines the snippet leaves out without a marker) is shown
 * before anything changes, and sent again as the user chose (apply and delete, apply keeping
 * those lines, or cancel: nothing is applied). Returns the message to show and the last answer.
 */
export async function applyWithConfirmation(
  params: ExecuteCommandParams,
  deps: ApplyDeps,
): Promise<{ message: Message; result?: unknown }> {
  const args = params.arguments[0];
  let result: unknown;
  try {
    result = await deps.send({ ...params, arguments: [{ ...args, confirmDeletions: true }] });
    const r = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
    if (r.needsConfirmation === true) {
      const choice = await deps.confirm(confirmation(result));
      if (choice !== KEEP_DELETIONS && choice !== KEEP_LINES) {
        return { message: { level: 'info', text: 'redraft: cancelled; the snippet was not applied.' }, result };
      }
      const again: ApplyArguments = { ...args, confirmDeletions: false };
      if (choice === KEEP_LINES) again.deleteUnmarked = false;
      result = await deps.send({ ...params, arguments: [again] });
    }
    return { message: resultMessage(result), result };
  } catch (e) {
    return { message: errorMessage(e) };
  }
}
