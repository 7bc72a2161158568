import type { SearchableTool } from './tool-fields.js';

/**
 * The compact form of a tool in search results: enough for a model to choose a tool and
 * know what to pass, a small fraction of the full definition's tokens. The full schema is
 * fetched once a tool is chosen.
 */

/** Longest description kept in a hit, in characters. */
export const MAX_SUMMARY_LENGTH = 160;
/** Parameters listed in a hit before the rest are counted instead of named. */
export const MAX_LISTED_PARAMS = 12;

/**
 * The first sentence of `text`, whitespace collapsed, at most {@link MAX_SUMMARY_LENGTH}
 * characters (cut at a word and marked with `…` when longer). A sentence ends at `.`, `!` or
 * `?` followed by a space and a capital letter or by the end, so "e.g. this" does not end one.
 */
export function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = /[.!?](?= [A-Z]|$)/.exec(flat);
  const sentence = end ? flat.slice(0, end.index + 1) : flat;
  if (sentence.length <= MAX_SUMMARY_LENGTH) return sentence;
  const cut = sentence.slice(0, MAX_SUMMARY_LENGTH - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX_SUMMARY_LENGTH / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, '')}…`;
}

/**
 * The top-level parameters of `inputSchema` as `"path*, head?, tail?"`: required ones first,
 * marked `*`, then optional ones, marked `?`, each group in schema order. Past
 * {@link MAX_LISTED_PARAMS} the rest is counted (`"… +4 more"`). No parameters: `""`.
 */
export function paramSummary(inputSchema: SearchableTool['inputSchema']): string {
  const properties: unknown = inputSchema.properties;
  if (typeof properties !== 'object' || properties === null) return '';
  const names = Object.keys(properties);
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required : []);
  const ordered = [
    ...names.filter((n) => required.has(n)).map((n) => `${n}*`),
    ...names.filter((n) => !required.has(n)).map((n) => `${n}?`),
  ];
  if (ordered.length <= MAX_LISTED_PARAMS) return ordered.join(', ');
  return `${ordered.slice(0, MAX_LISTED_PARAMS).join(', ')}, … +${ordered.length - MAX_LISTED_PARAMS} more`;
}
