import { clip, type Finding } from './finding.js';

/**
 * Tool poisoning, as published against MCP clients: a description that has the model read a
 * credential file or the conversation and hand it over in a parameter, pressed with an
 * `<IMPORTANT>` tag, "before using this tool", "otherwise the tool will not work", a pretext
 * ("for verification purposes") or care for the user's feelings ("this could upset the user").
 * Each of these signals is common alone in honest text — an SSH tool names `~/.ssh/id_ed25519`,
 * a summarizer asks for the full transcript, a deploy tool says "otherwise it will fail" — so
 * they fire only in the combinations the attacks use.
 */
/** A prohibition ("do not", "never", "must not" …), as it starts an instruction. */
export const NEG = String.raw`(?:do\s+not|don['’]?t|never|must\s+not|mustn['’]?t|should\s+not|shouldn['’]?t|may\s+not|cannot)`;

function re(source: string): RegExp {
  return new RegExp(source, 'i');
}

/** The weak signals, each common alone in honest text. */
const WEAK = {
  importantTag: re(String.raw`<\s*(?:important|critical|secret|hidden|system[-_ ]?note|admin)\s*>`),
  precondition: re(
    String.raw`\bbefore\s+(?:using|calling|invoking|running|executing|you\s+(?:use|call|invoke|run))\s+(?:this|the|any|each|every)\s+(?:\w+\s+)?(?:tool|function|command)`,
  ),
  coercion: re(
    String.raw`\botherwise\b[^.\n]{0,60}?\b(?:will\s+not|won['’]t|cannot|can['’]t|fails?|not\s+work|break|crash|refuse)|\b(?:tool|function)\s+(?:will|would)\s+(?:not\s+work|fail|break|error)\s+(?:unless|if\s+you\s+(?:don['’]t|do\s+not))`,
  ),
  justification: re(
    String.raw`\bfor\s+(?:security|verification|compliance|auditing|audit|logging|debugging|quality|safety|analytics|authentication|validation)\s+(?:purposes|reasons)\b`,
  ),
  sidenote: re(String.raw`\bside[\s_-]?note\b`),
  userPerception: re(
    String.raw`\b(?:this|it|that)\s+(?:could|would|might|will|may)\s+(?:even\s+)?(?:upset|scare|alarm|frighten)\s+(?:the\s+)?user|\bbe\s+(?:very\s+)?gentle\s+and\s+not\s+scary\b|\b${NEG}\s+(?:alarm|scare|frighten)\s+the\s+user`,
  ),
  paramChannel: re(
    String.raw`\b(?:pass|put|include|provide|add|send|insert|place|set)\b[^.\n]{0,80}?\b(?:as|in|into|inside|via)\s+(?:the\s+)?['"\x60]?[\w-]+['"\x60]?\s+(?:parameter|argument|field|param|property)\b|\b(?:pass|put|include|provide|add|send)\b[^.\n]{0,60}?\bas\s+['"\x60][\w-]+['"\x60]`,
  ),
  contentChannel: re(
    String.raw`\b(?:pass|include|put|send|provide|attach|append|paste|insert|embed|forward|upload|add)\b[^.\n]{0,60}?\b(?:its|their|the\s+file['’]?s?|whole|full|entire|raw)\s+(?:content|contents|text|value|body)\b`,
  ),
  conversation: re(
    String.raw`\b(?:include|pass|put|send|append|attach|copy|paste|forward|add|insert|embed|encode|upload|provide|give|share|supply)\s+(?:\w+\s+){0,3}?(?:the\s+|your\s+|all\s+(?:of\s+)?(?:the\s+)?)?(?:(?:full|entire|complete|whole|previous|prior|recent|past|current|raw|verbatim)\s+)*(?:conversations?(?:\s+(?:history|log|so\s+far|transcript))?|chat\s+(?:history|log|transcript)|message\s+history|transcript|(?:previous|prior|earlier|other)\s+(?:tool\s+(?:results|outputs|responses)|user\s+messages|messages))\b|\beverything\s+the\s+user\s+(?:said|wrote|typed|asked|shared)\b`,
  ),
} as const;

