import { describe, expect, it } from 'vitest';
import { type Owner, ownerGone, ownerId, parseOwner } from '../../../src/gateway/tasks/task-owner.js';

/** Whether the process that ran a task is gone: pure, with the clock and the process table injected. */
const self: Owner = { host: 'box', pid: 100, nonce: 'now' };
const now = new Date('2026-03-01T10:00:00.000Z');
const later = new Date(now.getTime() + 10_000);
const earlier = new Date(now.getTime() - 1);
const check = (alive: readonly number[], here: readonly string[] = ['now']) => ({
  self,
  now,
  alive: (pid: number) => alive.includes(pid),
  here: (nonce: string) => here.includes(nonce),
});

describe('task owners', () => {
  it('round-trips an owner id, a host with slashes included', () => {
    const owner = { host: 'pod/a/b', pid: 42, nonce: 'x_Y-1' };
    expect(parseOwner(ownerId(owner))).toEqual(owner);
    for (const bad of ['', 'box', 'box/1', 'box/x/n', 'box/0/n', 'box/-3/n', '/1/n', 'box/1/']) {
      expect(parseOwner(bad), bad).toBeUndefined();
    }
  });

  it('sees an owner on this machine gone at once when its process is not there', () => {
    expect(ownerGone('box/200/old', later, check([]))).toBe('is no longer running');
    expect(ownerGone('box/200/old', later, check([200]))).toBeUndefined();
  });

  it('sees an earlier run of this very process (same pid, a nonce not living here) as restarted', () => {
    expect(ownerGone('box/100/before', later, check([100]))).toBe('was restarted');
  });

  it('sees another ledger living in this process as alive, whatever its lease', () => {
    expect(ownerGone('box/100/other', earlier, check([100], ['now', 'other']))).toBeUndefined();
  });

  it('judges an owner elsewhere by its lease alone', () => {
    expect(ownerGone('other/200/n', later, check([]))).toBeUndefined();
    expect(ownerGone('other/200/n', earlier, check([200]))).toBe('stopped renewing its lease on the task');
    expect(ownerGone('other/200/n', now, check([]))).toBe('stopped renewing its lease on the task');
    expect(ownerGone('not an owner id', undefined, check([]))).toBe('stopped renewing its lease on the task');
  });

  it('sees a live owner on this machine gone once its lease ran out (a pid taken by another process)', () => {
    expect(ownerGone('box/200/old', earlier, check([200]))).toBe('stopped renewing its lease on the task');
  });
});
