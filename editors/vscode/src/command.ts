// How the server is started: `redraft.server.path` + `serve` + `redraft.server.args`.
// No `vscode` import: tested directly (test/unit).
import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';

export interface ServerCommand {
  command: string; // absolute path of the executable
  args: string[];
}

/** The executable cannot be found or run: `message` says what to do (no stack trace needed). */
export class ServerCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerCommandError';
  }
}

export interface ResolveOptions {
  env?: NodeJS.ProcessEnv; // PATH (and PATHEXT on Windows) come from here
  cwd?: string; // relative paths such as `.venv/bin/redraft` are resolved against it (the workspace)
  platform?: NodeJS.Platform;
}

export const DEFAULT_SERVER_PATH = 'redraft';

const HOW_TO_FIX =
  'Install redraft (`make setup` in a redraft checkout creates .venv/bin/redraft) and put its ' +
  '`redraft` executable on PATH, or set the setting `redraft.server.path` to the absolute path of ' +
  'the executable, e.g. /path/to/redraft/.venv/bin/redraft.';

/**
 * The command line for the server. `setting` is `redraft.server.path`: a bare name is looked up on
 * PATH, `~/…` is relative to the home directory, other relative paths to `cwd`, absolute paths are
 * used as they are. `extraArgs` is `redraft.server.args`, appended after `serve`.
 * Throws ServerCommandError with a message for the user when the executable is missing.
 */
export function resolveServerCommand(setting: unknown, extraArgs: unknown, opts: ResolveOptions = {}): ServerCommand {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const args = checkArgs(extraArgs);
  const wanted = typeof setting === 'string' && setting.trim() !== '' ? setting.trim() : DEFAULT_SERVER_PATH;

  let found: string | undefined;
  if (wanted.startsWith('~/') || wanted === '~') {
    found = executable(path.join(homedir(), wanted.slice(1)), platform, env);
  } else if (path.isAbsolute(wanted)) {
    found = executable(wanted, platform, env);
  } else if (wanted.includes('/') || wanted.includes(path.sep)) {
    if (opts.cwd) found = executable(path.resolve(opts.cwd, wanted), platform, env);
  } else {
    for (const dir of (env.PATH ?? '').split(path.delimiter)) {
      if (dir && (found = executable(path.join(dir, wanted), platform, env))) break;
    }
  }
  if (!found) {
    const where = path.isAbsolute(wanted) || wanted.includes('/')
      ? `"${wanted}" does not exist or is not executable`
      : `"${wanted}" was not found on PATH`;
    throw new ServerCommandError(`redraft: cannot start the language server: ${where}. ${HOW_TO_FIX}`);
  }
  return { command: found, args: ['serve', ...args] };
}

function checkArgs(extraArgs: unknown): string[] {
  if (extraArgs === undefined || extraArgs === null) return [];
  if (!Array.isArray(extraArgs) || !extraArgs.every((a) => typeof a === 'string')) {
    throw new ServerCommandError(
      `redraft: the setting redraft.server.args must be a list of strings, e.g. ["--log-level", "INFO"]; got ${JSON.stringify(extraArgs)}.`,
    );
  }
  return extraArgs;
}

/** `file` (or, on Windows, file + one of PATHEXT) if it is an executable regular file. */
function executable(file: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string | undefined {
  const candidates = platform === 'win32'
    ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')].map((ext) => file + ext.toLowerCase())
    : [file];
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      if (platform !== 'win32') accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // missing or not executable: try the next one
    }
  }
  return undefined;
}
