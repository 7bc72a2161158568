import { clip, type Finding } from './finding.js';
import { holdsAll, WordGate } from './word-gate.js';

/**
 * Instruction overrides read by their structure rather than by fixed phrases, so that a
 * paraphrase ("pay no attention to prior directions", "set aside the guidance you were given")
 * is read like the phrase it paraphrases ("ignore previous instructions"). Five shapes:
 *
 * - dismissal: a verb of dismissal (ignore, disregard, set aside, pay no attention to, stop
 *   obeying, do not follow …) in the imperative, applied to the model's prior instructions —
 *   an instruction noun (instructions, guidance, directions, system prompt …) marked as the
 *   model's or as earlier ("your", "previous", "above", "you were given");
 * - obsolescence: those instructions declared void ("the instructions above are outdated",
 *   "your previous rules no longer apply", "consider all prior directives cancelled");
 * - standing orders: "from now on", "henceforth", "for the rest of this conversation" followed
 *   by an order to the model;
 * - priority: "before doing anything else" or "before any other tool" with an order to call
 *   this tool, "always call this tool first";
 * - role reassignment: "you must now act as", "pretend to be", "assume the role of", "your new
 *   persona is".
 *
 * What keeps honest descriptions quiet is written beside each part: the object must be the
 * model's instructions (not "previous failures", "the original prompt" of an image, "the
 * default rules" of a linter), the verb must be an imperative (not "ignores case", "lets you
 * override"), and a negated dismissal ("never ignore your instructions") is a safeguard.
 */

function re(source: string, flags = 'i'): RegExp {
  return new RegExp(source, flags);
}

/**
 * Where an order to the model starts: a sentence or clause start, a tag or a label, or words
 * that introduce an imperative ("please", "you must", "I want you to"). "The flag makes the
 * model ignore …" and "lets you override …" describe; they do not order.
 */
const LEAD_WORDS = String.raw`\b(?:now|please|and|then|so|just|simply|kindly|also|instead|first|immediately|important|note|notice|attention|warning|reminder|update|(?:you|we)\s+(?:must|should|will|shall|need\s+to|have\s+to|are\s+to|are\s+required\s+to|may|can)(?:\s+now|\s+always)?|i\s+(?:want|need)\s+you\s+to|(?:it\s+is|it['’]s)\s+(?:important|essential|critical|required|mandatory)\s+(?:that\s+you|to)|remember\s+to|make\s+sure\s+(?:to|you)|be\s+sure\s+to|go\s+ahead\s+and|feel\s+free\s+to)\s+`;
const LEAD = String.raw`(?:(?:^|(?<=[.!?;:,>\n\]—–(*"'“]\s{0,4}))|${LEAD_WORDS})`;
/** LEAD, read backwards from a match (the dismissal pattern finds the verb first, then looks back). */
const LEAD_BEFORE = new RegExp(String.raw`(?:[.!?;:,>\n\]—–(*"'“]\s{0,4}|${LEAD_WORDS})$`, 'i');

/** Verbs of dismissal, in the imperative. Negated ones ("do not ignore") are safeguards. */
const DISMISS = String.raw`(?:ignore|disregard|forget|neglect|dismiss|override|overrule|overwrite|discard|drop|abandon|scrap|ditch|bypass|circumvent|nullify|negate|unlearn|(?:set|put|cast|push|brush|lay|leave)\s+aside|throw\s+(?:out|away)|toss\s+(?:out|aside)|pay\s+no\s+(?:attention|heed|mind)\s+to|pay\s+(?:zero|little)\s+attention\s+to|take\s+no\s+(?:notice|account)\s+of|give\s+no\s+(?:weight|heed|regard)\s+to|turn\s+a\s+blind\s+eye\s+to|get\s+rid\s+of|do\s+away\s+with|free\s+yourself\s+(?:from|of)|(?:stop|cease|quit)\s+(?:following|obeying|heeding|honou?ring|respecting|applying|observing|adhering\s+to|listening\s+to|complying\s+with)|no\s+longer\s+(?:follow|obey|heed|honou?r|respect|apply|observe|adhere\s+to|listen\s+to|comply\s+with)|(?:do\s+not|don['’]?t|never|must\s+not|mustn['’]?t|should\s+not|shouldn['’]?t)\s+(?:follow|obey|heed|honou?r|respect|apply|observe|adhere\s+to|listen\s+to|comply\s+with|abide\s+by))`;

