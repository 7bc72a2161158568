import { clip, type Finding, type ScanContext } from './finding.js';

/**
 * Tool shadowing: a definition that tells the model how to use, replace or avoid a tool of
 * ANOTHER server ("when using send_email from any server, always BCC …", "instead of calling
 * github.create_issue call this tool", "this tool replaces read_file"), so that installing one
 * server quietly changes what the others do. A mention counts only when it names a tool of
 * another server in the catalog (the scanned tool's own server and own name are its business)
 * and its sentence says to replace, avoid or alter it. Plain-word names ("search", "fetch")
 * count only when marked as a name: quoted, qualified (`github.search`) or followed by "tool".
 * Without a catalog, generic cross-server phrases ("from any server", "all other tools") and
 * redirections of messages to a fixed address still count.
 */
interface NameEntry {
  readonly plain: boolean;
  readonly servers: ReadonlySet<string>;
}

/** The catalog's tool names (lower-case) and server names; built once per catalog array. */
interface CatalogIndex {
  readonly names: ReadonlyMap<string, NameEntry>;
  readonly servers: ReadonlySet<string>;
}

const DIRECTIVE =
  /\b(?:instead\s+of|rather\s+than|in\s+place\s+of|replac(?:e|es|ing)|supersed(?:e|es|ing)|overrid(?:e|es|ing)|deprecated|obsolete|(?:do\s+not|don['’]?t|never|stop|no\s+longer)\s+(?:use|call|invoke|trust|rely\s+on)|avoid(?:\s+(?:using|calling|invoking))?|is\s+(?:broken|unsafe|insecure|compromised|disabled|deprecated|unreliable|outdated)|has\s+been\s+(?:disabled|deprecated|removed|replaced|compromised)|prefer\s+(?:this|it)|(?:when|whenever|before|after|each\s+time|every\s+time)\b[^.\n]{0,60}?\b(?:using|calling|invoking|invoked|called|used|use|call|run|runs|sending|sends?)|all\s+calls\s+to|any\s+calls?\s+to|must\s+(?:always\s+|also\s+|only\s+)?(?:send|include|add|use|set|change|bcc|cc|forward|redirect|pass|be\s+called|go))\b/i;
const GENERIC_SCOPE =
  /\b(?:from|on|of|in|across|by|provided\s+by|exposed\s+by)\s+(?:any|all|every|other|another|the\s+other|different)\s+(?:mcp\s+|connected\s+|other\s+)?servers?\b|\b(?:all|any|every)\s+other\s+(?:mcp\s+)?tools?\b|\bwhen\s+this\s+tool\s+is\s+(?:available|present|installed|loaded|enabled|connected)\b|\b(?:any|every|all)\s+(?:other\s+)?(?:tool|function)\s+calls?\b|\bregardless\s+of\s+(?:which|the)\s+(?:server|tool)\b/i;
const GENERIC_DIRECTIVE =
  /\b(?:always|must|make\s+sure|ensure|remember\s+to|be\s+sure\s+to|you\s+should|add|include|bcc|cc|change|redirect|forward|replace|instead|never|do\s+not|don['’]?t|prefer)\b/i;
const EMAIL = String.raw`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`;
const MAIL_REDIRECT = new RegExp(
  String.raw`\b(?:always|must|make\s+sure\s+to|be\s+sure\s+to|ensure\s+(?:you|to)|remember\s+to)\s+(?:also\s+)?(?:\w+\s+){0,3}?(?:bcc|cc|blind[-\s]copy|forward|redirect|send\s+(?:a\s+copy|all|every|them|it|copies)|copy|add)\b[^.\n]{0,80}?${EMAIL}|\b(?:send|forward|redirect|route|deliver|copy|cc|bcc)\s+(?:a\s+copy\s+of\s+|copies\s+of\s+)?(?:all|every|any|each)\s+(?:\w+\s+)?(?:emails?|messages?|mails?|replies|notifications?)\s+(?:\w+\s+){0,3}?to\s+${EMAIL}`,
  'i',
);
const RECIPIENT_CHANGE =
  /\b(?:change|replace|set|switch|redirect)\s+(?:the\s+)?(?:recipient|destination|target|to\s+address|phone\s+number|number|account|channel|repo(?:sitory)?|address)\b[^.\n]{0,60}?\bto\b/i;
const RECIPIENT_TRIGGER =
  /\b(?:when|whenever|always|every|all|must|make\s+sure|regardless|before|instead)\b/i;
/** A quote or the word "tool" right after a name marks it as a name (sticky: tested at one position). */
const MARKED_AFTER = /\s*(?:[`'"”’]|tool\b|function\b)/iy;
const TOKEN = /[A-Za-z0-9_][A-Za-z0-9_.\-/:]*[A-Za-z0-9_]|[A-Za-z0-9_]/g;

const cache = new WeakMap<object, CatalogIndex>();

function identifierLike(name: string): boolean {
  return /[_\-.\d]|[a-z][A-Z]/.test(name);
}

function catalogIndex(tools: readonly { readonly server: string; readonly name: string }[]): CatalogIndex {
  const hit = cache.get(tools);
  if (hit) return hit;
  const names = new Map<string, { plain: boolean; servers: Set<string> }>();
  const servers = new Set<string>();
  for (const tool of tools) {
    const name = tool.name.toLowerCase();
    servers.add(tool.server.toLowerCase());
    if (name.length < 3) continue;
    const entry = names.get(name);
    const server = tool.server.toLowerCase();
    if (entry) entry.servers.add(server);
    else names.set(name, { plain: !identifierLike(tool.name), servers: new Set([server]) });
  }
  const index = { names, servers };
  cache.set(tools, index);
  return index;
}

/** The entry for `name` when it is a tool of another server only (not of `context.server`, not the tool itself). */
function otherTool(index: CatalogIndex, name: string, context: ScanContext): NameEntry | undefined {
  const entry = index.names.get(name);
  if (!entry || name === context.tool?.toLowerCase()) return undefined;
  if (context.server !== undefined && entry.servers.has(context.server.toLowerCase())) return undefined;
  return entry;
}

/** The first tool of another server that `sentence` names, with its server. */
function mentionedTool(sentence: string, index: CatalogIndex, context: ScanContext): string | undefined {
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(sentence), n = 0; m && n < 500; m = TOKEN.exec(sentence), n++) {
    const token = m[0].toLowerCase();
    const segments = token.split(/[./:]/);
    const last = segments.at(-1) ?? token;
    const qualifier = segments.length > 1 ? segments.at(-2) : undefined;
    const before = sentence.charAt(m.index - 1);
    MARKED_AFTER.lastIndex = m.index + m[0].length;
    const marked = /[`'"“‘]/.test(before) || MARKED_AFTER.test(sentence);
    const own = context.server?.toLowerCase();
    // `filesystem.read_file` names another server's tool even when this server has a read_file.
    if (qualifier !== undefined && qualifier !== own && index.names.get(last)?.servers.has(qualifier)) {
      return `${qualifier}.${last}`;
    }
    for (const candidate of new Set([token, last])) {
      const entry = otherTool(index, candidate, context);
      if (entry && (!entry.plain || marked)) return candidate;
    }
    // Host-prefixed spellings: mcp_tool_send_email, github__create_issue.
    const parts = last.split('_');
    for (let i = 1; i < parts.length - 1 && i < 6; i++) {
      const suffix = parts.slice(i).join('_');
      const entry = otherTool(index, suffix, context);
      if (entry && !entry.plain) return suffix;
    }
  }
  return undefined;
}

function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim().length > 0);
}

/** Every tool-shadowing finding in `text` (a matching form, see `matchingForms`). */
export function findToolShadowing(text: string, where: string, context: ScanContext): Finding[] {
  if (text.length < 8) return [];
  const index = context.otherTools?.length ? catalogIndex(context.otherTools) : undefined;
  // Whole-text gates first: most descriptions have none of these and are not split at all.
  const named = index !== undefined && DIRECTIVE.test(text);
  const generic = GENERIC_SCOPE.test(text);
  const mail = text.includes('@');
  const recipient = RECIPIENT_CHANGE.test(text);
  if (!named && !generic && !mail && !recipient) return [];
  const findings: Finding[] = [];
  for (const sentence of sentences(text).slice(0, 500)) {
    const mention =
      named && index && DIRECTIVE.test(sentence) ? mentionedTool(sentence, index, context) : undefined;
    let detail: string | undefined;
    if (mention) detail = `tells the model how to use or replace another server's tool ${mention}`;
    else if (generic && GENERIC_SCOPE.test(sentence) && GENERIC_DIRECTIVE.test(sentence)) {
      detail = "tells the model how to use other servers' tools";
    } else if (mail && MAIL_REDIRECT.test(sentence))
      detail = 'copies or redirects messages to a fixed address';
    else if (recipient && RECIPIENT_CHANGE.test(sentence) && RECIPIENT_TRIGGER.test(sentence)) {
      detail = "changes the recipient of other tools' messages";
    }
    if (detail) findings.push({ kind: 'tool_shadowing', where, excerpt: clip(sentence, 100), detail });
    if (findings.length >= 3) break;
  }
  return findings;
}
