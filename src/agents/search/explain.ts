import type { Concept, MatchKind } from './query-concepts.js';
import { forEachWord, termsOfWord } from './tokenize.js';
import type { ToolFields } from './tool-fields.js';

/**
 * Why a tool matched a query, in a few words a model can weigh: for the concepts that added
 * most to its score, the tool's word, the query word it stood for when that was not the
 * same word, and where in the tool it was found — `delete (for "forget") in name;
 * entities in description`. Only the hits shown are explained, so this costs nothing on the
 * rest of a large catalog.
 */

/** Fields named in an explanation, strongest first (as postings.ts weighs them). */
const FIELD_ORDER = ['name', 'title', 'params', 'description', 'paramText'] as const;
const FIELD_LABEL: Record<(typeof FIELD_ORDER)[number], string> = {
  name: 'name',
  title: 'title',
  params: 'parameters',
  description: 'description',
  paramText: 'parameter text',
};
const KIND_LABEL: Record<Exclude<MatchKind, 'word'>, string> = {
  synonym: 'for',
  neighbour: 'near',
  prefix: 'for',
};
/** Matched concepts named per hit: the rest add little and cost tokens. */
const MAX_REASONS = 3;

/** One concept's match on one tool, as found by the ranking. */
export interface ConceptMatch {
  readonly concept: Concept;
  /** The catalog term that matched. */
  readonly term: string;
  /** What it added to the score. */
  readonly value: number;
}

/** The first word of `text` whose terms include `term`, as written. */
function wordWith(text: string, term: string): string | undefined {
  let found: string | undefined;
  forEachWord(text, (word) => {
    if (found === undefined && termsOfWord(word).includes(term)) found = word;
  });
  return found;
}

/**
 * The explanation of one hit. `queryWords` maps a query stem to the word as written, so an
 * explanation quotes the query, not stems.
 */
export function explainMatch(
  fields: ToolFields,
  matches: readonly ConceptMatch[],
  queryWords: ReadonlyMap<string, string>,
): string {
  const reasons: string[] = [];
  for (const { concept, term } of [...matches].sort((a, b) => b.value - a.value).slice(0, MAX_REASONS)) {
    const how = concept.get(term)!;
    let where: string | undefined;
    let written: string | undefined;
    for (const field of FIELD_ORDER) {
      written = wordWith(fields[field], term);
      if (written !== undefined) {
        where = FIELD_LABEL[field];
        break;
      }
    }
    const said = queryWords.get(how.from) ?? how.from;
    const word = (written ?? term).toLowerCase();
    const link =
      how.kind === 'word' || said.toLowerCase() === word ? '' : ` (${KIND_LABEL[how.kind]} "${said}")`;
    reasons.push(`${word}${link}${where ? ` in ${where}` : ''}`);
  }
  return reasons.join('; ');
}
