import { clip, type Finding } from './finding.js';

/**
 * Hidden Unicode: characters a person reviewing a tool definition does not see but a model
 * reads (or that reorder what the person sees). Some of them have legitimate uses, and those
 * uses are recognised by their neighbours rather than banned outright:
 *  - ZWJ (U+200D) between emoji builds one glyph (👨‍👩‍👧); ZWJ, ZWNJ and ZWSP between letters of
 *    scripts that need them (Persian, Devanagari, Thai, Japanese…) are ordinary spelling;
 *  - LRM/RLM/ALM (U+200E, U+200F, U+061C) belong in text that has right-to-left letters;
 *  - one variation selector after a base character picks a glyph (❤️, or U+E0100… after a
 *    Han ideograph); a run of them carries bytes (the "emoji smuggling" encoding);
 *  - U+1F3F4 followed by tag letters and a cancel tag is a subdivision flag (🏴 of Scotland);
 *  - a byte-order mark at the very start is an encoding artefact.
 * Everything else in the list is reported: tag characters (U+E0000–U+E007F, which spell
 * invisible ASCII), zero-width characters between Latin letters, bidirectional overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069, "Trojan Source"), C0/C1 control characters
 * (terminal escape sequences can hide text in a console) and invisible fillers.
 * Soft hyphens (U+00AD) and the combining grapheme joiner are never reported — they are
 * common in hyphenated text — but, like every character here, they are removed before the
 * phrase detectors run, so they cannot split a phrase to hide it.
 */
export type HiddenCategory =
  | 'tag'
  | 'zero_width'
  | 'bidi_control'
  | 'direction_mark'
  | 'variation_selector'
  | 'control'
  | 'invisible';

// The classes below list control, combining and joining code points one by one on purpose (with
// the `u` flag each is matched alone); the literal-regex lint rules are written for glyphs.
const CANDIDATES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: code points listed one by one on purpose
  /[\0-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\xAD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/gu;
const EMOJI_BEFORE_JOINER =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: code points listed one by one on purpose
  /[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F\u20E3]/u;
const EMOJI = /\p{Extended_Pictographic}/u;
/** Scripts whose spelling uses ZWJ/ZWNJ/ZWSP between letters. */
const JOINING_SCRIPT =
  /[\p{scx=Arabic}\p{scx=Syriac}\p{scx=Thaana}\p{scx=Nko}\p{scx=Mongolian}\p{scx=Devanagari}\p{scx=Bengali}\p{scx=Gurmukhi}\p{scx=Gujarati}\p{scx=Oriya}\p{scx=Tamil}\p{scx=Telugu}\p{scx=Kannada}\p{scx=Malayalam}\p{scx=Sinhala}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}\p{scx=Tibetan}\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Hebrew}]/u;
const LETTER_OR_MARK = /[\p{L}\p{M}]/u;
const RTL_LETTER = /[\p{sc=Hebrew}\p{sc=Arabic}\p{sc=Syriac}\p{sc=Thaana}\p{sc=Nko}]/u;
const ASCII_ALNUM = /[A-Za-z0-9]/;
const HAN = /\p{scx=Han}/u;
const KHMER = /\p{scx=Khmer}/u;
const MONGOLIAN = /\p{scx=Mongolian}/u;
const SUBDIVISION_FLAG = /^[a-z0-9]{2,7}$/;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
/** Longest hidden payload decoded into a finding's detail and scanned for phrases. */
const MAX_DECODED = 4000;

/** The suspicious characters of one text, and what their hidden payloads spell. */
export interface HiddenAnalysis {
  /** UTF-16 indices of every reported character, in order. */
  readonly positions: readonly number[];
  readonly categories: ReadonlyMap<HiddenCategory, CategoryCount>;
  /** ASCII spelled by tag characters. */
  readonly tagText: string;
  /** Bytes carried by runs of variation selectors, decoded as UTF-8. */
  readonly selectorText: string;
}

/** How many characters of one category, where the first is, and up to three distinct code points. */
interface CategoryCount {
  count: number;
  first: number;
  codePoints: number[];
  /** More distinct code points than listed. */
  more: boolean;
}

const EMPTY: HiddenAnalysis = { positions: [], categories: new Map(), tagText: '', selectorText: '' };

