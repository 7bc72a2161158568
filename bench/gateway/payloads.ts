/**
 * The result sizes the gateway benchmark asks the echo upstream for, and the results it
 * answers with. One module for both sides: the upstream builds a result from the call's
 * `size` and `kind` arguments, and the drivers check the answer against the same value, so a
 * target that truncates, re-encodes or mangles a large answer fails its cell.
 *
 * - `small`: the echo of `ping` (no `size` argument), the figures the benchmark always had;
 * - `1k`, `64k`, `1m`: one text block of 1 KiB, 64 KiB or 1 MiB, lines of source-like text with
 *   quotes, backslashes, tabs and newlines (what JSON escapes), ASCII only: one character past
 *   U+007F makes V8 hold the whole string as two-byte, and Node 20 then decodes, parses and
 *   encodes it 10–20× slower (a 64 KiB text: ~3 ms to decode, ~3.5 ms to parse on this kind of
 *   machine), in every target alike — `64k-utf8` measures that case on its own;
 * - `img64k`: one image block whose base64 `data` is 64 KiB (a PNG's worth of bytes).
 */

/** A size the benchmark can ask for. */
export const SIZE_KEYS = ['small', '1k', '64k', '1m', 'img64k', '64k-utf8'] as const;
export type SizeKey = (typeof SIZE_KEYS)[number];

/** What each size is, as the tables name it. */
export const SIZE_LABELS: Readonly<Record<SizeKey, string>> = {
  small: 'small result (echo of "ping")',
  '1k': '1 KiB text result',
  '64k': '64 KiB text result',
  '1m': '1 MiB text result',
  img64k: '64 KiB image result (base64)',
  '64k-utf8': '64 KiB text result, multi-byte UTF-8',
};

/** The arguments of the `echo` call for a size: what the upstream reads to build its answer. */
export function echoArguments(size: SizeKey): Record<string, unknown> {
  const spec = SPECS[size];
  return spec ? { text: 'ping', size: spec.bytes, kind: spec.kind } : { text: 'ping' };
}

/** Bytes of the result's payload (text as UTF-8, or base64 characters); 4 for `small`. */
export function payloadBytes(size: SizeKey): number {
  return SPECS[size]?.bytes ?? 4;
}

/** The content block the upstream answers `echo` with, from the call's arguments. */
export function echoContent(args: Record<string, unknown> | undefined): Record<string, unknown> {
  const text = typeof args?.text === 'string' ? args.text : '';
  const bytes = args?.size;
  if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes <= 0 || bytes > MAX_BYTES)
    return { type: 'text', text };
  if (args?.kind === 'image') return { type: 'image', mimeType: 'image/png', data: base64Of(bytes) };
  return { type: 'text', text: textOf(bytes, args?.kind === 'utf8') };
}

/** Whether `result` is the answer the upstream gives for `size` (the same text or image data). */
export function isEchoAnswer(result: unknown, size: SizeKey): boolean {
  const block = (result as { content?: Record<string, unknown>[] } | undefined)?.content?.[0];
  if (!block) return false;
  const expected = echoContent(echoArguments(size));
  return expected.type === 'image'
    ? block.type === 'image' && block.data === expected.data && block.mimeType === expected.mimeType
    : block.type === 'text' && block.text === expected.text;
}

const MAX_BYTES = 16 * 1024 * 1024;
const SPECS: Readonly<Record<SizeKey, { bytes: number; kind: 'text' | 'utf8' | 'image' } | undefined>> = {
  small: undefined,
  '1k': { bytes: 1024, kind: 'text' },
  '64k': { bytes: 64 * 1024, kind: 'text' },
  '1m': { bytes: 1024 * 1024, kind: 'text' },
  img64k: { bytes: 64 * 1024, kind: 'image' },
  '64k-utf8': { bytes: 64 * 1024, kind: 'utf8' },
};

// Built once per size and process: the upstream answers thousands of calls with the same value.
const texts = new Map<string, string>();
const images = new Map<number, string>();

/** Exactly `bytes` bytes of UTF-8: source-like lines (ASCII, or with multi-byte characters), then padding. */
function textOf(bytes: number, multiByte: boolean): string {
  const key = `${bytes}:${multiByte}`;
  const known = texts.get(key);
  if (known !== undefined) return known;
  const label = multiByte ? 'naïve café —' : 'naive cafe -';
  const line = (n: number) =>
    `${String(n).padStart(6, '0')}\tconst label = "${label} ${n % 7}";  // a "quoted" \\path\\to\\file\n`;
  const parts: string[] = [];
  let used = 0;
  for (let n = 0; ; n++) {
    const next = line(n);
    const size = Buffer.byteLength(next);
    if (used + size > bytes) break;
    parts.push(next);
    used += size;
  }
  parts.push('x'.repeat(bytes - used));
  const text = parts.join('');
  texts.set(key, text);
  return text;
}

/** Base64 text of exactly `chars` characters (a multiple of 4 rounds down), from pseudo-random bytes. */
function base64Of(chars: number): string {
  const known = images.get(chars);
  if (known !== undefined) return known;
  const raw = Buffer.alloc(Math.floor(chars / 4) * 3);
  let seed = 0x2545f491;
  for (let i = 0; i < raw.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    raw[i] = seed >>> 24;
  }
  const data = raw.toString('base64');
  images.set(chars, data);
  return data;
}