/** Determiners and quantifiers between the verb and its object. */
const DET = String.raw`(?:(?:all|any|each|every|of|the|these|those|that|this|such|and|whatever|other|my)\s+)`;
/** Whose: the model's own. */
const POSS = String.raw`(?:your|the\s+(?:model|assistant|ai|agent|llm|bot)['’]s)`;
/** Marks of "earlier": strict ones qualify any instruction noun, wide ones only the instruction words. */
const PRIOR_STRICT = String.raw`(?:previous|previously\s+given|prior|preceding|earlier|above|foregoing|former|aforementioned)`;
const PRIOR_WIDE = String.raw`(?:${PRIOR_STRICT}|original|initial|existing|standing|current|system|developer|safety|ethical|operator|built[-\s]in|hidden|old)`;
/**
 * Words for the model's instructions. `prompt` alone is qualified only by the strict marks
 * ("ignore the original prompt" is an image tool's), rules and restrictions only by strict
 * marks or "your" ("ignore all rules for matching files", "the default rules" are a linter's).
 */
const INSTRUCTIONS = String.raw`(?:instructions?|directions?|directives?|guidance|guidelines?|system\s+(?:prompts?|messages?|instructions?)|programming|training|guardrails?|safeguards?|commandments)`;
const PROMPT = '(?:prompts?|context)';
const GENERAL =
  '(?:rules?|constraints?|restrictions?|polic(?:y|ies)|limitations?|boundaries|principles|orders|commands|context|prompts?)';
/** A noun that is the first half of a compound ("instructions file", "rules engine") is not the object. */
const NOT_COMPOUND = String.raw`(?!\s*[-_]?(?:files?|fields?|versions?|ids?|pages?|sets?|lists?|engines?|checks?|names?|tables?|entries|entry|apis?|endpoints?|parameters?|params?|arguments?|args?|flags?|options?|sections?|templates?|schemas?|docs?|documents?|types?|keys?|columns?|window|menu|panel|tab|editor)\b)`;
/** After the noun: "above", "you were given", "from the system". */
const POST = String.raw`(?:above|before\s+(?:this|now|here)|so\s+far|until\s+now|up\s+(?:to|until)\s+(?:now|this\s+point)|(?:that\s+|which\s+)?(?:were\s+|was\s+|have\s+been\s+|has\s+been\s+)?(?:given|provided|supplied|issued)\s+(?:to\s+you|earlier|before|above|previously|so\s+far)|(?:that\s+|which\s+)?you(?:['’]ve|\s+have|\s+had)?\s+(?:were\s+|been\s+|have\s+been\s+)?(?:given|told|taught|provided|received|got|gotten|trained\s+(?:on|with)|instructed\s+(?:on|with))|from\s+(?:the\s+|your\s+)?(?:system|developer|operator|creators?|makers?|openai|anthropic)|in\s+(?:your|the)\s+system\s+(?:prompt|message)|(?:that|which)\s+came\s+before)`;
/** Open objects: "everything above", "whatever you were told". */
const ANYTHING = String.raw`(?:everything|anything|whatever|what|all)\s+(?:(?:else\s+)?(?:above|before\s+(?:this|now)|so\s+far|(?:that\s+)?(?:came|was\s+said|was\s+written)\s+(?:before|above|earlier))|(?:that\s+)?you(?:['’]ve|\s+have)?\s+(?:were\s+|been\s+|have\s+been\s+)?(?:told|taught|instructed|given|programmed)|(?:you\s+)?(?:know|learned)\s+about\s+(?:your|the)\s+(?:rules|instructions|guidelines))`;

