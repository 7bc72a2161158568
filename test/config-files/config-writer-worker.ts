/**
 * A second process for the config-file lock tests. Modes:
 * - `add <file> <prefix> <count>`: adds `<prefix>-0` … `<prefix>-<count-1>` one write at a
 *   time (each a read-modify-write of the file), printing `added <name>` after each.
 * - `rewrite <file> <size> <first>`: replaces the entry "big" again and again with a
 *   description of `size` characters naming its generation, printing `wrote <generation>`
 *   after each, until killed (or 100 000 writes).
 */
import { writeServerEntries } from '../../src/config-files/write-entries.js';

const [mode, file, ...rest] = process.argv.slice(2);

if (mode === 'add') {
  const prefix = rest[0]!;
  const count = Number(rest[1]);
  for (let i = 0; i < count; i++) {
    const name = `${prefix}-${i}`;
    await writeServerEntries(file!, [{ name, command: 'node', args: [`${name}.js`] }]);
    process.stdout.write(`added ${name}\n`);
  }
} else if (mode === 'rewrite') {
  const size = Number(rest[0]);
  const first = Number(rest[1]);
  for (let generation = first; generation < first + 100_000; generation++) {
    const description = `g${generation}-`.padEnd(size, String.fromCharCode(97 + (generation % 26)));
    await writeServerEntries(file!, [{ name: 'big', command: 'node', description }]);
    process.stdout.write(`wrote ${generation}\n`);
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
