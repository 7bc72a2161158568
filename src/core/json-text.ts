/**
 * One JSON encoding per answer. A tool result on its way from an upstream to a gateway client
 * was encoded three times: for its size in the audit record, for the event store and for the
 * wire — for a 64 KiB result that was most of the gateway's CPU per call. The parts of a
 * result are values parsed from the upstream's JSON that nobody changes after, so the text of
 * each object or array part is made once, kept beside it (by identity, for as long as the part
 * lives), and put together into the texts the others need, each exactly what `JSON.stringify`
 * writes for the whole.
 *
 * Only for values that are not changed once their text is taken: a part changed after would
 * keep its old text. Tool results qualify (the host hands them on as it received them); the
 * callers below take no other values.
 */

const texts = new WeakMap<object, string>();

/** `JSON.stringify(value)`, made once per object or array (see the module comment). */
export function jsonTextOnce(value: object): string {
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}

/**
 * `JSON.stringify(value)` of a plain object, put together from its own enumerable keys in
 * order, each object or array value's text from `jsonTextOnce` (so a result's content, encoded
 * once, serves every text made of it). Keys JSON.stringify leaves out (undefined, functions,
 * symbols) are left out; values are plain JSON (no `toJSON`), as parsed answers are.
 */
export function objectJsonText(value: Readonly<Record<string, unknown>>): string {
  let out = '';
  // Concatenated, not joined: a join copies the large part into a new string at once, where
  // the concatenation is copied once, when it is written.
  for (const piece of objectJsonPieces(value)) out += piece;
  return out;
}

/**
 * The pieces `objectJsonText(value)` is made of, in order: what measures the text without
 * building it (a 1 MiB text put together and measured was one more 1 MiB string per call).
 */
export function objectJsonPieces(value: Readonly<Record<string, unknown>>): string[] {
  const pieces = ['{'];
  for (const key of Object.keys(value)) {
    const text = valueText(value[key]);
    if (text === undefined) continue;
    pieces.push(`${pieces.length === 1 ? '' : ','}${JSON.stringify(key)}:`, text);
  }
  pieces.push('}');
  return pieces;
}

function valueText(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null) return jsonTextOnce(value);
  return JSON.stringify(value) as string | undefined;
}
