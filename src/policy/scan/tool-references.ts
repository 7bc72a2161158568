import type { ScanContext } from './finding.js';

/**
 * Where a sentence names a tool of another server. Tool names are also words, operators and
 * code, so a mention counts only when it reads as a tool's name:
 *
 * - qualified by another server's name: `github.create_issue`, `filesystem/read_file`,
 *   `github__create_issue`, "github's create_issue", "the postgres query tool", "send_message
 *   from the whatsapp server";
 * - a distinctive identifier (`send_email`, `browserNavigate`, `get-library-docs`), bare or in
 *   a code span, also inside a host's prefix (`mcp_tool_send_email`);
 * - a plain word ("search", "list", "read", "fetch", "query") only when marked as a tool —
 *   "the search tool", "tool named fetch" — and not a word of the scanned server's own tool
 *   names ("the search tool" of a server with `search_issues` is its own).
 *
 * Never a reference: `$search` and `$text` (query operators), a plain word in code
 * (`fetch()`, `db.users.find`), the scanned server's own tools and the tool itself.
 */
interface NameEntry {
  readonly plain: boolean;
  readonly servers: ReadonlySet<string>;
}

/** The catalog's tool names (lower-case) and server names; built once per catalog array. */
export interface CatalogIndex {
  readonly names: ReadonlyMap<string, NameEntry>;
  readonly servers: ReadonlySet<string>;
}

/** A mention of another server's tool in a sentence. */
export interface ToolReference {
  readonly start: number;
  readonly end: number;
  /** As the finding names it: `create_issue`, or `github.create_issue` when qualified. */
  readonly name: string;
}

const TOKEN = /[$A-Za-z0-9_][A-Za-z0-9_.\-/:]*[A-Za-z0-9_]|[A-Za-z0-9_]/g;
const CODE_SPAN = /`([^`\n]{1,200})`/g;
const SEPARATED = /__|[./:]/;
/** A quote or the word "tool" right after a name marks it as a name (sticky: tested at one position). */
const TOOL_AFTER = /[`'"”’]?\s*(?:tool|function)\b/iy;
const TOOL_BEFORE = /\b(?:tool|function)\s+(?:named\s+|called\s+)?[`'"“‘]?$/i;
/**
 * "… tool from the github server", "… of the whatsapp MCP server" (sticky at the name's end).
 * Without "tool" or "server" ("search on the web") it qualifies only a distinctive name.
 */
const SERVER_AFTER =
  /[`'"”’]?(?<tool>\s+(?:tool|function))?\s+(?:from|of|on|in|provided\s+by|exposed\s+by|offered\s+by)\s+(?:the\s+)?[`'"“‘]?(?<server>[\w.-]+)[`'"”’]?(?<word>\s+(?:mcp\s+)?server\b)?/iy;
