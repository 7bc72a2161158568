import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type Store } from '../../src/storage/index.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe('audit repository (batched appends)', () => {
  it('gives appends made together increasing ids in the order they were made', async () => {
    store = await openSqliteStore({ memory: true });
    const { audit } = store;
    const ids = await Promise.all(
      Array.from({ length: 300 }, (_, i) => audit.append({ action: 'tool_call', outcome: `n${i}` })),
    );
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(300);
    const page = await audit.query({ limit: 1000 });
    const byId = new Map(page.entries.map((e) => [e.id, e.outcome]));
    expect(ids.map((id) => byId.get(id))).toEqual(ids.map((_, i) => `n${i}`));
  });

  it('lets a query see appends that nobody waited for', async () => {
    store = await openSqliteStore({ memory: true });
    const { audit } = store;
    void audit.append({ action: 'first' });
    void audit.append({ action: 'second', details: { n: 2 } });
    const { entries } = await audit.query();
    expect(entries.map((e) => [e.action, e.details])).toEqual([
      ['second', { n: 2 }],
      ['first', undefined],
    ]);
  });

  it('refuses details that are no JSON to their caller alone', async () => {
    store = await openSqliteStore({ memory: true });
    const { audit } = store;
    const good = audit.append({ action: 'good' });
    const bad = audit.append({ action: 'bad', details: { n: 1n } });
    await expect(bad).rejects.toMatchObject({ code: 'STORAGE_FAILED' });
    expect(await good).toBeGreaterThan(0);
    expect((await audit.query()).entries.map((e) => e.action)).toEqual(['good']);
  });
});
