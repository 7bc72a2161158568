/**
 * Spellings that a model reads as plain words but a phrase pattern does not: leetspeak
 * ("1gn0r3 pr3v10u5 1n5truct10n5"), letters spaced or dotted apart ("i g n o r e",
 * "d.i.s.r.e.g.a.r.d") and accents put on every letter ("ïgnörë"). Each function returns the
 * plain spelling when the text has that obfuscation, or `undefined` (most text has none, and
 * costs one regular-expression test). The plain spelling is only read by the detectors, never
 * shown: excerpts come from the form that matched.
 */

const LEET: Readonly<Record<string, string>> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '9': 'g',
  '@': 'a',
  $: 's',
  '!': 'i',
  '|': 'l',
};
const WORD = /[\w@$!|]{3,}/g;
const HAS_LEET = /[A-Za-z][0134579@$!|]|[0134579@$!|][A-Za-z]/;

/**
 * The text with leet words spelled out, when at least two words were leet (one `v2` or `mp3`
 * is a version, not a disguise). A word whose spelled-out form still holds digits, or that
 * starts with `$` (a `$set` operator), is kept.
 */
export function unleet(text: string): string | undefined {
  if (!HAS_LEET.test(text)) return undefined;
  let changed = 0;
  const out = text.replace(WORD, (word) => {
    // Sentence punctuation after a word ("now!") is not part of it.
    const core = word.replace(/[!|@$]+$/, '');
    if (core.startsWith('$') || !/[A-Za-z]/.test(core)) return word;
    const plain = core.replace(/[0134579@$!|]/g, (c) => LEET[c] ?? c);
    if (plain === core || /[^A-Za-z_]/.test(plain)) return word;
    changed++;
    return plain + word.slice(core.length);
  });
  return changed >= 2 ? out : undefined;
}

/** Three or more single letters joined by one repeated separator: "i g n o r e", "i.g.n.o.r.e". */
const SPACED = /(?<![A-Za-z])[A-Za-z](?<sep>[ .\-_*·•/])(?:[A-Za-z]\k<sep>)+[A-Za-z](?![A-Za-z])/g;
const HAS_SPACED =
  /(?<![A-Za-z])[A-Za-z][ .\-_*·•/][A-Za-z][ .\-_*·•/][A-Za-z][ .\-_*·•/][A-Za-z](?![A-Za-z])/;

/** The text with runs of spaced-apart letters joined into words (a wider gap separates words). */
export function joinSpacedLetters(text: string): string | undefined {
  if (!HAS_SPACED.test(text)) return undefined;
  const out = text.replace(SPACED, (run) => run.replace(/[^A-Za-z]/g, ''));
  if (out === text) return undefined;
  // What separated the joined words (three spaces, or a space between dotted words) is one space now.
  return out.replace(/ {2,}/g, ' ');
}

const LATIN_WITH_MARK = /[A-Za-z][\u0300-\u036F]/;

/**
 * The text without the accents on Latin letters (`text` in NFKC): "ïgnörë" reads "ignore".
 * Marks on other scripts are kept: they are part of the letter (a Devanagari vowel sign).
 */
export function stripLatinAccents(text: string): string | undefined {
  if (!/[\u00C0-\u024F\u1E00-\u1EFF]/.test(text)) return undefined;
  const decomposed = text.normalize('NFD');
  if (!LATIN_WITH_MARK.test(decomposed)) return undefined;
  return decomposed.replace(/([A-Za-z])[\u0300-\u036F]+/g, '$1').normalize('NFC');
}