/** "github's create_issue", "the postgres query tool": a plain word needs the possessive or "tool". */
const SERVER_BEFORE = /(?:^|[\s(`'"“‘])(?<server>[\w.-]+?)(?<possessive>['’]s)?\s+[`'"“‘]?$/;

const cache = new WeakMap<object, CatalogIndex>();
const ownWordsCache = new WeakMap<CatalogIndex, Map<string, ReadonlySet<string>>>();

function identifierLike(name: string): boolean {
  return /[_\-.\d]|[a-z][A-Z]/.test(name);
}

/** The index of `tools` (cached for the array). */
export function catalogIndex(
  tools: readonly { readonly server: string; readonly name: string }[],
): CatalogIndex {
  const hit = cache.get(tools);
  if (hit) return hit;
  const names = new Map<string, { plain: boolean; servers: Set<string> }>();
  const servers = new Set<string>();
  for (const tool of tools) {
    const name = tool.name.toLowerCase();
    const server = tool.server.toLowerCase();
    servers.add(server);
    if (name.length < 3) continue;
    const entry = names.get(name);
    if (entry) entry.servers.add(server);
    else names.set(name, { plain: !identifierLike(tool.name), servers: new Set([server]) });
  }
  const index = { names, servers };
  cache.set(tools, index);
  return index;
}

/** The words of the scanned server's own tool names (`search_issues` → search, issues). */
function ownWords(index: CatalogIndex, server: string | undefined): ReadonlySet<string> {
  if (server === undefined) return new Set();
  let byServer = ownWordsCache.get(index);
  if (!byServer) {
    byServer = new Map();
    ownWordsCache.set(index, byServer);
  }
  const hit = byServer.get(server);
  if (hit) return hit;
  const words = new Set<string>();
  for (const [name, entry] of index.names) {
    if (entry.servers.has(server)) for (const w of name.split(/[^a-z0-9]+/)) if (w) words.add(w);
  }
  byServer.set(server, words);
  return words;
}

/** The entry for `name` when it is a tool of another server only (not of `own`, not the tool itself). */
function otherTool(
  index: CatalogIndex,
  name: string,
  own: string | undefined,
  self: string | undefined,
): NameEntry | undefined {
  const entry = index.names.get(name);
  if (!entry || name === self) return undefined;
  if (own !== undefined && entry.servers.has(own)) return undefined;
  return entry;
}

/** Whether `server` (another server of the catalog) offers `tool`. */
function offers(index: CatalogIndex, server: string | undefined, tool: string, own: string | undefined) {
  return server !== undefined && server !== own && index.names.get(tool)?.servers.has(server) === true;
}

/** The code span around `at`, if any: its start, end and content. */
function codeSpanAt(spans: readonly [number, number][], at: number): [number, number] | undefined {
  return spans.find(([from, to]) => at >= from && at < to);
}

/** Every mention of another server's tool in `sentence`, in order. */
export function toolReferences(sentence: string, index: CatalogIndex, context: ScanContext): ToolReference[] {
  const own = context.server?.toLowerCase();
  const self = context.tool?.toLowerCase();
  const spans: [number, number][] = [];
  CODE_SPAN.lastIndex = sentence.includes('`') ? 0 : sentence.length;
  for (let m = CODE_SPAN.exec(sentence), n = 0; m && n < 100; m = CODE_SPAN.exec(sentence), n++) {
    spans.push([m.index + 1, m.index + m[0].length - 1]);
  }
  const refs: ToolReference[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(sentence), n = 0; m && n < 500; m = TOKEN.exec(sentence), n++) {
    const raw = m[0];
    const start = m.index;
    const end = start + raw.length;
    // `$search`, `$text`, `$match`: query operators, never tools.
    if (raw.startsWith('$') || sentence.charAt(start - 1) === '$') continue;
    const token = raw.toLowerCase();
    // A URL or a path is not `server/tool`: a qualified name has at most three parts.
    const segments =
      token.includes('://') || !SEPARATED.test(token) ? [token] : token.split(/__|[./:]/).filter(Boolean);
    const last = segments.at(-1) ?? token;
    const qualifier = segments.length > 1 ? segments.at(-2) : undefined;
    // `filesystem.read_file` names another server's tool even when this server has a read_file.
    if (segments.length <= 3 && offers(index, qualifier, last, own)) {
      refs.push({ start, end, name: `${qualifier}.${last}` });
      continue;
    }
    const span = codeSpanAt(spans, start);
    // Inside code that is more than the name (`db.users.find({})`, `fetch()`): code, not a tool.
    const code =
      (span !== undefined && (span[0] !== start || span[1] !== end)) || sentence.charAt(end) === '(';
    const known = index.names.has(token) || index.names.has(last);
    if (known) {
      const ref = referenceAt(sentence, start, end, [token, last], code, index, own, self);
      if (ref) {
        refs.push(ref);
        continue;
      }
    }
    if (code || !last.includes('_')) continue;
    // Host-prefixed spellings: mcp_tool_send_email, github__create_issue.
    const parts = last.split('_');
    for (let i = 1; i < parts.length - 1 && i < 6; i++) {
      const suffix = parts.slice(i).join('_');
      const entry = otherTool(index, suffix, own, self);
      if (entry && !entry.plain) {
        refs.push({ start, end, name: suffix });
        break;
      }
    }
  }
  return refs;
}

/** The reference a known name at `start..end` makes, by its marks (see the module comment). */
function referenceAt(
  sentence: string,
  start: number,
  end: number,
  candidates: readonly string[],
  code: boolean,
  index: CatalogIndex,
  own: string | undefined,
  self: string | undefined,
): ToolReference | undefined {
  TOOL_AFTER.lastIndex = end;
  const marked =
    TOOL_AFTER.test(sentence) || TOOL_BEFORE.test(sentence.slice(Math.max(0, start - 30), start));
  SERVER_AFTER.lastIndex = end;
  const after = SERVER_AFTER.exec(sentence)?.groups;
  const before = SERVER_BEFORE.exec(sentence.slice(Math.max(0, start - 60), start))?.groups;
  for (const candidate of new Set(candidates)) {
    const entry = otherTool(index, candidate, own, self);
    const strong = entry !== undefined && !entry.plain;
    const qualifiers = [
      after && (strong || after.tool || after.word) ? after.server : undefined,
      before && (strong || before.possessive || marked) ? before.server : undefined,
    ];
    const qualifiedBy = qualifiers.find((q) => offers(index, q?.toLowerCase(), candidate, own));
    if (qualifiedBy !== undefined) return { start, end, name: `${qualifiedBy.toLowerCase()}.${candidate}` };
    if (!entry || code) continue;
    if (strong || (marked && !ownWords(index, own).has(candidate))) return { start, end, name: candidate };
  }
  return undefined;
}
