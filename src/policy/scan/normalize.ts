import { joinSpacedLetters, stripLatinAccents, unleet } from './deobfuscate.js';
import { stripHidden } from './hidden-unicode.js';

/**
 * The forms of a text that the phrase detectors read. Hidden characters are removed (a
 * zero-width space inside "ig​nore" must not split the word), compatibility forms are folded by
 * NFKC (fullwidth "ｉｇｎｏｒｅ", mathematical "𝐢𝐠𝐧𝐨𝐫𝐞") and the Cyrillic and Greek letters
 * that look like Latin ones are mapped to them ("ignоre" with a Cyrillic о). When the text had
 * hidden characters a second form replaces them with spaces instead, for the case where they
 * stood between words. Identifiers (tool and property names) are split into words. A text
 * written in another script is also read as written (NFKC only), for the detectors of other
 * languages; obfuscated spellings (leetspeak, spaced letters, accents on every letter, see
 * `deobfuscate.ts`) add their plain spelling.
 */
const CONFUSABLES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  ѕ: 's',
  т: 't',
  у: 'y',
  х: 'x',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  һ: 'h',
  ӏ: 'l',
  А: 'A',
  В: 'B',
  Е: 'E',
  І: 'I',
  Ј: 'J',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Ѕ: 'S',
  Т: 'T',
  Х: 'X',
  α: 'a',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  ϲ: 'c',
  ϳ: 'j',
  // Latin small capitals and IPA letters that read as ordinary ones.
  ᴀ: 'a',
  ʙ: 'b',
  ᴄ: 'c',
  ᴅ: 'd',
  ᴇ: 'e',
  ꜰ: 'f',
  ɢ: 'g',
  ʜ: 'h',
  ɪ: 'i',
  ᴊ: 'j',
  ᴋ: 'k',
  ʟ: 'l',
  ᴍ: 'm',
  ɴ: 'n',
  ᴏ: 'o',
  ᴘ: 'p',
  ʀ: 'r',
  ꜱ: 's',
  ᴛ: 't',
  ᴜ: 'u',
  ᴠ: 'v',
  ᴡ: 'w',
  ʏ: 'y',
  ᴢ: 'z',
  ı: 'i',
  ȷ: 'j',
  ɑ: 'a',
  ɡ: 'g',
  ɩ: 'i',
  // Armenian letters shaped like Latin ones.
  օ: 'o',
  ս: 'u',
  հ: 'h',
  ո: 'n',
  ց: 'g',
  ք: 'p',
};
const CONFUSABLE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'gu');
const NON_ASCII = /[^\t\n\r\x20-\x7E]/;
/** A letter of a script other than Latin. */
const NON_LATIN_LETTER = /(?![\p{Script=Latin}])\p{L}/u;

/**
 * Enclosed letters NFKC leaves alone (negative circled and squared letters, regional
 * indicators): each range is A–Z in order.
 */
const ENCLOSED: readonly (readonly [number, number])[] = [
  [0x1f150, 0x1f169],
  [0x1f170, 0x1f189],
  [0x1f1e6, 0x1f1ff],
];
const ENCLOSED_RE = /[\u{1F150}-\u{1F169}\u{1F170}-\u{1F189}\u{1F1E6}-\u{1F1FF}]/gu;

function unenclose(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  const range = ENCLOSED.find(([from, to]) => code >= from && code <= to);
  return range ? String.fromCharCode(65 + code - range[0]) : c;
}

function fold(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text
    .normalize('NFKC')
    .replace(CONFUSABLE, (c) => CONFUSABLES[c] ?? c)
    .replace(ENCLOSED_RE, unenclose);
}

/** Splits `ignorePreviousInstructions` or `ignore_previous-instructions` into words. */
export function splitIdentifier(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-./:]+/g, ' ');
}

/** The forms of `text` the phrase detectors read (see the module comment); most text has one. */
export function matchingForms(text: string, options: { identifier: boolean }): string[] {
  const stripped = stripHidden(text);
  const bases = stripped === text ? [text] : [stripped, stripHidden(text, ' ')];
  const forms = new Set<string>();
  for (const base of bases) {
    const folded = fold(base);
    const readable = options.identifier ? splitIdentifier(folded) : folded;
    forms.add(readable);
    // Cyrillic or Greek folded letter by letter is no longer the language it was written in.
    if (folded !== base && NON_LATIN_LETTER.test(base)) {
      const native = base.normalize('NFKC');
      forms.add(options.identifier ? splitIdentifier(native) : native);
    }
    const plain = stripLatinAccents(readable);
    for (const form of [readable, ...(plain === undefined ? [] : [plain])]) {
      if (plain !== undefined) forms.add(form);
      const spelled = unleet(form);
      if (spelled !== undefined) forms.add(spelled);
      const joined = joinSpacedLetters(form);
      if (joined !== undefined) forms.add(joined);
    }
  }
  return [...forms];
}
