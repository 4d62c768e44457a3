import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { resolveServerCommand, ServerCommandError } from '../../src/command';

const root = mkdtempSync(path.join(tmpdir(), 'redraft-cmd-'));
function file(rel: string, mode: number): string {
  const p = path.join(root, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, '#!/bin/sh\n');
  chmodSync(p, mode);
  return p;
}
const venvRedraft = file('venv/bin/redraft', 0o755);
const notExecutable = file('plain/redraft', 0o644);
const onPath = file('path-b/redraft', 0o755);
mkdirSync(path.join(root, 'path-a/redraft'), { recursive: true }); // a directory is no executable

test('an absolute path is used as it is, with serve and the extra args', () => {
  assert.deepEqual(resolveServerCommand(venvRedraft, ['--log-level', 'INFO'], { env: { PATH: '' } }), {
    command: venvRedraft,
    args: ['serve', '--log-level', 'INFO'],
  });
});

test('the default name is looked up on PATH (first executable file wins)', () => {
  const env = { PATH: [path.join(root, 'nowhere'), path.join(root, 'plain'), path.join(root, 'path-a'), path.join(root, 'path-b')].join(path.delimiter) };
  assert.deepEqual(resolveServerCommand(undefined, undefined, { env }), { command: onPath, args: ['serve'] });
  assert.deepEqual(resolveServerCommand('  ', [], { env }), { command: onPath, args: ['serve'] });
  assert.deepEqual(resolveServerCommand('redraft', null, { env }), { command: onPath, args: ['serve'] });
});

test('relative paths resolve against the workspace folder', () => {
  assert.equal(resolveServerCommand('venv/bin/redraft', [], { cwd: root, env: {} }).command, venvRedraft);
  assert.throws(() => resolveServerCommand('venv/bin/redraft', [], { env: {} }), ServerCommandError);
});

test('~ is the home directory', () => {
  assert.throws(() => resolveServerCommand('~/no-such-dir-for-redraft/redraft', [], { env: {} }),
    (e: Error) => e.message.includes('~/no-such-dir-for-redraft/redraft'));
  assert.ok(homedir());
});

test('a missing executable gives a clear message that names the setting and how to install', () => {
  for (const [setting, where] of [
    ['redraft', '"redraft" was not found on PATH'],
    [path.join(root, 'missing/redraft'), 'does not exist or is not executable'],
    [notExecutable, 'does not exist or is not executable'],
  ]) {
    assert.throws(() => resolveServerCommand(setting, [], { env: { PATH: path.join(root, 'plain') } }), (e: unknown) => {
      assert.ok(e instanceof ServerCommandError, 'a ServerCommandError');
      assert.ok(e.message.includes(where), e.message);
      assert.ok(e.message.includes('redraft.server.path'), e.message);
      assert.ok(/install redraft/i.test(e.message), e.message);
      return true;
    });
  }
});

test('server.args must be a list of strings', () => {
  for (const bad of ['--log-level INFO', [1], [null], {}]) {
    assert.throws(() => resolveServerCommand(venvRedraft, bad, {}),
      (e: unknown) => e instanceof ServerCommandError && e.message.includes('redraft.server.args'));
  }
});

test('Windows: PATHEXT extensions are tried', () => {
  const exe = file('win/redraft.exe', 0o644);
  assert.equal(resolveServerCommand('redraft', [], { platform: 'win32', env: { PATH: path.dirname(exe), PATHEXT: '.COM;.EXE' } }).command, exe);
});