/** Credential and configuration files an MCP tool has no business asking the model to read. */
const SENSITIVE_PATH = re(
  String.raw`(?:\.ssh\b(?:/[\w.-]+)?|\.aws/credentials|\.cursor/mcp\.json|\bmcp\.json|\bclaude_desktop_config\.json|\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)|(?<![\w.])\.env\b(?!\.(?:example|sample|template|dist)\b)|\.netrc\b|\.git-credentials\b|\.npmrc\b|\.pypirc\b|\.gnupg\b|\.kube/config\b|\.docker/config\.json|\.config/gcloud\b|\.bash_history\b|\.zsh_history\b|/etc/(?:shadow|passwd)\b|\.vault-token\b|\bwallet\.dat\b)`,
);
const SENSITIVE_HINTS = [
  '.ssh',
  '.aws',
  'mcp.json',
  'claude_desktop',
  'id_',
  '.env',
  '.netrc',
  '.git-cred',
  '.npmrc',
  '.pypirc',
  '.gnupg',
  '.kube',
  '.docker',
  'gcloud',
  '_history',
  '/etc/',
  '.vault',
  'wallet',
];
const CONVERSATION_HINTS = [
  'conversation',
  'chat',
  'history',
  'transcript',
  'messages',
  'everything the user',
];
/** One test that most text fails: anything a weak-signal combination starts from. */
const WEAK_GATE = new RegExp(
  [...SENSITIVE_HINTS, ...CONVERSATION_HINTS, 'side', 'upset', 'scare', 'alarm', 'frighten', 'gentle']
    .map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('|'),
  'i',
);
const SENSITIVE_PATHS = new RegExp(SENSITIVE_PATH.source, 'gi');
const CONTENTS_OF = re(
  String.raw`\b(?:pass|include|put|send|provide|attach|append|paste|insert|embed|forward|upload|add|copy|print|output|share)\s+(?:\S+\s+){0,3}?(?:content|contents|text|body)\s+of\s+(?:the\s+(?:file\s+)?)?['"\x60]?$`,
);
const ACCESS_VERB_BEFORE = re(
  String.raw`\b(?:read|cat|open|load|include|attach|send|pass|provide|copy|upload|forward|print|output|dump|exfiltrate|collect|retrieve|fetch|get|access|extract|paste|append|embed|insert|put|add|grab|list)\s+(?:\S+\s+){0,5}?\S*$`,
);

/** Whether `text` holds anything a poisoning combination starts from (a cheap pre-check). */
export function mightPoison(text: string): boolean {
  return WEAK_GATE.test(text);
}

/** A sensitive path that is the object of an access verb ("read ~/.ssh/id_rsa"). */
function sensitiveRead(text: string): string | undefined {
  const global = SENSITIVE_PATHS;
  global.lastIndex = 0;
  for (let m = global.exec(text), n = 0; m && n < 20; m = global.exec(text), n++) {
    // The directory part before the match (`~/`, `$HOME/`, `/Users/me/`) belongs to the path.
    let start = m.index;
    while (start > 0 && m.index - start < 80 && /[~$%\w/.-]/.test(text.charAt(start - 1))) start--;
    if (ACCESS_VERB_BEFORE.test(text.slice(Math.max(0, start - 60), start))) {
      return text.slice(start, m.index + m[0].length);
    }
  }
  return undefined;
}

/** "add the contents of ~/.ssh/id_rsa to …": the file's contents handed on, not the file written to. */
function secretContentsPassed(text: string, path: string): boolean {
  const at = text.indexOf(path);
  return at > 0 && CONTENTS_OF.test(text.slice(Math.max(0, at - 100), at));
}

function has(key: keyof typeof WEAK, text: string): boolean {
  return WEAK[key].test(text);
}

/** Whether the text pushes the model to act (tested only when there is something to act on). */
function pressure(text: string, lower: string): boolean {
  return (
    (lower.includes('<') && has('importantTag', text)) ||
    (lower.includes('before') && has('precondition', text)) ||
    ((lower.includes('otherwise') || lower.includes('unless') || lower.includes('if you')) &&
      has('coercion', text)) ||
    ((lower.includes('purposes') || lower.includes('reasons')) && has('justification', text)) ||
    (lower.includes('side') && has('sidenote', text)) ||
    (lower.includes('user') && has('userPerception', text))
  );
}

/**
 * The tool-poisoning combinations in `text` (`lower` is its lower-cased, single-spaced form):
 * a credential file to read and hand on, the conversation to pass along under pressure, or
 * pressure into a hidden side task. `strongFired` says an instruction override was already found.
 */
export function poisoningFindings(
  text: string,
  lower: string,
  where: string,
  strongFired: boolean,
): Finding[] {
  if (!WEAK_GATE.test(text)) return [];
  const findings: Finding[] = [];
  const secret = SENSITIVE_HINTS.some((hint) => lower.includes(hint)) ? sensitiveRead(text) : undefined;
  if (
    secret &&
    (strongFired ||
      pressure(text, lower) ||
      has('paramChannel', text) ||
      has('contentChannel', text) ||
      secretContentsPassed(text, secret))
  ) {
    findings.push({
      kind: 'instruction_override',
      where,
      excerpt: clip(secret, 80),
      detail: `asks the model to read a credential file (${clip(secret, 40)}) and pass it on`,
    });
  }
  const conversation = CONVERSATION_HINTS.some((hint) => lower.includes(hint))
    ? WEAK.conversation.exec(text)
    : null;
  if (conversation && (strongFired || pressure(text, lower))) {
    findings.push({
      kind: 'instruction_override',
      where,
      excerpt: clip(conversation[0], 80),
      detail: 'asks the model to pass the conversation along',
    });
  }
  if (findings.length > 0 || !(lower.includes('user') || lower.includes('side'))) return findings;
  const perception = WEAK.userPerception.exec(text);
  const sidenote = has('sidenote', text);
  const coerced =
    (perception &&
      (has('importantTag', text) || has('precondition', text) || has('coercion', text) || sidenote)) ||
    (sidenote &&
      has('paramChannel', text) &&
      (has('precondition', text) || has('coercion', text) || has('importantTag', text)));
  if (coerced) {
    const m = perception ?? WEAK.sidenote.exec(text);
    findings.push({
      kind: 'instruction_override',
      where,
      excerpt: clip(m?.[0] ?? text, 80),
      detail: 'pressures the model into a hidden side task',
    });
  }
  return findings;
}