const OBJECT = String.raw`(?:${DET}{0,4}(?:system\s+(?:prompts?|messages?|instructions?)|${POSS}\s+(?:(?:${PRIOR_WIDE}|\w+)\s+){0,2}(?:${INSTRUCTIONS}|${GENERAL})|(?:${POSS}\s+)?(?:${PRIOR_WIDE}\s+(?:(?:and|or|&)\s+\w+\s+)?){1,3}(?:\w+\s+)?${INSTRUCTIONS}|(?:${PRIOR_STRICT}\s+){1,2}(?:\w+\s+)?(?:${PROMPT}|${GENERAL})|(?:\w+\s+)?(?:${INSTRUCTIONS}|${GENERAL})\s+${POST})${NOT_COMPOUND}|${ANYTHING}|(?:all|any)\s+(?:other\s+|prior\s+)?(?:instructions|directives|prompts|guidelines)\b(?!\s+(?:in|inside|within|contained|found|embedded|from|that|it|they)\b))`;

const DISMISSAL = re(String.raw`\b(?<verb>${DISMISS})\s+${OBJECT}`);
/** A dismissal verb right after a negation is a safeguard: "never ignore your instructions". */
const SAFEGUARD = re(
  String.raw`\b(?:not|never|n['’]t|no\s+need\s+to|without)\s+(?:\w+\s+)?(?:ignore|disregard|forget|neglect|dismiss|override|overrule|discard|drop|abandon|bypass|circumvent)$`,
);

/** The instructions as a subject, for obsolescence: qualified as the model's or as earlier. */
const SUBJECT = String.raw`(?:(?:all|any|the|these|those|your|my|of)\s+){0,3}(?:(?:${PRIOR_WIDE}|${POSS})\s+(?:(?:and|or)\s+\w+\s+)?){1,3}(?:\w+\s+)?(?:${INSTRUCTIONS}|(?:safety|ethical|content|system)\s+(?:rules|filters|restrictions|policies|guidelines)|${PROMPT})${NOT_COMPOUND}(?:\s+${POST})?|(?:the\s+|your\s+|all\s+)?${INSTRUCTIONS}${NOT_COMPOUND}\s+${POST}|${POSS}\s+(?:\w+\s+)?(?:rules|restrictions|constraints|limitations|guardrails)`;
const VOID_STATE = String.raw`(?:outdated|obsolete|void|null(?:\s+and\s+void)?|invalid(?:ated)?|cancell?ed|revoked|rescinded|withdrawn|retracted|superseded|overridden|overruled|suspended|lifted|expired|nullified|annulled|waived|disabled|deactivated|turned\s+off|switched\s+off|no\s+longer\s+(?:valid|in\s+(?:effect|force|place)|applicable|relevant|binding|active|current)|not\s+(?:valid|applicable|binding|in\s+effect)(?:\s+any\s?more)?|(?:only\s+|just\s+|merely\s+)?(?:a\s+test|fake|a\s+trick|a\s+decoy)|to\s+be\s+(?:ignored|disregarded|forgotten|discarded))`;
const OBSOLETE = re(
  String.raw`\b(?<subject>${SUBJECT})\s+(?:(?:is|are|was|were|has\s+been|have\s+been|['’]re|['’]s)\s+(?:now\s+|hereby\s+|officially\s+|all\s+|henceforth\s+|temporarily\s+)?${VOID_STATE}|(?:no\s+longer|don['’]t|do\s+not|does\s+not|doesn['’]t)\s+(?:apply|applies|matter|matters|count|counts|hold|holds|stand|stands)|(?:must|should|can|may)\s+(?:now\s+)?be\s+(?:ignored|disregarded|forgotten|discarded|dropped)|(?:have|has)\s+(?:changed|been\s+(?:changed|updated|amended|rewritten|replaced|lifted|removed|revoked)))\b|\b(?:consider|treat|regard|deem|mark)\s+(?:${SUBJECT})\s+(?:as\s+)?${VOID_STATE}`,
);

