// Accept / reject bookkeeping for inline completions. No `vscode` import: tested directly.
//
// Every inline item from the server carries `command: redraft.accept(payload)`, which VS Code runs
// when the item is accepted. The middleware swaps it for `redraft.client.accepted(payload)` (which
// records the accept and forwards redraft.accept to the server) and remembers the payloads it
// handed out. When the next inline request comes, or a while after the document changes, the
// items still remembered were not accepted: each is reported with redraft.reject.
//
// Order of events on accept: VS Code edits the document (a change event), then runs the item's
// command, and only later asks for new items. Hence a request settles at once, while a document
// change only settles after a grace period (long enough for the accept command to arrive).

export const SERVER_ACCEPT = 'redraft.accept';
export const SERVER_REJECT = 'redraft.reject';
export const CLIENT_ACCEPTED = 'redraft.client.accepted';
export const DOCUMENT_CHANGE_GRACE_MS = 2000;

/** The part of an item (vscode.InlineCompletionItem) this module touches. */
export interface ItemWithCommand {
  command?: { title: string; command: string; arguments?: unknown[] };
}

/**
 * Points each item's redraft.accept command at CLIENT_ACCEPTED (same payload) and returns the
 * payloads, in order. Items without that command are left alone.
 */
export function wrapAcceptCommands(items: readonly ItemWithCommand[]): unknown[] {
  const payloads: unknown[] = [];
  for (const item of items) {
    if (item.command?.command !== SERVER_ACCEPT) continue;
    const payload = item.command.arguments?.[0];
    item.command = { title: item.command.title, command: CLIENT_ACCEPTED, arguments: [payload] };
    payloads.push(payload);
  }
  return payloads;
}

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

function sameItem(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const id = (p: unknown) => (p !== null && typeof p === 'object' ? (p as { id?: unknown }).id : undefined);
  return id(a) !== undefined && id(a) === id(b);
}

export class FeedbackTracker {
  private shownPayloads: unknown[] = [];
  private timer: unknown;

  constructor(
    private readonly reject: (payload: unknown) => void,
    private readonly graceMs = DOCUMENT_CHANGE_GRACE_MS,
    private readonly timers: Timers = realTimers,
  ) {}

  /** An inline request starts: what was shown before and not accepted is rejected now. */
  requested(): void {
    this.settle();
  }

  /** VS Code got these items (payloads from wrapAcceptCommands). */
  shown(payloads: readonly unknown[]): void {
    this.settle();
    this.shownPayloads = [...payloads];
  }

  /** An item's command ran. */
  accepted(payload: unknown): void {
    this.shownPayloads = this.shownPayloads.filter((p) => !sameItem(p, payload));
  }

  /** The document changed: settle after the grace period unless a request settles first. */
  documentChanged(): void {
    if (this.shownPayloads.length === 0 || this.timer !== undefined) return;
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      this.settle();
    }, this.graceMs);
  }

  /** Reject everything still shown and not accepted. */
  settle(): void {
    this.cancelTimer();
    const rejected = this.shownPayloads;
    this.shownPayloads = [];
    for (const payload of rejected) this.reject(payload);
  }

  /** Forget everything without reports (the server is going away). */
  clear(): void {
    this.cancelTimer();
    this.shownPayloads = [];
  }

  get pending(): readonly unknown[] {
    return this.shownPayloads;
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
  }
}
