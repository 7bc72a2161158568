import { forEachWord, termsOfWord } from './tokenize.js';

/**
 * People put the values a tool should get into what they ask: "how big is data.csv", "link
 * John to Globex", "go to https://example.com", "PR 42". Such words name the argument, not
 * the tool, and the catalog rarely holds them, so when it does ("data" is a parameter of
 * some tool, "John" of none) they pull the wrong tools up. This reads a query's words for
 * what they look like and says how much each may count:
 *  - a URL, a path or a file name counts for nothing, but says what kind of thing is meant:
 *    a URL, a file, and by its extension an image, audio, a PDF…;
 *  - a quoted string, a number, and a capitalised word inside the query (a name: "Charlie",
 *    "Denver") count for little; acronyms ("PDF", "SQL") and server names stay whole.
 */

/** What a value-like word still counts, 0…1. */
const NAME_WEIGHT = 0.3;
const NUMBER_WEIGHT = 0.3;
const QUOTED_WEIGHT = 0.3;

/** File extensions that say what kind of content is meant. */
const EXTENSION_KIND: Readonly<Record<string, string>> = {
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
  svg: 'image',
  bmp: 'image',
  mp3: 'audio',
  wav: 'audio',
  ogg: 'audio',
  flac: 'audio',
  mp4: 'video',
  mov: 'video',
  webm: 'video',
  pdf: 'pdf',
  csv: 'csv',
  json: 'json',
  md: 'markdown',
  yaml: 'yaml',
  yml: 'yaml',
};

const URL = /^(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S+$/i;
const HOST_PORT = /^[\w.-]+:\d{2,5}$/;
const PATH = /[/\\]|^~|^\.\.?$/;
const FILE_NAME = /^[\w.-]*\w\.([a-z0-9]{1,5})$/i;
const NUMBER = /^[#+-]?\d+(?:[.,:]\d+)*%?$/;

/** How a query's words are read: per term, what it may count; and the kinds it names. */
export interface QueryValues {
  /** Term (stem) → its weight, for terms that count less than 1. */
  readonly weights: ReadonlyMap<string, number>;
  /** Words the values stand for ("url", "file", "image"), to add as query words. */
  readonly kinds: readonly string[];
}

/**
 * Reads `query`'s value-like words. `keep(term)` tells a term that stays whole although it
 * looks like a name (a server's name, say).
 */
export function queryValues(query: string, keep: (term: string) => boolean): QueryValues {
  const weights = new Map<string, number>();
  const full = new Set<string>();
  const kinds = new Set<string>();
  const lower = (text: string, weight: number) =>
    forEachWord(text, (word) => {
      for (const term of termsOfWord(word))
        if (!keep(term)) weights.set(term, Math.min(weights.get(term) ?? 1, weight));
    });
  const whole = (text: string) =>
    forEachWord(text, (word) => {
      for (const term of termsOfWord(word)) full.add(term);
    });

  // Quoted strings first, then the rest token by token.
  const rest = query.replace(/"([^"]*)"|“([^”]*)”|'([^']{2,})'/g, (_, a, b, c) => {
    lower(a ?? b ?? c ?? '', QUOTED_WEIGHT);
    return ' ';
  });
  const tokens = rest.split(/\s+/).filter(Boolean);
  tokens.forEach((raw, i) => {
    const token = raw.replace(/^[([{<]+|[)\]}>,;!?]+$|[.:]$/g, '');
    if (token === '') return;
    if (URL.test(token)) {
      lower(token, 0);
      kinds.add('url');
    } else if (HOST_PORT.test(token)) {
      lower(token, 0);
      kinds.add('port');
    } else if (PATH.test(token) || FILE_NAME.test(token)) {
      lower(token, 0);
      const extension = FILE_NAME.exec(token)?.[1]?.toLowerCase();
      const kind = extension === undefined ? undefined : EXTENSION_KIND[extension];
      kinds.add(kind ?? 'file');
      if (kind !== undefined) kinds.add('file');
    } else if (NUMBER.test(token)) lower(token, NUMBER_WEIGHT);
    else if (i > 0 && /^\p{Lu}\p{Ll}/u.test(token)) lower(token, NAME_WEIGHT);
    else whole(token);
  });
  // A word also used plainly elsewhere in the query counts whole.
  for (const term of full) weights.delete(term);
  return { weights, kinds: [...kinds] };
}
