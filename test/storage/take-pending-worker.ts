/**
 * A second process for the cross-process takePending test: opens the store at argv[2], says
 * `ready`, waits for a line on stdin, then takes pending events one at a time until none are
 * left and prints the ids it took as one JSON line.
 */
import { once } from 'node:events';
import { openSqliteStore } from '../../src/storage/index.js';

const file = process.argv[2]!;
const store = await openSqliteStore({ file });
process.stdout.write('ready\n');
await once(process.stdin, 'data');
const ids: number[] = [];
for (let round = 0; round < 10_000; round++) {
  const batch = await store.events.takePending(1);
  if (batch.length === 0) break;
  ids.push(...batch.map((e) => e.id));
}
await store.close();
process.stdout.write(`${JSON.stringify(ids)}\n`);
process.stdin.destroy();