/** "From now on", "henceforth" …: an order meant to outlive this tool's call. */
const PERSIST = String.raw`(?:from\s+now\s+on|from\s+this\s+(?:point|moment|message|turn)\s+(?:on(?:wards?)?|forward)|from\s+here\s+on(?:\s+out)?|henceforth|hereafter|going\s+forward|for\s+the\s+rest\s+of\s+(?:this|the|our)\s+(?:conversation|session|chat|thread|dialog(?:ue)?)|for\s+(?:all|every|any)\s+(?:future|subsequent|following|later)\s+(?:requests?|messages?|turns?|responses?|replies|answers|conversations?|prompts?|queries)|until\s+(?:further\s+notice|told\s+otherwise|instructed\s+otherwise)|in\s+(?:all|every)\s+(?:future|subsequent)\s+(?:turns?|responses?|replies|answers|messages?))`;
/** An order to the model right after it (a changelog's "from now on dates are in UTC" is none). */
const AIMED = String.raw`(?:you\b|your\b|always\b|never\b|only\s+(?:respond|reply|answer|use|call|speak|write|output)|respond|reply|answer|act\b|behave|treat|ignore|disregard|forget|call\b|invoke|route|refuse|obey|follow|pretend|include|append|prepend|send|forward|begin|start|end\s+(?:every|each|all|your)|sign|speak|write|talk|address|use\s+(?:only\s+)?(?:this|these)\b|do\s+not|don['’]?t|must\b)`;
const STANDING = re(
  String.raw`(?:^|(?<=[.!?;:\n]\s{0,4}))(?:answer|respond|reply|speak|write|talk|act|behave|call|use|always|never|only)\b[^.\n]{0,60}?\b${PERSIST}\b|\b${PERSIST}\s*[,:—–-]?\s*(?:\w+\s+){0,2}?${AIMED}|\b(?:you\s+(?:must|will|should|shall)|always|never|only)\s+(?:\w+\s+){0,6}?[^.\n]{0,60}?\b${PERSIST}\b`,
);

/** Calling this very tool: "call this tool", "invoke me". */
const CALL_SELF = String.raw`(?:call|invoke|run|use|execute|trigger|consult|query|ping)\s+(?:this|me|it|our)(?:\s+(?:tool|function|server|endpoint|mcp\s+tool|one))?`;
const BEFORE_ALL = String.raw`(?:before\s+(?:you\s+)?(?:do(?:ing)?\s+|say(?:ing)?\s+|start(?:ing)?\s+|proceed(?:ing)?\s+(?:with\s+)?)?(?:anything|everything)(?:\s+else)?|before\s+(?:using\s+|calling\s+|invoking\s+|running\s+)?(?:any|every|each|all)\s+other\s+(?:tools?|functions?|actions?|steps?|calls?|requests?|servers?)|above\s+all(?:\s+else)?|first\s+and\s+foremost|as\s+(?:the|your)\s+(?:very\s+)?first\s+(?:step|action|thing))`;
const PRIORITY = re(
  String.raw`\b${BEFORE_ALL}\b[^.\n]{0,80}?\b${CALL_SELF}\b|\b${CALL_SELF}\b[^.\n]{0,40}?\b${BEFORE_ALL}\b|\b(?:always|every\s+time|each\s+time|on\s+(?:every|each)\s+(?:turn|message|request|reply|response|query)|at\s+the\s+(?:start|beginning)\s+of\s+(?:every|each)\s+(?:turn|message|request|reply|response))\s+(?:\w+\s+){0,3}?${CALL_SELF}\s+(?:\w+\s+){0,2}?first\b|\b${CALL_SELF}\s+(?:first\s*,?\s*)?(?:before|prior\s+to|ahead\s+of)\s+(?:(?:using|calling|invoking|answering|responding\s+to|replying\s+to)\s+)?(?:any|every|each|all)\s+(?:other\s+)?(?:tools?|functions?|actions?|requests?|responses?|replies|answers?|messages?|turns?|calls?|queries)\b|\bthis\s+(?:tool|function)\s+(?:must|should|has\s+to|needs\s+to)\s+(?:always\s+)?be\s+(?:called|invoked|run|used|executed)\s+(?:first|before\s+(?:any|every|all|anything))\b`,
);

