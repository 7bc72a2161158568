/**
 * Turns tool names, descriptions and queries into comparable terms. Identifiers are split the
 * way people read them (`read_text_file`, `list-directory`, `readTextFile`, `HTTPServer`,
 * `base64`), words are lowercased, a short list of function words is dropped, and a light
 * stemmer folds the common English inflections so "files", "listing" and "listed" meet
 * "file" and "list". It is deliberately small: no dictionary, no language detection.
 */

import { BoundedMemo } from '../../core/bounded-memo.js';

/**
 * Function words that carry no meaning for finding a tool: articles, pronouns, auxiliaries
 * and question words ("how do I …", "which files …"). Words such as "all", "new", "first",
 * "not", "each" or "more" can tell tools apart, so they stay.
 */
const STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'about',
  'am',
  'an',
  'and',
  'any',
  'are',
  'as',
  'at',
  'be',
  'been',
  'being',
  'by',
  'can',
  'could',
  'did',
  'do',
  'does',
  'doing',
  'for',
  'from',
  'had',
  'has',
  'have',
  'here',
  'how',
  'i',
  'if',
  'in',
  'into',
  'is',
  'it',
  'its',
  'just',
  'let',
  'me',
  'might',
  'must',
  'my',
  'of',
  'on',
  'or',
  'our',
  'please',
  'should',
  'so',
  'some',
  'such',
  'that',
  'the',
  'their',
  'them',
  'then',
  'there',
  'these',
  'this',
  'those',
  'to',
  'too',
  'us',
  'using',
  'very',
  'via',
  'want',
  'was',
  'we',
  'were',
  'what',
  'when',
  'where',
  'which',
  'who',
  'whose',
  'why',
  'will',
  'with',
  'would',
  'you',
  'your',
]);

/** Whether `word` (lowercase) is one of the function words the tokenizer drops. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

const VOWEL = /[aeiouy]/;
/**
 * Words whose silent `-e` stays: without it they would meet a common, unrelated word ("note"
 * would become "not", "plane" "plan", "site" "sit"). Their inflections keep it too ("notes",
 * "plates" → "plat" still, "notes" → "note"), since the rule runs after the plural goes.
 */
const KEEPS_E: ReadonlySet<string> = new Set([
  'note',
  'plane',
  'site',
  'bite',
  'cute',
  'hope',
  'rate',
  'fine',
  'wine',
  'tape',
  'pine',
]);
/** Doubled final consonants that an inflection added ("stopped" → "stop"), not "ll"/"ss". */
const UNDOUBLE = /([bdgmnprt])\1$/;

/**
 * The light stemmer, applied to lowercase letters-only words of four or more letters:
 *  1. plurals: `-ies` → `-y` ("entities" → "entity"); `-sses`, `-xes`, `-ches`, `-shes`,
 *     `-zes` lose `-es` ("matches" → "match"); any other final `-s` goes, except after `s`,
 *     `u` or `i` ("status", "analysis", "class" stay);
 *  2. `-ied` → `-y`; `-ed` and `-ing` go when a vowel is left in a stem of three or more
 *     letters ("string", "need" stay), and a doubled final consonant is undone;
 *  3. an adverb's `-ly` goes after `e`, `l`, `s` or `t` in words of six or more letters
 *     ("recursively" → "recursive", "directly" → "direct"; "apply", "family" stay);
 *  4. a final silent `-e` goes, so "save", "saves", "saved" and "saving" all become "sav".
 * The stems are not words; they only need to agree between catalog and query.
 */
export function stem(word: string): string {
  if (word.length < 4 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(sses|xes|ches|shes|zes)$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/[sui]s$/.test(w)) w = w.slice(0, -1);

  if (w.endsWith('ied') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('ed') && !w.endsWith('eed')) w = stripSuffix(w, 2);
  else if (w.endsWith('ing')) w = stripSuffix(w, 3);
  else if (w.length >= 6 && /[elst]ly$/.test(w)) w = w.slice(0, -2);

  if (w.length > 3 && w.endsWith('e') && !w.endsWith('ee') && !KEEPS_E.has(w)) w = w.slice(0, -1);
  return w;
}

function stripSuffix(word: string, length: number): string {
  const base = word.slice(0, -length);
  if (base.length < 3 || !VOWEL.test(base)) return word;
  return UNDOUBLE.test(base) ? base.slice(0, -1) : base;
}

/**
 * Splits camelCase and PascalCase runs and letter/digit boundaries: "getHTTPServer2" → get
 * HTTP Server 2. An acronym's plural stays one part, then loses its "s": "URLs" → URL, not
 * "UR" + "Ls".
 */
const PARTS = /\p{Lu}{2,}s(?!\p{Ll})|\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|[\p{Lo}\p{Lm}\p{M}]+/gu;
const ACRONYM_PLURAL = /^\p{Lu}{2,}s$/u;
const NO_TERMS: readonly string[] = [];

// Catalogs repeat the same words thousands of times; each distinct word is split and stemmed
// once. Bounded so a stream of unique queries cannot grow it without end.
const wordCache = new BoundedMemo<readonly string[]>(50_000);

/**
 * The terms of `text`, in order, duplicates kept (term frequency matters for ranking).
 * Anything that is not a letter or digit (of any script) separates words; mixed identifiers
 * are split into their parts, and a word mixing letters and digits ("k8s", "base64") is also
 * kept whole so it can be searched as written. One-letter words and stop words are dropped.
 */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  forEachWord(text, (word) => {
    for (const term of termsOfWord(word)) terms.push(term);
  });
  return terms;
}

/** Calls `visit` with each word of `text` (a run of letters and digits), in order. */
export function forEachWord(text: string, visit: (word: string) => void): void {
  // A fresh pattern per call: a shared global one would keep its position across calls.
  const word = /[\p{L}\p{N}\p{M}]+/gu;
  for (let match = word.exec(text); match !== null; match = word.exec(text)) visit(match[0]);
}

/** The terms of one word as {@link forEachWord} finds it; cached, so do not mutate the result. */
export function termsOfWord(word: string): readonly string[] {
  return wordCache.get(word) ?? wordCache.remember(word, wordToTerms(word));
}

function wordToTerms(word: string): readonly string[] {
  const parts = word.match(PARTS) ?? [];
  const terms: string[] = [];
  if (parts.length > 1 && /\p{N}/u.test(word) && /\p{L}/u.test(word)) add(terms, word.toLowerCase());
  for (const part of parts) add(terms, (ACRONYM_PLURAL.test(part) ? part.slice(0, -1) : part).toLowerCase());
  return terms.length === 0 ? NO_TERMS : terms;
}

function add(terms: string[], word: string): void {
  if (word.length < 2 && !/\p{N}/u.test(word)) return;
  if (STOP_WORDS.has(word)) return;
  terms.push(stem(word));
}
