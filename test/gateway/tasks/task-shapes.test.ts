import { describe, expect, it } from 'vitest';
import {
  createTaskResult,
  detailedTask,
  isTaskIdShaped,
  legacyPayload,
  legacyTask,
  modernTask,
  newTaskId,
} from '../../../src/gateway/tasks/task-shapes.js';
import type { StoredTask } from '../../../src/storage/ports.js';

/** One stored task in both eras' words (2025-11-25 core tasks, the 2026-07-28 Tasks extension). */
const base: StoredTask = {
  id: 'sbt-abc',
  principal: 'p',
  server: 's',
  tool: 't',
  kind: 'run',
  status: 'working',
  createdAt: new Date('2026-03-01T10:00:00.000Z'),
  updatedAt: new Date('2026-03-01T10:00:05.000Z'),
  expiresAt: new Date('2026-03-01T11:00:00.000Z'),
};
const view = { pollIntervalMs: 750 };
const ok = { content: [{ type: 'text' as const, text: 'done' }] };
const toolError = { content: [{ type: 'text' as const, text: 'bad input' }], isError: true };

describe('task shapes', () => {
  it('names the fields as each era does', () => {
    const times = { createdAt: '2026-03-01T10:00:00.000Z', lastUpdatedAt: '2026-03-01T10:00:05.000Z' };
    expect(legacyTask(base, view)).toEqual({
      taskId: 'sbt-abc',
      status: 'working',
      ...times,
      ttl: 3_600_000,
      pollInterval: 750,
    });
    expect(modernTask(base, view)).toEqual({
      taskId: 'sbt-abc',
      status: 'working',
      ...times,
      ttlMs: 3_600_000,
      pollIntervalMs: 750,
    });
    expect(createTaskResult(base, 'legacy', view)).toEqual({ task: legacyTask(base, view) });
    expect(createTaskResult(base, 'modern', view)).toEqual({ resultType: 'task', ...modernTask(base, view) });
  });

  it('inlines what a DetailedTask carries, by status', () => {
    const completed = { ...base, status: 'completed' as const, outcome: { result: ok } };
    expect(detailedTask(completed, view)).toMatchObject({ status: 'completed', result: ok });
    const failed = {
      ...base,
      status: 'failed' as const,
      outcome: { error: { code: -32603, message: 'boom' } },
    };
    expect(detailedTask(failed, view)).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'boom' },
    });
    const waiting = {
      ...base,
      status: 'input_required' as const,
      outcome: { inputRequests: { k: { method: 'x' } } },
    };
    expect(detailedTask(waiting, view)).toMatchObject({ inputRequests: { k: { method: 'x' } } });
    expect(detailedTask(base, view)).not.toHaveProperty('result');
    // A failed task that kept no error still says why, as an internal error.
    expect(detailedTask({ ...base, status: 'failed', statusMessage: 'lost' }, view).error).toEqual({
      code: -32603,
      message: 'lost',
    });
  });

  it('calls a tool error failed on 2025-11-25 and completed on the extension', () => {
    const task = { ...base, status: 'completed' as const, outcome: { result: toolError } };
    expect(legacyTask(task, view)).toMatchObject({ status: 'failed', statusMessage: 'bad input' });
    expect(modernTask(task, view)).toMatchObject({ status: 'completed' });
    expect(legacyPayload(task)).toEqual({
      result: { ...toolError, _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'sbt-abc' } } },
    });
  });

  it("gives 2025-11-25 tasks/result the call's error, or nothing for a cancelled task", () => {
    expect(
      legacyPayload({
        ...base,
        status: 'failed',
        outcome: { error: { code: -32001, message: 'x', data: 1 } },
      }),
    ).toEqual({
      error: { code: -32001, message: 'x', data: 1 },
    });
    expect(legacyPayload({ ...base, status: 'cancelled' })).toEqual({ cancelled: true });
  });

  it('reads a damaged outcome as none', () => {
    for (const outcome of [null, 'text', 42, { result: 'no' }, { error: { code: 'x' } }, []]) {
      const task = { ...base, status: 'completed' as const, outcome };
      expect(detailedTask(task, view)).not.toHaveProperty('result');
    }
  });

  it('makes ids of 128 random bits that look like its own', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newTaskId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) {
      expect(id).toMatch(/^sbt-[A-Za-z0-9_-]{22}$/);
      expect(isTaskIdShaped(id)).toBe(true);
    }
    expect(isTaskIdShaped('sbt1.x.y')).toBe(false);
    expect(isTaskIdShaped(`sbt-${'a'.repeat(100)}`)).toBe(false);
  });
});