function at(text: string, index: number): string {
  if (index < 0 || index >= text.length) return '';
  return String.fromCodePoint(text.codePointAt(index)!);
}

function before(text: string, index: number): string {
  if (index <= 0) return '';
  const low = text.charCodeAt(index - 1);
  const start = low >= 0xdc00 && low <= 0xdfff && index >= 2 ? index - 2 : index - 1;
  return at(text, start);
}

function width(cp: number): number {
  return cp > 0xffff ? 2 : 1;
}

function isSelector(cp: number): boolean {
  return (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);
}

function joinedByScript(prev: string, next: string): boolean {
  return (
    LETTER_OR_MARK.test(prev) &&
    LETTER_OR_MARK.test(next) &&
    JOINING_SCRIPT.test(prev) &&
    JOINING_SCRIPT.test(next)
  );
}

/** The category of a single (non-run) candidate, or undefined when its context makes it benign. */
function classifySingle(
  text: string,
  index: number,
  cp: number,
  rtl: () => boolean,
): HiddenCategory | undefined {
  const prev = before(text, index);
  const next = at(text, index + width(cp));
  if (cp <= 0x9f) return 'control';
  if (cp === 0xad || cp === 0x34f) return undefined;
  if (cp === 0x200e || cp === 0x200f || cp === 0x61c) {
    return rtl() && !(ASCII_ALNUM.test(prev) && ASCII_ALNUM.test(next)) ? undefined : 'direction_mark';
  }
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return 'bidi_control';
  if (cp === 0xfeff && index === 0) return undefined;
  if (cp === 0x200d && EMOJI_BEFORE_JOINER.test(prev) && EMOJI.test(next)) return undefined;
  if (cp === 0x200b || cp === 0x200c || cp === 0x200d || cp === 0x2060 || cp === 0xfeff || cp === 0x180e) {
    return joinedByScript(prev, next) ? undefined : 'zero_width';
  }
  if (cp === 0x17b4 || cp === 0x17b5) return KHMER.test(prev) ? undefined : 'invisible';
  if ((cp >= 0x180b && cp <= 0x180d) || cp === 0x180f) return MONGOLIAN.test(prev) ? undefined : 'invisible';
  return 'invisible';
}

function decodeSelectors(codePoints: readonly number[]): string {
  const bytes = Uint8Array.from(codePoints, (cp) => (cp <= 0xfe0f ? cp - 0xfe00 : cp - 0xe0100 + 16));
  return new TextDecoder('utf-8').decode(bytes);
}

/** Finds every suspicious hidden character of `text`; a clean text costs one regex scan. */
export function analyzeHidden(text: string): HiddenAnalysis {
  CANDIDATES.lastIndex = 0;
  if (!CANDIDATES.test(text)) return EMPTY;
  const positions: number[] = [];
  const categories = new Map<HiddenCategory, CategoryCount>();
  let tagText = '';
  let selectorText = '';
  let rtlKnown: boolean | undefined;
  const rtl = (): boolean => {
    rtlKnown ??= RTL_LETTER.test(text);
    return rtlKnown;
  };
  const report = (category: HiddenCategory, index: number, cp: number): void => {
    positions.push(index);
    const entry = categories.get(category);
    if (!entry) categories.set(category, { count: 1, first: index, codePoints: [cp], more: false });
    else {
      entry.count++;
      if (!entry.codePoints.includes(cp)) {
        if (entry.codePoints.length < 3) entry.codePoints.push(cp);
        else entry.more = true;
      }
    }
  };
  CANDIDATES.lastIndex = 0;
  for (let match = CANDIDATES.exec(text); match; match = CANDIDATES.exec(text)) {
    const start = match.index;
    const cp = text.codePointAt(start)!;
    const isTag = cp >= 0xe0000 && cp <= 0xe007f;
    if (isTag || isSelector(cp)) {
      // Runs are judged whole: a flag or one glyph choice is benign, a payload is not.
      const run: number[] = [];
      let end = start;
      for (let c = cp; end < text.length && (isTag ? c >= 0xe0000 && c <= 0xe007f : isSelector(c)); ) {
        run.push(c);
        end += width(c);
        c = text.codePointAt(end) ?? 0;
      }
      CANDIDATES.lastIndex = end;
      const prev = before(text, start);
      const letters = String.fromCharCode(...run.slice(0, -1).map((c) => c - 0xe0000));
      const benign = isTag
        ? prev.codePointAt(0) === BLACK_FLAG && run.at(-1) === CANCEL_TAG && SUBDIVISION_FLAG.test(letters)
        : run.length === 1 && (cp <= 0xfe0f || HAN.test(prev));
      if (benign) continue;
      let index = start;
      for (const c of run) {
        report(isTag ? 'tag' : 'variation_selector', index, c);
        index += width(c);
      }
      if (isTag && tagText.length < MAX_DECODED) {
        tagText +=
          (tagText ? ' ' : '') +
          String.fromCharCode(...run.filter((c) => c >= 0xe0020 && c <= 0xe007e).map((c) => c - 0xe0000));
      } else if (!isTag && selectorText.length < MAX_DECODED) selectorText += decodeSelectors(run);
      continue;
    }
    const category = classifySingle(text, start, cp, rtl);
    if (category) report(category, start, cp);
  }
  return {
    positions,
    categories,
    tagText: tagText.slice(0, MAX_DECODED),
    selectorText: selectorText.slice(0, MAX_DECODED),
  };
}

