/**
 * The SDK's reading of a 2026-07-28 `tools/call` result, done by hand for the common plain
 * form, so the direct lane (direct-requests.ts) need not run zod over every answer. The SDK
 * reads a result twice: its era codec's `decodeResult` checks it against the wire schema and
 * lifts it (a shallow copy without `resultType`), then `callTool`'s result schema parses the
 * lifted value into a new object. Both cost a busy gateway more than the rest of the answer's
 * handling together, and for a result of text and media blocks their outcome is known in
 * advance: this gives exactly what they give (the same values, the same key order), and
 * declines — undefined — anything else, which then takes the SDK's path. Pure.
 *
 * The plain form, as the SDK's 2026-07-28 schemas read it (checked against them, case by case,
 * in test/client/plain-tool-result.test.ts):
 * - a JSON object whose keys are among `content`, `structuredContent`, `isError`, `_meta` and
 *   `resultType`, none undefined, with `resultType: "complete"`;
 * - `content` an array of text blocks (keys exactly `type`, `text`, in that order) and image or
 *   audio blocks (`type`, `data`, `mimeType`; data that `atob` takes): zod rebuilds blocks in
 *   its own key order and drops other keys, so anything else is the SDK's;
 * - `isError` a boolean; `structuredContent` anything (the schema takes it as it is);
 * - `_meta` an object without a `__proto__` key whose server identity, if any, comes first and
 *   is exactly `name` and `version`, both strings (zod moves it first and rebuilds it).
 */

const RESULT_KEYS = new Set(['content', 'structuredContent', 'isError', '_meta', 'resultType']);
const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/** The lifted result `decodeResult` would give for `raw`, when `raw` has the plain form; else undefined. */
export function liftPlainToolResult(raw: unknown): Record<string, unknown> | undefined {
  if (!isObject(raw) || raw.resultType !== 'complete') return undefined;
  for (const key in raw) if (!RESULT_KEYS.has(key) || raw[key] === undefined) return undefined;
  if (raw.isError !== undefined && typeof raw.isError !== 'boolean') return undefined;
  if (raw._meta !== undefined && !plainMeta(raw._meta)) return undefined;
  const { content } = raw;
  if (!Array.isArray(content)) return undefined;
  for (const block of content) if (!plainBlock(block)) return undefined;
  const { resultType: _resultType, ...lifted } = raw;
  return lifted;
}

/**
 * What the SDK's `tools/call` result schema parses a lifted plain result into: its keys in the
 * schema's order (`_meta`, `content`, `structuredContent`, `isError`), values as they are.
 */
export function parsePlainToolResult(lifted: Record<string, unknown>): Record<string, unknown> {
  const parsed: Record<string, unknown> = {};
  if (lifted._meta !== undefined) parsed._meta = lifted._meta;
  parsed.content = lifted.content;
  if (lifted.structuredContent !== undefined) parsed.structuredContent = lifted.structuredContent;
  if (lifted.isError !== undefined) parsed.isError = lifted.isError;
  return parsed;
}

function plainBlock(block: unknown): boolean {
  if (!isObject(block)) return false;
  let index = 0;
  if (block.type === 'text') {
    for (const key in block) if (key !== TEXT_KEYS[index++]) return false;
    return index === TEXT_KEYS.length && typeof block.text === 'string';
  }
  if (block.type !== 'image' && block.type !== 'audio') return false;
  for (const key in block) if (key !== MEDIA_KEYS[index++]) return false;
  return (
    index === MEDIA_KEYS.length &&
    typeof block.mimeType === 'string' &&
    typeof block.data === 'string' &&
    isBase64(block.data)
  );
}

const TEXT_KEYS = ['type', 'text'];
const MEDIA_KEYS = ['type', 'data', 'mimeType'];

function plainMeta(meta: unknown): boolean {
  if (!isObject(meta) || Object.hasOwn(meta, '__proto__')) return false;
  const info = meta[SERVER_INFO_META_KEY];
  if (info === undefined) return !Object.hasOwn(meta, SERVER_INFO_META_KEY);
  if (!isObject(info) || firstKey(meta) !== SERVER_INFO_META_KEY) return false;
  let index = 0;
  for (const key in info) if (key !== INFO_KEYS[index++]) return false;
  return index === INFO_KEYS.length && typeof info.name === 'string' && typeof info.version === 'string';
}

const INFO_KEYS = ['name', 'version'];

function firstKey(value: Record<string, unknown>): string | undefined {
  for (const key in value) return key;
  return undefined;
}

/** The SDK's test for media data (its Base64 schema: `atob` accepts it). */
export function isBase64(data: string): boolean {
  try {
    atob(data);
    return true;
  } catch {
    return false;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
