// Helpers for run.mjs: the timeline, time-limited waits, and code-server as a child process.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';

const t0 = Date.now();
export const timings = {};
export const log = (msg) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);

/** Logs a step and records when it ended, in seconds since the start. */
export function mark(name, detail = '') {
  timings[name] = +((Date.now() - t0) / 1000).toFixed(1);
  log(detail ? `${name}: ${detail}` : name);
}

export function fail(msg) {
  throw new Error(msg);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` (sync or async) until it is truthy; fails after `ms` naming `what`. */
export async function waitFor(check, ms, what) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await check();
    if (value) return value;
    await sleep(200);
  }
  fail(`timed out after ${ms / 1000} s waiting for ${what}`);
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** code-server's common arguments: its own config file, extensions and user data in `dirs`. */
const common = (dirs) => ['--config', dirs.config, '--extensions-dir', dirs.ext, '--user-data-dir', dirs.user];

export function installExtension(codeServer, dirs, vsix, ms) {
  const r = spawnSync(codeServer, [...common(dirs), '--install-extension', vsix], { encoding: 'utf8', timeout: ms });
  if (r.status !== 0 || !/successfully installed/.test(r.stdout)) {
    fail(`installing ${vsix} failed (exit ${r.status}${r.error ? `, ${r.error.message}` : ''}):\n${r.stdout}\n${r.stderr}`);
  }
}

/** Starts code-server in its own process group (so that stopping it also ends the redraft server). */
export async function startCodeServer(codeServer, dirs, workspace, ms) {
  const port = await freePort();
  const args = [...common(dirs), '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry',
    '--disable-update-check', '--disable-workspace-trust', workspace];
  // VSCODE_CLI=1: the extension host keeps this environment instead of a login shell's (PATH)
  const child = spawn(codeServer, args, { env: { ...process.env, VSCODE_CLI: '1' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks = [];
  child.stdout.on('data', (d) => chunks.push(d));
  child.stderr.on('data', (d) => chunks.push(d));
  child.output = () => Buffer.concat(chunks).toString();
  child.url = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (child.exitCode !== null) fail(`code-server exited (${child.exitCode}):\n${child.output()}`);
    return (await fetch(`${child.url}/healthz`).catch(() => null))?.ok;
  }, ms, 'code-server to answer /healthz');
  return child;
}

export async function stopCodeServer(child) {
  if (!child || child.exitCode !== null) return;
  try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
  await Promise.race([new Promise((resolve) => child.once('exit', resolve)), sleep(5000)]);
  try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
}

/** The tails of the extension host's logs (the redraft output channel, with the server's stderr). */
export function extensionLogs(userDataDir, lines = 120) {
  const found = [];
  const walk = (dir) => {
    for (const e of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.log') && /exthost/.test(p)) found.push(p);
    }
  };
  walk(path.join(userDataDir, 'logs'));
  return found.map((p) => `----- ${p}\n${readFileSync(p, 'utf8').split('\n').slice(-lines).join('\n')}`).join('\n');
}
