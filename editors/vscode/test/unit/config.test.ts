import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { changeAction, EFFORTS, isEffort, SERVER_KEYS, serverPayload, serverSettings, type ConfigReader } from '../../src/config';

interface Property { default?: unknown; enum?: string[]; minimum?: number; maximum?: number }
const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const properties: Record<string, Property> = manifest.contributes.configuration.properties;

/** A ConfigReader over `redraft.*` values: user values over package.json defaults (as VS Code does). */
function reader(user: Record<string, unknown> = {}): ConfigReader {
  return {
    get<T>(key: string): T | undefined {
      if (key in user) return user[key] as T;
      return properties[`redraft.${key}`]?.default as T | undefined;
    },
  };
}

test('every server key is a contributed setting, and every other setting is nextEdit.enabled, server.* or trace.*', () => {
  const contributed = Object.keys(properties).map((k) => k.replace(/^redraft\./, ''));
  for (const key of SERVER_KEYS) assert.ok(contributed.includes(key), `redraft.${key} missing from package.json`);
  const clientOnly = contributed.filter((k) => !(SERVER_KEYS as readonly string[]).includes(k)).sort();
  assert.deepEqual(clientOnly, ['nextEdit.enabled', 'server.args', 'server.path', 'trace.server']);
});

test('defaults become the initializationOptions the server expects', () => {
  assert.deepEqual(serverPayload(reader()), {
    redraft: {
      enabled: true,
      modelDir: null,
      device: 'auto',
      precision: 'auto',
      effort: 'low',
      maxTokens: 32,
      contextTokens: 0,
      contextRefresh: 4,
      enabledLanguages: ['python'],
      syntax: true,
      workspaceIndex: true,
      workspaceMaxFiles: 5000,
      workspaceMaxFileKb: 512,
      snippetTokens: -1,
      preloadModel: true,
      applyDeleteUnmarked: true,
      gate: 'auto',
      backend: null,
      threads: 0,
      feedbackFile: null,
    },
  });
});

test('user values are sent under their camelCase keys, client-only settings are not', () => {
  const sent = serverSettings(reader({
    enabled: false, modelDir: '/models/mine', device: 'cuda', precision: 'int8', effort: 'max', maxTokens: 200, contextTokens: 1024,
    enabledLanguages: ['*'], syntax: false, threads: 3, feedbackFile: '/tmp/fb.jsonl',
    'server.path': '/opt/redraft', 'server.args': ['--log-level', 'INFO'], 'trace.server': 'verbose',
  }));
  assert.deepEqual(Object.keys(sent), [...SERVER_KEYS]);
  assert.equal(sent.effort, 'max');
  assert.equal(sent.maxTokens, 200);
  assert.deepEqual(sent.enabledLanguages, ['*']);
  assert.equal(sent.enabled, false);
  assert.equal(sent.modelDir, '/models/mine');
  assert.equal(sent.feedbackFile, '/tmp/fb.jsonl');
  for (const key of Object.keys(sent)) assert.doesNotMatch(key, /^(server|trace)|_|\./);
});

test('null, blank and missing paths are sent as null; other values pass unchanged for the server to check', () => {
  assert.equal(serverSettings(reader({ modelDir: '   ' })).modelDir, null);
  assert.equal(serverSettings(reader({ modelDir: undefined })).modelDir, null);
  assert.equal(serverSettings(reader({ feedbackFile: ' ~/fb.jsonl ' })).feedbackFile, '~/fb.jsonl');
  assert.equal(serverSettings(reader({ feedbackFile: 7 })).feedbackFile, 7);
  assert.equal(serverSettings(reader({ maxTokens: 999 })).maxTokens, 999);
  const empty = serverSettings({ get: () => undefined });
  assert.deepEqual(empty, { modelDir: null, feedbackFile: null }, 'keys without a value are left out');
});

test('the backend object is sent as it is, and null leaves the choice to the server', () => {
  const backend = { kind: 'ollama', model: 'qwen2.5-coder:1.5b', timeoutMs: 2000, requestBody: { options: { num_ctx: 4096 } } };
  assert.deepEqual(serverSettings(reader({ backend })).backend, backend);
  assert.equal(serverSettings(reader()).backend, null);
  const schema = properties['redraft.backend'] as Property & { properties: Record<string, Property> };
  assert.deepEqual(schema.properties.kind.enum, ['local', 'redraft', 'mercury', 'openai-completions', 'llama.cpp', 'ollama']);
  assert.ok(!('apiKey' in schema.properties), 'the key itself is never a setting');
  assert.equal(changeAction((s) => s === 'redraft.backend'), 'settings');
});

test('the manifest limits match the server', () => {
  assert.deepEqual(properties['redraft.effort'].enum, [...EFFORTS]);
  assert.deepEqual(properties['redraft.device'].enum, ['auto', 'cpu', 'cuda']);
  assert.deepEqual(properties['redraft.precision'].enum, ['auto', 'fp32', 'bf16', 'int8']);
  assert.deepEqual(properties['redraft.trace.server'].enum, ['off', 'messages', 'verbose']);
  const range = (k: string) => [properties[`redraft.${k}`].minimum, properties[`redraft.${k}`].maximum];
  assert.deepEqual(range('maxTokens'), [1, 256]);
  assert.deepEqual(range('contextTokens'), [0, 4096]);
  assert.deepEqual(range('threads'), [0, 256]);
  assert.equal(properties['redraft.server.path'].default, 'redraft');
  assert.deepEqual(properties['redraft.server.args'].default, []);
});

test('configuration changes: server.* restarts, server keys are sent, trace is left to the client', () => {
  const affects = (...changed: string[]) => (section: string) =>
    changed.some((c) => c === section || c.startsWith(`${section}.`) || section.startsWith(`${c}.`));
  assert.equal(changeAction(affects('redraft.server.path')), 'restart');
  assert.equal(changeAction(affects('redraft.server.args', 'redraft.effort')), 'restart');
  assert.equal(changeAction(affects('redraft.effort')), 'settings');
  assert.equal(changeAction(affects('redraft.enabledLanguages')), 'settings');
  assert.equal(changeAction(affects('redraft.trace.server')), 'none');
  assert.equal(changeAction(affects('editor.fontSize')), 'none');
});

test('isEffort', () => {
  assert.ok(isEffort('medium'));
  assert.ok(!isEffort('Medium'));
  assert.ok(!isEffort(undefined));
});
