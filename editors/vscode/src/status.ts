// What the status bar item says. No `vscode` import: tested directly.
//
// The server sends `redraft/status` {state: "loading" | "ready" | "failed", message, effort, enabled}
// when the model starts loading, is ready or failed, and after every settings change, but only to
// clients that announce `capabilities.experimental.redraftStatus = true`. Before the first one
// (or with a server that never sends it) the item shows the effort from the settings.

export type Phase =
  | 'starting' // the client is starting the server
  | 'running' // the server runs; no redraft/status yet
  | 'loading' // the model is loading
  | 'ready'
  | 'failed' // the model failed to load (message from the server)
  | 'error' // the server could not be started or stopped unexpectedly
  | 'stopped'; // the client was stopped on purpose

export interface Status {
  phase: Phase;
  message: string;
  effort: string;
  enabled: boolean;
}

export interface StatusView {
  text: string;
  tooltip: string;
  error: boolean;
}

const SERVER_STATES: Record<string, Phase> = { loading: 'loading', ready: 'ready', failed: 'failed' };

/** `status` updated with the params of a redraft/status notification (malformed fields are ignored). */
export function applyNotification(status: Status, params: unknown): Status {
  if (params === null || typeof params !== 'object') return status;
  const p = params as Record<string, unknown>;
  const phase = typeof p.state === 'string' ? SERVER_STATES[p.state] : undefined;
  return {
    phase: phase ?? status.phase,
    message: typeof p.message === 'string' ? p.message : phase ? '' : status.message,
    effort: typeof p.effort === 'string' && p.effort ? p.effort : status.effort,
    enabled: typeof p.enabled === 'boolean' ? p.enabled : status.enabled,
  };
}

export function statusView(s: Status): StatusView {
  const click = s.enabled ? 'Click to turn suggestions off.' : 'Click to turn suggestions on.';
  const detail = s.message ? `\n${s.message}` : '';
  switch (s.phase) {
    case 'error':
    case 'failed':
      return {
        text: '$(error) redraft: error',
        tooltip: `redraft: ${s.phase !== 'failed' ? 'the server is not running'
          : s.message?.startsWith('backend') ? 'the model backend does not answer' : 'the model failed to load'}${detail}`,
        error: true,
      };
    case 'stopped':
      return { text: '$(debug-stop) redraft: stopped', tooltip: 'redraft: the server is stopped. Run "redraft: Restart Server".', error: false };
    default:
      break;
  }
  if (!s.enabled) return { text: '$(circle-slash) redraft: off', tooltip: `redraft: suggestions are off.${detail}\n${click}`, error: false };
  switch (s.phase) {
    case 'starting':
      return { text: '$(loading~spin) redraft: starting', tooltip: `redraft: starting the server…\n${click}`, error: false };
    case 'loading':
      return { text: '$(loading~spin) redraft: loading', tooltip: `redraft: loading the model…${detail}\n${click}`, error: false };
    default: // running, ready
      return {
        text: `redraft: ${s.effort}`,
        tooltip: `redraft: ${s.phase === 'ready' ? 'model ready' : 'server running'}, effort ${s.effort}.${detail}\n${click}`,
        error: false,
      };
  }
}
