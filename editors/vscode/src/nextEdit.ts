// Next edits (issue 24) in the editor: NextEditController asks the server (`redraft/nextEdit`,
// when it advertises `experimental.redraftNextEdit`) after the cursor or the text stops changing,
// draws the proposed edit where it would land (the replaced range struck through, the new text as
// an `after` decoration, a "Tab: jump to edit" hint) and sets the context key
// `redraft.nextEditVisible`, on which package.json binds Tab (redraft.nextEdit.jumpOrApply) and
// Escape (redraft.nextEdit.dismiss). The decisions are in nextEditLogic.ts (unit-tested).
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  CONTEXT_KEY,
  DEBOUNCE_MS,
  DISMISS_COMMAND,
  ENABLED_SETTING,
  endOfInsert,
  hint,
  InlineAnswers,
  JUMP_OR_APPLY_COMMAND,
  NEXT_EDIT_METHOD,
  NextEditSession,
  preview,
  REQUEST_COMMAND,
  requestParams,
  parseNextEdit,
  skipReason,
  supportsNextEdit,
  type DocRef,
  type NextEdit,
  type Pos,
  type Rng,
} from './nextEditLogic';

export interface NextEditDeps {
  client: () => LanguageClient | undefined;
  languages: readonly string[];
  log: vscode.LogOutputChannel;
}

const toPosition = (p: Pos) => new vscode.Position(p.line, p.character);
const toRange = (r: Rng) => new vscode.Range(toPosition(r.start), toPosition(r.end));

