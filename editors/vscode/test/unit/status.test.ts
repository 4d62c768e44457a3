import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyNotification, statusView, type Status } from '../../src/status';

const base: Status = { phase: 'starting', message: '', effort: 'low', enabled: true };

test('before any redraft/status the item shows starting, then the effort', () => {
  assert.equal(statusView(base).text, '$(loading~spin) redraft: starting');
  assert.equal(statusView({ ...base, phase: 'running' }).text, 'redraft: low');
});

test('the server states: loading, ready with the effort, failed with the message', () => {
  let s = applyNotification(base, { state: 'loading', message: 'loading model/weights', effort: 'medium', enabled: true });
  assert.equal(statusView(s).text, '$(loading~spin) redraft: loading');
  assert.match(statusView(s).tooltip, /loading model\/weights/);
  s = applyNotification(s, { state: 'ready', message: '', effort: 'medium', enabled: true });
  assert.equal(statusView(s).text, 'redraft: medium');
  s = applyNotification(s, { state: 'failed', message: 'no checkpoint in /x', effort: 'medium', enabled: true });
  const view = statusView(s);
  assert.equal(view.error, true);
  assert.equal(view.text, '$(error) redraft: error');
  assert.match(view.tooltip, /no checkpoint in \/x/);
  assert.match(view.tooltip, /the model failed to load/);
  s = applyNotification(s, { state: 'failed', message: 'backend unreachable: connection refused', effort: 'medium', enabled: true });
  assert.match(statusView(s).tooltip, /the model backend does not answer\nbackend unreachable: connection refused/);
});

test('disabled shows off; errors still win', () => {
  const off = applyNotification({ ...base, phase: 'ready' }, { state: 'ready', message: '', effort: 'low', enabled: false });
  assert.equal(statusView(off).text, '$(circle-slash) redraft: off');
  assert.match(statusView(off).tooltip, /turn suggestions on/);
  assert.equal(statusView({ ...off, phase: 'error', message: 'redraft: cannot start' }).error, true);
});

test('malformed notifications change nothing they do not carry', () => {
  const ready: Status = { phase: 'ready', message: 'm', effort: 'high', enabled: true };
  assert.deepEqual(applyNotification(ready, null), ready);
  assert.deepEqual(applyNotification(ready, 'ready'), ready);
  assert.deepEqual(applyNotification(ready, { state: 'exploded', effort: 3, enabled: 'yes' }), ready);
  assert.deepEqual(applyNotification(ready, { effort: 'max' }), { ...ready, effort: 'max' });
});
