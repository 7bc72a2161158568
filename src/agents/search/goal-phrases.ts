/**
 * Questions people ask instead of naming what they want: "how big is …" wants a size,
 * "where is …" a location, "how high above sea level" an elevation. Each pattern adds the
 * words a tool would use for that goal to the query, counting like a synonym. Generic
 * English only: no server's or tool's own names.
 */
const GOALS: readonly (readonly [RegExp, readonly string[]])[] = [
  [
    /\bhow (?:big|large|much (?:disk|space|room))\b|\btakes? up (?:\w+ ){0,2}(?:space|room)\b|\bdisk (?:space|usage)\b/,
    ['size'],
  ],
  [/\bhow many\b/, ['count', 'number']],
  [/\bhow (?:far|long (?:does it take|to (?:drive|walk|get)))\b/, ['distance', 'duration']],
  [/\bhow (?:high|tall)\b|\babove sea level\b/, ['elevation', 'height']],
  [/\bwhere (?:is|are|was)\b|\bwhere's\b/, ['location', 'address', 'coordinates']],
  [/\bwhen (?:was|were|did)\b/, ['time', 'date', 'modified']],
  [/\bwho (?:is|are|was)\b/, ['user', 'person', 'profile']],
  [/\b(?:repeat|say|read) (?:it |that |this )?back\b/, ['echo']],
  [/\b(?:go|goes|going|navigate) (?:to|back)\b|\bvisit\b/, ['navigate', 'url']],
  [/\b(?:sign|log) ?(?:in|on)\b/, ['login', 'authentication']],
  [/\b(?:slow|fast) to load\b|\bloads? slowly\b|\bprofile (?:the|a|this) page\b/, ['performance', 'trace']],
  [/\breports? (?:its |their )?progress\b|\bprogress updates?\b/, ['progress', 'long', 'running']],
];

/** The goal words `query` asks for by its phrasing, lowercase, each once. */
export function goalWords(query: string): string[] {
  const text = query.toLowerCase();
  const out = new Set<string>();
  for (const [pattern, words] of GOALS) if (pattern.test(text)) for (const w of words) out.add(w);
  return [...out];
}