export class NextEditController implements vscode.Disposable {
  private readonly session = new NextEditSession();
  private readonly inline = new InlineAnswers();
  private readonly deleted = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('diffEditor.removedTextBackground'),
    textDecoration: 'line-through',
  });
  private readonly inserted = vscode.window.createTextEditorDecorationType({
    after: { backgroundColor: new vscode.ThemeColor('diffEditor.insertedTextBackground') },
  });
  private readonly hinted = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('editorCodeLens.foreground'), fontStyle: 'italic', margin: '0 0 0 2em' },
  });
  private shownIn: vscode.TextEditor | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private pending: vscode.CancellationTokenSource | undefined;
  private lastMove = '';
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly deps: NextEditDeps) {
    this.subscriptions = [
      this.deleted, this.inserted, this.hinted,
      vscode.commands.registerCommand(JUMP_OR_APPLY_COMMAND, () => this.jumpOrApply()),
      vscode.commands.registerCommand(DISMISS_COMMAND, () => this.reset()),
      vscode.commands.registerCommand(REQUEST_COMMAND, () => this.requestNow()),
      vscode.window.onDidChangeTextEditorSelection((e) => this.onMove(e.textEditor)),
      vscode.workspace.onDidChangeTextDocument((e) => this.onChange(e)),
      vscode.window.onDidChangeActiveTextEditor(() => this.reset()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`redraft.${ENABLED_SETTING}`) && !this.enabled()) this.reset();
      }),
    ];
  }

  dispose(): void {
    this.reset();
    for (const d of this.subscriptions) d.dispose();
  }

  /** The edit on screen, if any (for the inline middleware and tests). */
  get visible(): NextEdit | undefined {
    return this.session.edit;
  }

  /** The inline completion middleware's answer for `document` had `items` items. */
  noteInline(document: vscode.TextDocument, items: number): void {
    const doc = this.docRef(document);
    if (doc) this.inline.note(doc, items);
  }

  /** Whether inline completions should wait: a next edit is shown in `document` (Tab is its key). */
  holdsInline(document: vscode.TextDocument): boolean {
    return this.session.edit !== undefined && this.session.edit.uri === this.docRef(document)?.uri;
  }

  /** Hide the edit and stop the pending request and timer. */
  reset(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending?.cancel();
    this.pending = undefined;
    this.hide();
  }

  private enabled(): boolean {
    return vscode.workspace.getConfiguration('redraft').get<boolean>(ENABLED_SETTING, false);
  }

  private docRef(document: vscode.TextDocument): DocRef | undefined {
    const c = this.deps.client();
    return c && { uri: c.code2ProtocolConverter.asUri(document.uri), version: document.version };
  }

  private onMove(editor: vscode.TextEditor): void {
    const doc = this.docRef(editor.document);
    const at = `${doc?.uri}@${doc?.version}:${editor.selection.active.line}:${editor.selection.active.character}`;
    if (at === this.lastMove) return; // not a move (focus coming back after the command palette, ...)
    this.lastMove = at;
    const verdict = doc ? this.session.moved(doc.uri, editor.selection.active) : 'none';
    if (verdict === 'keep') return this.draw(editor);
    if (verdict === 'hide') this.hide();
    if (editor === vscode.window.activeTextEditor) this.schedule(editor);
  }

  private onChange(e: vscode.TextDocumentChangeEvent): void {
    if (e.contentChanges.length === 0) return;
    const doc = this.docRef(e.document);
    if (doc && this.session.changed(doc.uri) === 'hide') this.hide();
    const editor = vscode.window.activeTextEditor;
    if (editor?.document === e.document) this.schedule(editor);
  }

  private schedule(editor: vscode.TextEditor): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.pending?.cancel();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.request(editor, false).then((outcome) => this.deps.log.trace(`next edit: ${outcome}`));
    }, DEBOUNCE_MS);
  }

  private async requestNow(): Promise<string> {
    const editor = vscode.window.activeTextEditor;
    const outcome = editor ? await this.request(editor, true) : 'no active editor';
    this.deps.log.debug(`next edit on demand: ${outcome}`);
    if (outcome === 'none') void vscode.window.showInformationMessage('redraft: no next edit here.');
    else if (outcome !== 'shown' && outcome !== 'cancelled') void vscode.window.showWarningMessage(`redraft: ${outcome}.`);
    return outcome;
  }

  /** Ask for a next edit at the cursor; resolves to 'shown', 'none', 'stale', 'cancelled', ... */
  private async request(editor: vscode.TextEditor, manual: boolean): Promise<string> {
    const c = this.deps.client();
    const doc = this.docRef(editor.document);
    const config = vscode.workspace.getConfiguration('redraft');
    const skip = skipReason({
      enabled: manual || this.enabled(),
      serverEnabled: config.get<boolean>('enabled', true),
      supported: c !== undefined && c.isRunning() && supportsNextEdit(c.initializeResult?.capabilities),
      language: this.deps.languages.includes(editor.document.languageId),
      emptySelection: editor.selection.isEmpty,
      inlineShown: !manual && doc !== undefined && this.inline.shown(doc),
      editShown: !manual && this.session.edit !== undefined,
    });
    if (skip || !c || !doc) return skip ?? 'the server is not running';
    this.pending?.cancel();
    const cts = (this.pending = new vscode.CancellationTokenSource());
    const cursor = editor.selection.active;
    let result: unknown;
    try {
      result = await c.sendRequest(NEXT_EDIT_METHOD, requestParams(doc, cursor), cts.token);
    } catch (e) {
      if (cts.token.isCancellationRequested) return 'cancelled';
      this.deps.log.warn(`${NEXT_EDIT_METHOD}: ${e instanceof Error ? e.message : String(e)}`);
      return `the request failed: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      if (this.pending === cts) this.pending = undefined;
      cts.dispose();
    }
    if (cts.token.isCancellationRequested) return 'cancelled';
    const now = this.docRef(editor.document);
    if (editor !== vscode.window.activeTextEditor || now?.version !== doc.version || !editor.selection.active.isEqual(cursor)) {
      return 'stale';
    }
    const parsed = parseNextEdit(result, doc);
    if (parsed.kind !== 'edit') return parsed.kind;
    if (!manual && this.inline.shown(doc)) return 'an inline suggestion is shown'; // it arrived meanwhile
    this.hide(); // one edit on screen (a manual request may replace an automatic one)
    this.session.show(parsed.edit, cursor);
    this.shownIn = editor;
    this.draw(editor);
    void vscode.commands.executeCommand('setContext', CONTEXT_KEY, true);
    return 'shown';
  }

  private draw(editor: vscode.TextEditor): void {
    const edit = this.session.edit;
    if (!edit) return;
    const range = toRange(edit.range);
    editor.setDecorations(this.deleted, range.isEmpty ? [] : [range]);
    const tabSize = typeof editor.options.tabSize === 'number' ? editor.options.tabSize : 4;
    editor.setDecorations(this.inserted, edit.text === '' ? [] : [{
      range: new vscode.Range(range.end, range.end),
      renderOptions: { after: { contentText: preview(edit.text, 80, tabSize) } },
    }]);
    const h = hint(edit, editor.selection.active);
    const end = editor.document.lineAt(Math.min(h.line, editor.document.lineCount - 1)).range.end;
    editor.setDecorations(this.hinted, [{ range: new vscode.Range(end, end), renderOptions: { after: { contentText: h.text } } }]);
  }

  private hide(): void {
    const was = this.session.hide();
    const editor = this.shownIn;
    this.shownIn = undefined;
    if (editor) for (const t of [this.deleted, this.inserted, this.hinted]) editor.setDecorations(t, []);
    if (was) void vscode.commands.executeCommand('setContext', CONTEXT_KEY, false);
  }

  /** Tab: jump to the edit, or apply it (only to the version it was for) when the cursor is on its lines. */
  private async jumpOrApply(): Promise<string> {
    const editor = vscode.window.activeTextEditor;
    const doc = editor && this.docRef(editor.document);
    const action = editor && doc ? this.session.tab(doc, editor.selection.active) : { kind: 'none' as const };
    if (action.kind === 'none' || action.kind === 'stale' || !editor) {
      this.hide();
      await vscode.commands.executeCommand('tab'); // what Tab does without an edit
      return action.kind;
    }
    if (action.kind === 'jump') {
      const to = toPosition(action.to);
      editor.selection = new vscode.Selection(to, to);
      editor.revealRange(toRange(this.session.edit!.range), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      this.draw(editor);
      return 'jump';
    }
    const edit = action.edit;
    this.reset();
    const applied = await editor.edit((b) => b.replace(toRange(edit.range), edit.text));
    if (applied) {
      const end = toPosition(endOfInsert(edit));
      editor.selection = new vscode.Selection(end, end);
      editor.revealRange(new vscode.Range(end, end));
    }
    return applied ? 'apply' : 'refused';
  }
}
