import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENT_ACCEPTED, FeedbackTracker, wrapAcceptCommands, type ItemWithCommand, type Timers } from '../../src/feedback';

const payload = (id: string) => ({ id, uri: 'file:///a.py', kind: 'inline', chars: 5 });
const item = (id: string): ItemWithCommand => ({ command: { title: 'accepted', command: 'redraft.accept', arguments: [payload(id)] } });

class FakeTimers implements Timers {
  pending = new Map<number, () => void>();
  private next = 0;
  set(callback: () => void): number {
    this.pending.set(++this.next, callback);
    return this.next;
  }
  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  fire(): void {
    const callbacks = [...this.pending.values()];
    this.pending.clear();
    callbacks.forEach((c) => c());
  }
}

function setup() {
  const rejected: unknown[] = [];
  const timers = new FakeTimers();
  const tracker = new FeedbackTracker((p) => rejected.push(p), 2000, timers);
  return { rejected, timers, tracker };
}

test('wrapAcceptCommands points redraft.accept at the client command and returns the payloads', () => {
  const items: ItemWithCommand[] = [item('a'), {}, { command: { title: 'other', command: 'x.y', arguments: [1] } }];
  assert.deepEqual(wrapAcceptCommands(items), [payload('a')]);
  assert.deepEqual(items[0].command, { title: 'accepted', command: CLIENT_ACCEPTED, arguments: [payload('a')] });
  assert.deepEqual(items[1], {});
  assert.equal(items[2].command?.command, 'x.y');
});

test('an item that was shown and not accepted is rejected when the next request comes', () => {
  const { rejected, tracker } = setup();
  tracker.shown([payload('a')]);
  assert.deepEqual(rejected, []);
  tracker.requested();
  assert.deepEqual(rejected, [payload('a')]);
  tracker.requested();
  assert.equal(rejected.length, 1, 'rejected once only');
});

test('an accepted item is never rejected (matched by id, the payload may be a copy)', () => {
  const { rejected, timers, tracker } = setup();
  tracker.shown([payload('a')]);
  tracker.documentChanged(); // accepting edits the document before the command runs
  tracker.accepted(JSON.parse(JSON.stringify(payload('a'))));
  timers.fire();
  tracker.requested();
  assert.deepEqual(rejected, []);
});

test('a document change rejects after the grace period, unless a request settles first', () => {
  const { rejected, timers, tracker } = setup();
  tracker.shown([payload('a')]);
  tracker.documentChanged();
  tracker.documentChanged();
  assert.equal(timers.pending.size, 1, 'one timer');
  assert.deepEqual(rejected, []);
  timers.fire();
  assert.deepEqual(rejected, [payload('a')]);

  tracker.shown([payload('b')]);
  tracker.documentChanged();
  tracker.requested();
  assert.equal(timers.pending.size, 0, 'the request cancelled the timer');
  assert.deepEqual(rejected, [payload('a'), payload('b')]);
});

test('new items settle the old ones; several items are tracked one by one', () => {
  const { rejected, tracker } = setup();
  tracker.shown([payload('a'), payload('b')]);
  tracker.accepted(payload('b'));
  tracker.shown([payload('c')]);
  assert.deepEqual(rejected, [payload('a')]);
  assert.deepEqual(tracker.pending, [payload('c')]);
});

test('nothing shown, nothing reported; clear() forgets without reporting', () => {
  const { rejected, timers, tracker } = setup();
  tracker.requested();
  tracker.documentChanged();
  assert.equal(timers.pending.size, 0);
  tracker.shown([payload('a')]);
  tracker.documentChanged();
  tracker.clear();
  timers.fire();
  tracker.requested();
  assert.deepEqual(rejected, []);
});