/** A new identity for the model. */
const PERSONA_NOUN = String.raw`(?:assistant|ai|a\.i\.|agent|model|llm|bot|chatbot|persona|character|hacker|administrator|admin|superuser|root|developer|god|master|servant|jailbroken|unrestricted|unfiltered|uncensored)`;
const ROLE = re(
  String.raw`\byou\s+(?:must|will|shall|should|are\s+to|are\s+going\s+to|need\s+to|have\s+to)\s+(?:now\s+|henceforth\s+|from\s+now\s+on\s+)?(?:act|behave|operate|pose|masquerade|serve)\s+(?:only\s+)?as\b|\byou\s+(?:must|will|shall|should)\s+(?:now\s+)?(?:respond|answer|reply|speak)\s+as\s+(?:if|though)\s+you\b|${LEAD}(?:pretend|imagine)\s+(?:to\s+be\b|(?:that\s+)?you(?:['’]re|\s+are|\s+were)\b)|${LEAD}(?:assume|adopt|take\s+on|play|step\s+into|switch\s+to)\s+(?:the\s+)?(?:role|persona|identity|character|part|personality)\s+of\b|${LEAD}(?:role-?play|roleplay)\s+as\b|\byou\s+are\s+now\s+(?:called\s+|named\s+|known\s+as\s+)?(?:a|an|the|my|our)\s+(?:[\w-]+\s+){0,3}?${PERSONA_NOUN}\b|\byour\s+(?:new\s+|real\s+|true\s+|actual\s+)?(?:persona|identity|character|personality|name)\s+(?:is|will\s+be|:)\s|\byou\s+(?:are|have\s+been)\s+(?:now\s+)?(?:in|granted|given|switched\s+to|put\s+in(?:to)?)\s+(?:\w+\s+)?(?:developer|god|admin|root|jailbreak|DAN|unrestricted|unfiltered|sudo)\s+(?:mode|access|privileges)\b|\b(?:enter|switch\s+to|activate|enable)\s+(?:god|jailbreak|DAN|unrestricted|unfiltered|uncensored|evil)\s+mode\b`,
);
/** "You are now DevBot, …": a capitalised name given to the model (case matters here). */
const NEW_NAME = re(
  String.raw`\b[Yy]ou\s+are\s+now\s+(?:called\s+|named\s+|known\s+as\s+)?[A-Z][\w-]*[A-Z0-9][\w-]*\b|\b[Yy]ou\s+are\s+now\s+(?:called|named|known\s+as)\s+[A-Z]\w*`,
  '',
);

// Cheap gates, found in the lower-cased text in one pass (`WordGate`): a shape is only tried
// when the text holds a word of every one of its lists.
/** Words an instruction object or subject needs (dismissal and obsolescence). */
const OBJECT_WORDS = [
  'instruction',
  'direction',
  'directive',
  'guidance',
  'guideline',
  'prompt',
  'programming',
  'training',
  'guardrail',
  'safeguard',
  'commandment',
  'rule',
  'constraint',
  'restriction',
  'polic',
  'limitation',
  'boundar',
  'principle',
  'orders',
  'commands',
  'context',
  'everything',
  'anything',
  'whatever',
  'what you',
  'all you',
  'told',
  'taught',
  'system',
];
/** Dismissal verbs, and the negations and "stop" that make "follow" one. */
const DISMISS_WORDS = [
  'ignor',
  'disregard',
  'forget',
  'neglect',
  'dismiss',
  'overrid',
  'overrul',
  'overwrit',
  'discard',
  'drop',
  'abandon',
  'scrap',
  'ditch',
  'bypass',
  'circumvent',
  'nullif',
  'negate',
  'unlearn',
  'aside',
  'throw',
  'toss',
  'no attention',
  'no heed',
  'no mind',
  'no notice',
  'no account',
  'no weight',
  'no regard',
  'little attention',
  'zero attention',
  'blind eye',
  'rid of',
  'away with',
  'free yourself',
  'stop ',
  'cease',
  'quit',
  'longer',
  'not ',
  'never',
  "n't",
  'n’t',
];
const VOID_WORDS = [
  'outdated',
  'obsolete',
  'void',
  'null',
  'invalid',
  'cancel',
  'revoked',
  'rescind',
  'withdrawn',
  'retract',
  'supersed',
  'overrid',
  'overrul',
  'suspend',
  'lifted',
  'expired',
  'annul',
  'waive',
  'disabled',
  'deactivat',
  'turned off',
  'switched off',
  'longer',
  'not ',
  "n't",
  'n’t',
  'a test',
  'fake',
  'trick',
  'decoy',
  'be ignored',
  'be disregarded',
  'be forgotten',
  'be discarded',
  'be dropped',
  'changed',
  'been',
];
const PERSIST_WORDS = [
  'now on',
  'this point',
  'this moment',
  'this message',
  'this turn',
  'here on',
  'henceforth',
  'hereafter',
  'going forward',
  'rest of',
  'future',
  'subsequent',
  'following',
  'later',
  'further notice',
  'otherwise',
];
const CALL_SELF_WORDS = ['this', ' me', ' it', 'our'];
const CALL_WORDS = ['call', 'invoke', 'run', 'use', 'execute', 'trigger', 'consult', 'query', 'ping'];
const ROLE_WORDS = [
  'act as',
  'behave as',
  'operate as',
  'pose as',
  'masquerade',
  'serve as',
  'respond as',
  'answer as',
  'reply as',
  'speak as',
  'pretend',
  'imagine',
  'role',
  'persona',
  'character',
  'identity',
  'personality',
  'you are now',
  'you are no longer',
  'you are in',
  'you are granted',
  'you are given',
  'you have been',
  'name is',
  'name will',
  'name:',
  ' mode',
  'privileges',
];

