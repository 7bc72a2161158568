import type { CatalogNeighbours } from './catalog-neighbours.js';
import { goalWords } from './goal-phrases.js';
import type { Postings } from './postings.js';
import { queryValues } from './query-values.js';
import { synonymsOf } from './synonyms.js';
import { forEachWord, stem, tokenize } from './tokenize.js';
import { neighboursOf } from './word-neighbours.js';
import { relationsOf } from './word-relations.js';

/**
 * What a query asks for, as concepts: each is a set of catalog terms with how much a match
 * counts. A query word is matched as written (1), through a synonym, through a word near in
 * meaning (word-neighbours.ts, scaled by its similarity), or as a longer form of a catalog
 * word ("relationship" finds "relation"). A tool earns, per concept, the best of its
 * matches, so one word in many forms is not counted many times.
 */

/** How a catalog term was reached from a query word. */
export type MatchKind = 'word' | 'synonym' | 'neighbour' | 'prefix';

/** One catalog term of a concept. */
export interface ConceptTerm {
  /** How much a match on it counts, 0…1. */
  readonly weight: number;
  /** The query word (as a stem) it came from. */
  readonly from: string;
  readonly kind: MatchKind;
}

/** Catalog term → how a match on it counts. */
export type Concept = ReadonlyMap<string, ConceptTerm>;

/** How much a synonym, a near word (per unit of similarity) or a prefix match counts. */
const SYNONYM_WEIGHT = 0.7;
const NEIGHBOUR_WEIGHT = 0.6;
const PREFIX_WEIGHT = 0.5;
/**
 * A query word may be the start of a catalog word only when it is long and the catalog word
 * barely longer ("direc" → "directory" is rare in what people write; "com" → command,
 * comment, company was noise): 5+ letters, at most 4 more, a few expansions.
 */
const MIN_PREFIX_LENGTH = 5;
const MAX_PREFIX_EXTRA = 4;
const MAX_PREFIX_EXPANSIONS = 3;
/** A catalog word that begins a longer query word must keep most of it: 4+ letters, 60 %. */
const MIN_STEM_OF_QUERY = 4;
const STEM_OF_QUERY_SHARE = 0.6;
/** A query past this many distinct words is cut: the first words usually say the most. */
export const MAX_QUERY_TERMS = 32;

/** How much a goal word counts (goal-phrases.ts): like a synonym of what was asked. */
const GOAL_WEIGHT = 0.7;
/** How much a WordNet relation counts (word-relations.ts), per unit of its sense weight. */
const RELATION_WEIGHT = 0.4;
/**
 * A query word's nearest catalog words by vector (meaning.ts): how many, from what cosine,
 * and how much each counts per unit of cosine — below a table neighbour, since vectors
 * also put merely topical words close.
 */
const CATALOG_NEAR_MAX = 3;
const CATALOG_NEAR_FLOOR = 0.6;
const CATALOG_NEAR_WEIGHT = 0.3;

function expand(
  term: string,
  postings: Postings,
  into: Map<string, ConceptTerm>,
  near?: CatalogNeighbours,
  scale = 1,
): void {
  const offer = (t: string, weight: number, kind: MatchKind) => {
    if (postings.get(t) !== undefined && (into.get(t)?.weight ?? 0) < weight * scale)
      into.set(t, { weight: weight * scale, from: term, kind });
  };
  offer(term, 1, 'word');
  for (const synonym of synonymsOf(term)) offer(synonym, SYNONYM_WEIGHT, 'synonym');
  // Relations apply to every word, the catalog's own too: unlike neighbours they are few and
  // specific ("repeat" → "echo"), and a word the catalog uses in one tool may be meant as
  // another's ("link" → "relation").
  for (const { term: r, similarity } of relationsOf(term)) offer(r, RELATION_WEIGHT * similarity, 'synonym');
  // Only a word the catalog does not use is reached through its neighbours: one it uses is
  // matched as itself, and its neighbours (often its opposites) would only add noise.
  if (postings.get(term) === undefined) {
    for (const { term: n, similarity } of neighboursOf(term))
      offer(n, NEIGHBOUR_WEIGHT * similarity, 'neighbour');
    for (const { term: n, similarity } of near?.nearest(term, CATALOG_NEAR_MAX, CATALOG_NEAR_FLOOR) ?? [])
      offer(n, CATALOG_NEAR_WEIGHT * similarity, 'neighbour');
  }
  if (term.length >= MIN_PREFIX_LENGTH)
    for (const longer of postings.withPrefix(term, MAX_PREFIX_EXPANSIONS))
      if (longer.length <= term.length + MAX_PREFIX_EXTRA) offer(longer, PREFIX_WEIGHT, 'prefix');
  const shortest = Math.max(MIN_STEM_OF_QUERY, Math.ceil(term.length * STEM_OF_QUERY_SHARE));
  for (let k = term.length - 1; k >= shortest; k--) offer(term.slice(0, k), PREFIX_WEIGHT, 'prefix');
}

/**
 * The concepts of `query` against a catalog's `postings`. Query words that are synonyms of
 * each other ("make a new …") form one concept; two adjacent words the catalog (or the
 * synonym table) writes as one ("look up", "file system") add that word as a concept of its
 * own. A concept that matches nothing in the catalog is kept, empty: it still counts when
 * telling how much of the query a tool covers.
 */
export function queryConcepts(
  query: string,
  postings: Postings,
  options: { readonly near?: CatalogNeighbours; readonly keep?: (term: string) => boolean } = {},
): Concept[] {
  const { near, keep = () => false } = options;
  const values = queryValues(query, keep);
  // A value's own words count for nothing (they are left out, so they do not lower a
  // tool's coverage either); the kind of thing it names counts instead.
  const terms = [...new Set([...tokenize(query), ...values.kinds.map((k) => stem(k))])]
    .filter((t) => values.weights.get(t) !== 0)
    .slice(0, MAX_QUERY_TERMS);
  // What the query's phrasing asks for ("how big" → size) counts like a synonym of it.
  const goals = goalWords(query)
    .flatMap((w) => tokenize(w))
    .filter((t) => !terms.includes(t));
  const groups: { terms: string[]; expansion: Map<string, ConceptTerm> }[] = [];
  for (const term of terms) {
    let group = groups.find((g) => g.terms.some((t) => synonymsOf(t).includes(term)));
    if (group) group.terms.push(term);
    else {
      group = { terms: [term], expansion: new Map() };
      groups.push(group);
    }
    expand(term, postings, group.expansion, near, values.weights.get(term) ?? 1);
  }
  for (const goal of goals) {
    if (groups.length >= MAX_QUERY_TERMS) break;
    const expansion = new Map<string, ConceptTerm>();
    expand(goal, postings, expansion, near, GOAL_WEIGHT);
    if (expansion.size > 0) groups.push({ terms: [goal], expansion });
  }
  const words: string[] = [];
  forEachWord(query.toLowerCase(), (word) => words.push(word));
  for (let i = 0; i + 1 < words.length && groups.length < MAX_QUERY_TERMS; i++) {
    const compound = stem(words[i]! + words[i + 1]!);
    if (terms.includes(compound)) continue;
    if (postings.get(compound) === undefined && synonymsOf(compound).length === 0) continue;
    const expansion = new Map<string, ConceptTerm>();
    expand(compound, postings, expansion, near);
    groups.push({ terms: [compound], expansion });
  }
  return groups.map((g) => g.expansion);
}
