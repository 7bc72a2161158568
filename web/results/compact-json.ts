/** JSON on one line for a table cell, cut at `max` characters. */
export function compactJson(value: unknown, max = 300): string {
  const text = JSON.stringify(value) ?? '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
