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

export interface ExecuteCommandParams {
  command: string;
  arguments: [{ uri: string; snippet: string; version: number }];
}

export type Prepared = { ok: true; params: ExecuteCommandParams } | { ok: false; message: string };

export interface Message {
  level: 'info' | 'error';
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
    const why = typeof r.failureReason === 'string' && r.failureReason ? r.failureReason : 'the editor refused the edit (did the file change?)';
    return { level: 'error', text: `redraft: the snippet was not applied: ${why}` };
  }
  if (num('hunks') === 0) return { level: 'info', text: 'redraft: the snippet changes nothing in this file.' };
  return {
    level: 'info',
    text: `redraft: applied the snippet: ${plural(num('hunks'), 'change')}, +${num('linesAdded')} -${num('linesRemoved')} lines.`,
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