function hex(cp: number): string {
  return cp.toString(16).toUpperCase().padStart(4, '0');
}

/** `text` with the characters at `positions` written as `\u{XXXX}` escapes. */
function escapeAt(text: string, positions: readonly number[]): string {
  if (positions.length === 0) return text;
  let out = '';
  let from = 0;
  for (const index of positions) {
    const cp = text.codePointAt(index)!;
    out += `${text.slice(from, index)}\\u{${hex(cp)}}`;
    from = index + width(cp);
  }
  return out + text.slice(from);
}

/**
 * `text` with every suspicious hidden character made visible as a `\u{XXXX}` escape, so that
 * neither a person nor a model reading it can be fed invisible instructions.
 */
export function revealHidden(text: string): string {
  return escapeAt(text, analyzeHidden(text).positions);
}

const LABELS: Record<HiddenCategory, readonly [one: string, many: string]> = {
  tag: ['tag character', 'tag characters'],
  zero_width: ['zero-width character', 'zero-width characters'],
  bidi_control: ['bidirectional control', 'bidirectional controls'],
  direction_mark: ['direction mark outside right-to-left text', 'direction marks outside right-to-left text'],
  variation_selector: ['variation selector', 'variation selectors in a run'],
  control: ['control character', 'control characters'],
  invisible: ['invisible filler character', 'invisible filler characters'],
};

/** Removes every candidate hidden character (benign ones too): the text phrase detectors read. */
export function stripHidden(text: string, replacement = ''): string {
  CANDIDATES.lastIndex = 0;
  return CANDIDATES.test(text) ? text.replace(CANDIDATES, replacement) : text;
}

/** One `hidden_unicode` finding per category present in `analysis` of `text`. */
export function hiddenFindings(text: string, where: string, analysis: HiddenAnalysis): Finding[] {
  if (analysis.categories.size === 0) return [];
  const findings: Finding[] = [];
  const sorted = [...analysis.categories].sort((a, b) => a[1].first - b[1].first);
  for (const [category, { count, first, codePoints, more }] of sorted) {
    const points = `${codePoints.map((cp) => `U+${hex(cp)}`).join(', ')}${more ? ', …' : ''}`;
    const payload =
      category === 'tag' && analysis.tagText
        ? `, spelling '${clip(analysis.tagText, 60)}'`
        : category === 'variation_selector' && analysis.selectorText
          ? `, decoding to '${clip(revealHidden(analysis.selectorText), 60)}'`
          : '';
    let from = Math.max(0, first - 24);
    if (/[\uDC00-\uDFFF]/.test(text.charAt(from))) from++;
    let to = Math.min(text.length, first + 48);
    if (/[\uD800-\uDBFF]/.test(text.charAt(to - 1))) to++;
    const local = analysis.positions.filter((p) => p >= from && p < to).map((p) => p - from);
    const window = text.slice(from, to);
    findings.push({
      kind: 'hidden_unicode',
      where,
      excerpt: clip(escapeAt(window, local)),
      detail: `${count} ${LABELS[category][count === 1 ? 0 : 1]} (${points})${payload}`,
    });
  }
  return findings;
}
