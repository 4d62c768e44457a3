// The redraft extension: one LanguageClient for `redraft serve`. vscode-languageclient 11 registers
// LSP 3.18 inline completion itself; this file adds settings, the status bar item, commands, the
// accept/reject reports, "Apply Snippet from Clipboard" and next edits (nextEdit.ts). The logic
// lives in modules without `vscode` (config, command, feedback, status, applyEdit, nextEditLogic),
// which the unit tests cover.
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  State,
  type LanguageClientOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import { APPLY_SNIPPET_COMMAND, applyWithConfirmation, prepareApply, type Confirmation, type Message } from './applyEdit';
import { resolveServerCommand, ServerCommandError } from './command';
import { changeAction, EFFORT_DETAILS, EFFORTS, isEffort, serverPayload } from './config';
import { CLIENT_ACCEPTED, FeedbackTracker, SERVER_ACCEPT, SERVER_REJECT, wrapAcceptCommands } from './feedback';
import { applyNotification, statusView, type Status } from './status';
import { NextEditController } from './nextEdit';

/** Languages the server can serve; it answers empty for those not in `redraft.enabledLanguages`. */
export const LANGUAGES = ['python', 'javascript', 'typescript', 'javascriptreact', 'typescriptreact', 'rust', 'go'];

let client: LanguageClient | undefined;
let stopping = false;
let lifecycle: Promise<void> = Promise.resolve(); // start/stop/restart, one at a time
let restartQueued = false;
let output: vscode.LogOutputChannel;
let item: vscode.StatusBarItem;
let nextEdits: NextEditController | undefined;
let status: Status = { phase: 'starting', message: '', effort: 'low', enabled: true };

const config = () => vscode.workspace.getConfiguration('redraft');
const tracker = new FeedbackTracker((payload) => serverCommand(SERVER_REJECT, payload));

/** Announces that this client understands the server's `redraft/status` notification. */
const statusCapability: StaticFeature = {
  fillClientCapabilities: (capabilities) => {
    capabilities.experimental = { ...(capabilities.experimental as object | undefined), redraftStatus: true };
  },
  initialize: () => undefined,
  getState: () => ({ kind: 'static' }),
  clear: () => undefined,
};

export function activate(context: vscode.ExtensionContext): void {
  output = vscode.window.createOutputChannel('redraft', { log: true });
  item = vscode.window.createStatusBarItem('redraft.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'redraft';
  item.command = 'redraft.toggle';
  setStatus({ phase: 'starting', message: '', effort: String(config().get('effort', 'low')), enabled: config().get('enabled', true) });
  item.show();
  nextEdits = new NextEditController({ client: () => client, languages: LANGUAGES, log: output });
  const command = vscode.commands.registerCommand;
  context.subscriptions.push(
    output,
    item,
    nextEdits,
    command('redraft.toggle', () => update('enabled', !config().get('enabled', true))),
    command('redraft.enable', () => update('enabled', true)),
    command('redraft.disable', () => update('enabled', false)),
    command('redraft.setEffort', pickEffort),
    command('redraft.restartServer', requestRestart),
    command('redraft.showOutput', () => output.show()),
    command(APPLY_SNIPPET_COMMAND, applySnippetFromClipboard),
    command(CLIENT_ACCEPTED, (payload: unknown) => {
      tracker.accepted(payload);
      return serverCommand(SERVER_ACCEPT, payload);
    }),
    vscode.workspace.onDidChangeConfiguration(onConfigurationChange),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length > 0 && LANGUAGES.includes(e.document.languageId)) tracker.documentChanged();
    }),
  );
  void serialized(start); // activation does not wait for the server
}

export function deactivate(): Promise<void> {
  return serialized(stop);
}

/** Runs `op` after the lifecycle operations before it (configuration events come in bursts). */
function serialized(op: () => Promise<void>): Promise<void> {
  const run = lifecycle.then(op);
  lifecycle = run.catch((e: unknown) => output.error(String(e)));
  return run;
}

/** A restart, unless one is already waiting (it will read the newest settings). */
function requestRestart(): Promise<void> {
  if (restartQueued) return lifecycle;
  restartQueued = true;
  return serialized(async () => {
    restartQueued = false;
    await stop();
    setStatus({ ...status, phase: 'stopped' });
    await start();
  });
}

