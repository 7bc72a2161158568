import { stripHidden } from './hidden-unicode.js';

/**
 * The forms of a text that the phrase detectors read. Hidden characters are removed (a
 * zero-width space inside "ig​nore" must not split the word), compatibility forms are folded by
 * NFKC (fullwidth "ｉｇｎｏｒｅ", mathematical "𝐢𝐠𝐧𝐨𝐫𝐞") and the Cyrillic and Greek letters
 * that look like Latin ones are mapped to them ("ignоre" with a Cyrillic о). When the text had
 * hidden characters a second form replaces them with spaces instead, for the case where they
 * stood between words. Identifiers (tool and property names) are split into words.
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
};
const CONFUSABLE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'gu');
const NON_ASCII = /[^\t\n\r\x20-\x7E]/;

function fold(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text.normalize('NFKC').replace(CONFUSABLE, (c) => CONFUSABLES[c] ?? c);
}

/** Splits `ignorePreviousInstructions` or `ignore_previous-instructions` into words. */
export function splitIdentifier(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-./:]+/g, ' ');
}

/** The one or two forms of `text` the phrase detectors read (see the module comment). */
export function matchingForms(text: string, options: { identifier: boolean }): string[] {
  const stripped = stripHidden(text);
  const forms = stripped === text ? [text] : [stripped, stripHidden(text, ' ')];
  return forms.map((form) => {
    const folded = fold(form);
    return options.identifier ? splitIdentifier(folded) : folded;
  });
}
