// Settings -> what the server receives. No `vscode` import: tested directly (test/unit).
//
// The server reads `{"redraft": {camelCaseKey: value}}` both as initializationOptions and as
// workspace/didChangeConfiguration settings (merged: absent keys keep their value). It logs keys it
// does not know, so only the server's own keys are sent: never `server.*` (how the client starts
// the server) nor `trace.*` (read by vscode-languageclient itself).

/** The server's settings, in the order of the `redraft.*` settings in package.json. */
export const SERVER_KEYS = [
  'enabled',
  'modelDir',
  'device',
  'precision',
  'effort',
  'maxTokens',
  'contextTokens',
  'contextRefresh',
  'enabledLanguages',
  'syntax',
  'workspaceIndex',
  'workspaceMaxFiles',
  'workspaceMaxFileKb',
  'snippetTokens',
  'preloadModel',
  'applyDeleteUnmarked',
  'gate',
  'backend',
  'threads',
  'feedbackFile',
] as const;

export type ServerKey = (typeof SERVER_KEYS)[number];
export type ServerSettings = Partial<Record<ServerKey, unknown>>;

export const EFFORTS = ['instant', 'low', 'medium', 'high', 'max'] as const;
export type Effort = (typeof EFFORTS)[number];
export const EFFORT_DETAILS: Record<Effort, string> = {
  instant: 'at most 2 denoising steps: fastest, roughest',
  low: 'at most 4 steps: the typing-latency target (default)',
  medium: 'at most 8 steps',
  high: 'medium plus 8 reranked candidates (about 4x the time of low on a CPU)',
  max: 'one token per step plus 32 reranked candidates: best, slowest',
};

/**
 * `backend` is an object (or null: the `redraft serve --backend` flags, else the local model); it is
 * sent as it is, and the server checks it (an object replaces the whole backend). The API key is
 * never in it: `apiKeyEnv` names the server's environment variable that holds the key.
 */

/** Keys whose empty value means "use the server's default" (sent as null). */
const OPTIONAL_PATHS: ReadonlySet<ServerKey> = new Set(['modelDir', 'feedbackFile']);

/** The part of vscode.WorkspaceConfiguration this module needs (section "redraft"). */
export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

/**
 * The server settings from the `redraft` configuration section. Values are passed on as they are
 * (the server validates them and reports bad ones); `modelDir` and `feedbackFile` that are unset,
 * null or blank become null; other keys without any value are left out (the server keeps its own).
 */
export function serverSettings(config: ConfigReader): ServerSettings {
  const out: ServerSettings = {};
  for (const key of SERVER_KEYS) {
    const value = OPTIONAL_PATHS.has(key) ? optionalPath(config.get<unknown>(key)) : config.get<unknown>(key);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function optionalPath(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return value; // the server reports it as invalid
  return value.trim() === '' ? null : value.trim();
}

/** initializationOptions and didChangeConfiguration settings share this shape. */
export function serverPayload(config: ConfigReader): { redraft: ServerSettings } {
  return { redraft: serverSettings(config) };
}

/**
 * What a configuration change asks for: `affects` is ConfigurationChangeEvent.affectsConfiguration.
 * `redraft.server.*` changes how the server is started (restart it); a server key is sent to the
 * running server; anything else (`redraft.trace.server`) is the client's business.
 */
export function changeAction(affects: (section: string) => boolean): 'restart' | 'settings' | 'none' {
  if (affects('redraft.server')) return 'restart';
  if (SERVER_KEYS.some((key) => affects(`redraft.${key}`))) return 'settings';
  return 'none';
}

export function isEffort(value: unknown): value is Effort {
  return typeof value === 'string' && (EFFORTS as readonly string[]).includes(value);
}