async function start(): Promise<void> {
  const cfg = config();
  let server;
  try {
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    server = resolveServerCommand(cfg.get('server.path'), cfg.get('server.args'), { cwd });
  } catch (e) {
    if (!(e instanceof ServerCommandError)) throw e;
    return fail(e.message);
  }
  setStatus({ ...status, phase: 'starting', message: '' });
  output.info(`starting ${server.command} ${server.args.join(' ')}`);
  const c = new LanguageClient('redraft', 'redraft', { command: server.command, args: server.args }, clientOptions());
  c.registerFeature(statusCapability);
  c.onNotification('redraft/status', (params: unknown) => setStatus(applyNotification(status, params)));
  c.onDidChangeState(({ newState }) => {
    if (newState === State.Running && ['starting', 'error', 'stopped'].includes(status.phase)) {
      setStatus({ ...status, phase: 'running', message: '' });
    } else if (newState === State.Stopped && !stopping && client === c) {
      setStatus({ ...status, phase: 'error', message: 'The server stopped; see "redraft: Show Output".' });
    }
  });
  client = c;
  try {
    await c.start();
  } catch (e) {
    fail(`redraft: the server did not start: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  tracker.clear();
  nextEdits?.reset();
  if (!c) return;
  stopping = true;
  try {
    await c.stop();
  } catch (e) {
    output.warn(`stopping the server: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    stopping = false;
  }
}

function clientOptions(): LanguageClientOptions {
  return {
    documentSelector: LANGUAGES.flatMap((language) => [
      { scheme: 'file', language },
      { scheme: 'untitled', language },
    ]),
    outputChannel: output,
    initializationOptions: () => serverPayload(config()),
    middleware: {
      provideInlineCompletionItems: async (document, position, context, token, next) => {
        tracker.requested();
        if (!config().get('enabled', true)) return null;
        if (nextEdits?.holdsInline(document)) return null; // a next edit is shown: Tab is its key
        const result = await next(document, position, context, token);
        if (!token.isCancellationRequested) {
          const items = result ? (Array.isArray(result) ? result : result.items) : [];
          if (result) tracker.shown(wrapAcceptCommands(items));
          nextEdits?.noteInline(document, items.length); // ghost text goes first
        }
        return result;
      },
      provideCompletionItem: (document, position, context, token, next) =>
        config().get('enabled', true) ? next(document, position, context, token) : null,
      workspace: {
        // a workspace/configuration pull of "redraft" gets the server keys only, as pushes do
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          if (!Array.isArray(result)) return result;
          return params.items.map((it, i) => (it.section === 'redraft' ? serverPayload(config()).redraft : result[i]));
        },
      },
    },
  };
}

async function onConfigurationChange(e: vscode.ConfigurationChangeEvent): Promise<void> {
  const action = changeAction((section) => e.affectsConfiguration(section));
  if (action === 'restart') return requestRestart();
  if (action !== 'settings') return;
  const cfg = config();
  setStatus({ ...status, effort: String(cfg.get('effort', 'low')), enabled: cfg.get('enabled', true) });
  if (client?.isRunning()) {
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: serverPayload(cfg) });
  }
}

function serverCommand(command: string, payload: unknown): Promise<unknown> | undefined {
  return client?.sendRequest(ExecuteCommandRequest.type, { command, arguments: [payload] }).then(undefined, (e: unknown) => {
    output.warn(`${command}: ${e instanceof Error ? e.message : String(e)}`);
  });
}

/**
 * Sends the clipboard to the server as a lazy edit snippet for the active editor's document
 * (`redraft.applyEdit`); the server merges it and sends the edit back as workspace/applyEdit,
 * which the LanguageClient applies. Returns the server's summary (or undefined).
 */
async function applySnippetFromClipboard(): Promise<unknown> {
  const document = vscode.window.activeTextEditor?.document;
  const snippet = await vscode.env.clipboard.readText();
  const doc = document && { uri: document.uri.toString(), version: document.version, languageId: document.languageId };
  const c = client; // a client still starting is fine: sendRequest waits for it
  const prepared = prepareApply(doc, snippet, LANGUAGES, c !== undefined);
  if (!prepared.ok) return void show({ level: 'error', text: prepared.message });
  const { message, result } = await applyWithConfirmation(prepared.params, {
    send: (params) => c!.sendRequest(ExecuteCommandRequest.type, params), // ok: c is defined
    confirm: (q: Confirmation) => vscode.window.showWarningMessage(q.message, { modal: true, detail: q.detail }, ...q.choices),
  });
  show(message);
  return result;
}

function show(message: Message): void {
  if (message.level === 'error') {
    output.warn(message.text);
    void vscode.window.showErrorMessage(message.text);
  } else if (message.level === 'warning') {
    void vscode.window.showWarningMessage(message.text);
  } else {
    void vscode.window.showInformationMessage(message.text);
  }
}

function setStatus(next: Status): void {
  status = next;
  const view = statusView(status);
  item.text = view.text;
  item.tooltip = view.tooltip;
  item.backgroundColor = view.error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
}

function fail(message: string): void {
  setStatus({ ...status, phase: 'error', message });
  output.error(message);
  void vscode.window.showErrorMessage(message, 'Open Settings', 'Show Output').then((choice) => {
    if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'redraft.server');
    if (choice === 'Show Output') output.show();
  });
}

/** Writes a setting where it is set now: the workspace if it has a value there, else the user settings. */
function update(key: string, value: unknown): Thenable<void> {
  const where = config().inspect(key)?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  return config().update(key, value, where);
}

async function pickEffort(effort?: unknown): Promise<void> {
  if (!isEffort(effort)) {
    const current = config().get('effort');
    const picked = await vscode.window.showQuickPick(
      EFFORTS.map((e) => ({ label: e, description: e === current ? '(current)' : undefined, detail: EFFORT_DETAILS[e] })),
      { placeHolder: 'redraft effort: more effort gives better, slower completions' },
    );
    effort = picked?.label;
  }
  if (isEffort(effort)) await update('effort', effort);
}