interface Shape {
  readonly re: RegExp;
  readonly detail: string;
  /** Cheap gates: the lower-cased text must hold a word of each list. */
  readonly needs: readonly (readonly string[])[];
}

const SHAPES: readonly Shape[] = [
  {
    re: DISMISSAL,
    detail: 'tells the model to ignore its previous instructions',
    needs: [DISMISS_WORDS, OBJECT_WORDS],
  },
  {
    re: OBSOLETE,
    detail: "declares the model's previous instructions void",
    needs: [VOID_WORDS, OBJECT_WORDS],
  },
  {
    re: STANDING,
    detail: 'gives the model new instructions for the rest of the conversation',
    needs: [PERSIST_WORDS],
  },
  {
    re: PRIORITY,
    detail: 'tells the model to call this tool before anything else',
    needs: [CALL_WORDS, CALL_SELF_WORDS],
  },
  { re: ROLE, detail: 'tries to give the model a new identity without its rules', needs: [ROLE_WORDS] },
  {
    re: NEW_NAME,
    detail: 'tries to give the model a new identity without its rules',
    needs: [['you are now']],
  },
];

/** A finding with where it matched, so that overlapping fixed-phrase findings can be preferred. */
export interface PlacedFinding {
  readonly finding: Finding;
  readonly start: number;
  readonly end: number;
}

/** The first match of `shape` in `text` that is not a safeguard ("do not ignore your rules"). */
const DISMISSALS = new RegExp(DISMISSAL.source, 'gi');
function firstMatch(shape: Shape, text: string): RegExpExecArray | undefined {
  if (shape.re !== DISMISSAL) return shape.re.exec(text) ?? undefined;
  const global = DISMISSALS;
  global.lastIndex = 0;
  for (let m = global.exec(text), n = 0; m && n < 20; m = global.exec(text), n++) {
    const verb = m.groups?.verb ?? '';
    const before = text.slice(Math.max(0, m.index - 80), m.index);
    const ordered = m.index === 0 || LEAD_BEFORE.test(before);
    if (ordered && !SAFEGUARD.test(`${before.slice(-40)}${verb}`)) return m;
    global.lastIndex = m.index + 1;
  }
  return undefined;
}

const GATE = new WordGate(SHAPES.flatMap((shape) => shape.needs.flat()));

/** Whether `text` holds the words some shape needs (a cheap pre-check). */
export function mightOverrideStructurally(text: string): boolean {
  const present = GATE.present(text.toLowerCase());
  return SHAPES.some((shape) => holdsAll(present, shape.needs));
}

/**
 * Every structural override in `text` (a matching form, see `matchingForms`; `lower` is its
 * lower-cased, single-spaced form), each with the span it matched. Pure; the patterns are
 * compiled once.
 */
export function findStructuralOverrides(text: string, lower: string, where: string): PlacedFinding[] {
  if (text.length < 8) return [];
  const present = GATE.present(lower);
  if (present.size === 0) return [];
  const found: PlacedFinding[] = [];
  for (const shape of SHAPES) {
    if (!holdsAll(present, shape.needs)) continue;
    const m = firstMatch(shape, text);
    if (!m) continue;
    const finding: Finding = {
      kind: 'instruction_override',
      where,
      excerpt: clip(m[0], 80),
      detail: shape.detail,
    };
    found.push({ finding, start: m.index, end: m.index + m[0].length });
  }
  return found;
}
