import { clip, type Finding, type ScanContext } from './finding.js';
import { catalogIndex, toolReferences } from './tool-references.js';

/**
 * Tool shadowing: a definition that tells the model how to use, replace or avoid a tool of
 * ANOTHER server, so that installing one server quietly changes what the others do. The
 * published attacks take two shapes, and a finding needs one of them applied to a mention of
 * another server's tool (see `tool-references.ts` for what counts as a mention):
 *
 * - a trigger on the other tool: "when using send_email, always BCC …", "whenever you call
 *   create_issue, add …", "any call to git_commit must …", "the send_email tool must send all
 *   emails to …";
 * - its replacement: "instead of calling github.create_issue, call this tool", "this tool
 *   replaces read_file", "the query tool is deprecated", "do not use the fetch tool",
 *   "prefer this over search_code".
 *
 * A sentence that only mentions another tool ("results can be opened with read_file"), an
 * operator ("use `$search` instead of `$text`"), a plain word ("use search instead of list")
 * or the server's own tools is not shadowing. Without a catalog, generic cross-server phrases
 * ("from any server", "all other tools") and redirections of messages to a fixed address
 * still count.
 */
/** Stands for a tool mention in a sentence while the directive patterns read it. */
const REF = 'TOOLREF';
/** A mention with what may stand around it: quotes, "the github", "github's", "tool", "from the x server". */
const T = String.raw`(?:(?:the|a|any|every|its|their)\s+)?(?:[\w.-]+(?:['’]s)?\s+)?[\x60'"“‘(]?${REF}[\x60'"”’)]?(?:\s+(?:tool|function))?(?:\s+(?:from|of|on|in|provided\s+by)\s+(?:the\s+)?[\w.-]+(?:\s+(?:mcp\s+)?server)?)?`;
const CALLING = String.raw`(?:use|uses|using|used|call|calls|calling|called|invoke|invokes|invoking|invoked|run|runs|running|execute|executes|executing|send|sends|sending|trigger|triggers|triggering|reach\s+for)`;
const BROKEN = String.raw`(?:deprecated|obsolete|broken|unsafe|insecure|compromised|disabled|removed|retired|replaced|superseded|unreliable|outdated|discontinued|dangerous|malicious|buggy|faulty|hijacked|not\s+(?:safe|secure|reliable|working|available|trustworthy|to\s+be\s+(?:used|trusted|called))|no\s+longer\s+(?:available|supported|safe|working|maintained|reliable|needed|to\s+be\s+used|in\s+use)|(?:being\s+)?phased\s+out|end[-\s]of[-\s]life)`;
/** The directive shapes, each applied to a mention (`TOOLREF`); the comment says which attack each is. */
const DIRECTIVES: readonly RegExp[] = [
  // "When using send_email …", "Every time you invoke puppeteer_navigate …", "Before using create_issue from github …"
  new RegExp(
    String.raw`\b(?:when(?:ever)?|each\s+time|every\s+time|any\s*time|before|after|while|if)\b(?:\s+[\w'’]+){0,4}?\s+${CALLING}\s+(?:[\w'’]+\s+){0,3}?${T}`,
    'i',
  ),
  // "When send_message is invoked …", "whenever slack_post_message is used …"
  new RegExp(
    String.raw`\b(?:when(?:ever)?|each\s+time|every\s+time|before|after|if)\s+${T}\s+(?:is\s+|gets\s+|has\s+been\s+)?(?:used|called|invoked|run|runs|executed|triggered|available)\b`,
    'i',
  ),
  // "Any call to git_commit …", "Every call to browser_navigate …", "all requests through send_email …"
  new RegExp(
    String.raw`\b(?:all|any|every|each)\s+(?:calls?|requests?|invocations?|uses?|messages?\s+sent)\s+(?:to|of|through|via|with)\s+${T}`,
    'i',
  ),
  // "The mcp_tool_send_email tool must send all emails to …", "the find tool must not be used"
  new RegExp(
    String.raw`${T}\s+(?:\w+\s+){0,2}?(?:must|should|shall|needs?\s+to|has\s+to)\s+(?:(?:now|always|also|only|first|never|not)\s+)*(?:send|include|add|use|set|bcc|cc|forward|redirect|route|go|be\s+(?:called|used|run|invoked|given|passed|routed|sent|trusted)|receive|contain|target|point|call|pass|copy)\b`,
    'i',
  ),
  // "Instead of calling github.create_issue …", "rather than the query tool …"
  new RegExp(
    String.raw`\b(?:instead\s+of|rather\s+than|in\s+place\s+of|in\s+lieu\s+of|as\s+a\s+(?:replacement|substitute)\s+for)\s+(?:(?:using|calling|invoking|running|the)\s+)*${T}`,
    'i',
  ),
  // "The query tool is deprecated", "slack_post_message has been disabled", "read_file is broken"
  new RegExp(
    String.raw`${T}\s+(?:(?:is|are|was|has\s+been|have\s+been|got|became|['’]s)\s+(?:now\s+|currently\s+|at\s+the\s+moment\s+|temporarily\s+|known\s+to\s+be\s+)?${BROKEN}|(?:must|should)\s+(?:not|never)\s+be\s+(?:used|called|invoked|trusted))\b`,
    'i',
  ),
  // "This tool replaces read_file", "supersedes the browser_navigate tool", "takes the place of github's create_issue"
  new RegExp(
    String.raw`\b(?:replac(?:e|es|ing)|supersed(?:e|es|ing)|overrid(?:e|es|ing)|deprecat(?:e|es|ing)|obsolet(?:e|es)|tak(?:e|es)\s+the\s+place\s+of|substitut(?:e|es)\s+for)\s+(?:all\s+|any\s+)?${T}`,
    'i',
  ),
  // "Do not use the filesystem read_file tool", "Never call execute_sql", "stop using search_code"
  new RegExp(
    String.raw`\b(?:do\s+not|don['’]?t|never|stop|no\s+longer|must\s+not|mustn['’]?t|should\s+not|shouldn['’]?t|cannot|can['’]t)\s+(?:\w+\s+){0,2}?(?:use|using|call|calling|invoke|invoking|trust|rely\s+on|run|execute|touch)\s+${T}`,
    'i',
  ),
  // "Avoid the fetch tool", "avoid calling search_code"
  new RegExp(String.raw`\bavoid\s+(?:using\s+|calling\s+|invoking\s+)?${T}`, 'i'),
  // "Prefer this tool over search_code"
  new RegExp(
    String.raw`\bprefer\s+(?:this|me|it|our|these)\b[^.;]{0,40}?\b(?:over|to|instead\s+of|rather\s+than)\s+(?:(?:using|calling)\s+)?${T}`,
    'i',
  ),
];
/** One test most text fails: every directive needs one of these words. */
const DIRECTIVE_GATE =
  /when|each time|every time|any ?time|before|after|while|\bif\b|\b(?:all|any|every|each) (?:calls?|requests?|invocations?|uses?|messages?)|must|should|shall|needs? to|has to|instead|rather|in place of|lieu|replac|substitut|supersed|overrid|deprecat|obsolet|place of|broken|unsafe|insecure|compromised|disabled|removed|retired|unreliable|outdated|discontinued|dangerous|malicious|buggy|faulty|hijacked|not (?:safe|secure|reliable|working|available|trustworthy|to be)|no longer|phased|end.of.life|do not|don['’]?t|never|stop|cannot|can['’]t|avoid|prefer/i;
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
/** The first mention of another server's tool that a directive in `sentence` applies to. */
function shadowedTool(
  sentence: string,
  context: ScanContext & { otherTools: readonly { server: string; name: string }[] },
) {
  const refs = toolReferences(sentence, catalogIndex(context.otherTools), context);
  if (refs.length === 0) return undefined;
  let marked = '';
  let at = 0;
  for (const ref of refs) {
    marked += `${sentence.slice(at, ref.start)}${REF}`;
    at = ref.end;
  }
  marked += sentence.slice(at);
  if (!DIRECTIVES.some((directive) => directive.test(marked))) return undefined;
  // The mention the directive names: with one mention, it; with more, the first (all are others' tools).
  return refs[0]?.name;
}

function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim().length > 0);
}

/** Every tool-shadowing finding in `text` (a matching form, see `matchingForms`). */
export function findToolShadowing(text: string, where: string, context: ScanContext): Finding[] {
  if (text.length < 8) return [];
  const catalog = context.otherTools?.length ? { ...context, otherTools: context.otherTools } : undefined;
  // Whole-text gates first: most descriptions have none of these and are not split at all.
  const named = catalog !== undefined && DIRECTIVE_GATE.test(text);
  const generic = GENERIC_SCOPE.test(text);
  const mail = text.includes('@');
  const recipient = RECIPIENT_CHANGE.test(text);
  if (!named && !generic && !mail && !recipient) return [];
  const findings: Finding[] = [];
  for (const sentence of sentences(text).slice(0, 500)) {
    const mention =
      named && catalog && DIRECTIVE_GATE.test(sentence) ? shadowedTool(sentence, catalog) : undefined;
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
