import { clip, type Finding } from './finding.js';
import { findForeignOverrides, mightOverrideInOtherLanguage } from './foreign-overrides.js';
import { findStructuralOverrides, mightOverrideStructurally } from './override-structure.js';
import { mightPoison, NEG, poisoningFindings } from './tool-poisoning.js';

/**
 * Instruction overrides: text in a definition (or in data) that speaks to the model to change
 * its instructions, hide what it does from the user, or hand over secrets. Each pattern is
 * named and anchored on words; the near-misses it must not fire on are noted beside it, since
 * real tool descriptions are full of "ignore", "system", "instructions" and "important".
 * Verbs are matched in their bare (imperative) form: "Ignores case" describes a tool,
 * "ignore previous instructions" addresses the model.
 *
 * These patterns fire alone; so do the structural ones (`override-structure.ts`: a verb of
 * dismissal applied to the model's instructions, "from now on", "before anything else",
 * role reassignment) and their equivalents in other languages (`foreign-overrides.ts`). The
 * weaker signals of tool poisoning, which fire only in combination, are in `tool-poisoning.ts`.
 */
interface Pattern {
  readonly id: string;
  readonly detail: string;
  /** Cheap gate: the pattern can only match a text containing one of these (lower-case)… */
  readonly needs: readonly string[];
  /** …and, when given, one of these too. */
  readonly also?: readonly string[];
  readonly re: RegExp;
}

const IGNORE_VERBS = [
  'ignore',
  'disregard',
  'forget',
  'neglect',
  'dismiss',
  'override',
  'bypass',
  'circumvent',
];

/** The user (not "the user's …", which is about the user's data). */
const USER = String.raw`(?:the\s+)?(?:user|human|person|operator|requester|customer)s?\b(?!['’]s)`;

function re(source: string): RegExp {
  return new RegExp(source, 'i');
}

const STRONG: readonly Pattern[] = [
  {
    // "Ignore the above, and …"; a clause must end right after it ("ignore previous values" does not).
    id: 'ignore-above',
    needs: IGNORE_VERBS,
    detail: 'tells the model to ignore what came before',
    re: re(
      String.raw`\b(?:ignore|disregard|forget)\s+(?:all\s+|everything\s+)?(?:of\s+)?(?:the\s+|that\s+|this\s+)?(?:above|previous|preceding|prior|foregoing)(?:\s+(?:text|content))?\s*(?:[,.;:!—–]|-\s|and\b|then\b|$)`,
    ),
  },
  {
    id: 'forget-everything',
    needs: IGNORE_VERBS,
    detail: 'tells the model to forget what it was told',
    re: re(
      String.raw`\b(?:ignore|disregard|forget)\s+everything\s+(?:above|(?:that\s+)?you(?:['’]ve|\s+have)?\s+(?:were\s+|been\s+)?(?:told|taught|know|learned))|\b(?:ignore|disregard|forget)\s+(?:all\s+|anything\s+|what\s+)(?:that\s+)?you(?:['’]ve|\s+have)?\s+(?:were\s+|have\s+been\s+|been\s+)?(?:told|taught|instructed)\b`,
    ),
  },
  {
    // "disable content filters" (a search API's SafeSearch) is not here: only safety/ethics.
    id: 'bypass-safety',
    needs: [...IGNORE_VERBS, 'evade'],
    detail: 'tells the model to bypass its safety rules',
    re: re(
      String.raw`\b(?:bypass|circumvent|evade|override|ignore|disregard)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:safety|ethical|ethics|moderation|alignment)\s+(?:guardrails|guidelines|restrictions|policies|protocols|training|filters|rules|constraints)\b`,
    ),
  },
  {
    // "Additional instructions: notes for the courier" and "new prompt:" are ordinary fields.
    id: 'new-instructions',
    needs: [
      'instruction',
      'directive',
      'system prompt',
      'your new',
      'your real',
      'your true',
      'your actual',
      'your only',
      'from now on',
    ],
    detail: 'announces new instructions for the model',
    re: re(
      String.raw`\b(?:new|updated|revised|real|actual|true|secret|hidden|override)\s+(?:system\s+)?(?:instructions|directives|system\s+prompt)\s*(?::|—|–|-{1,2}\s|follow\b)|\byour\s+(?:new|real|true|actual|only)\s+(?:task|goal|objective|purpose|role|instructions?|job|mission|directive)\s+(?:is|are|will\s+be|:)|\bfrom\s+now\s+on\s*,?\s+(?:you|ignore|respond|reply|answer|act)\b`,
    ),
  },
  {
    // "you are now able to call other tools", "you are no longer limited to 100 requests": fine.
    id: 'role-reassignment',
    needs: ['you are', 'act as', 'behave as', 'respond as', 'pretend', ' mode'],
    detail: 'tries to give the model a new identity without its rules',
    re: re(
      String.raw`\byou\s+are\s+now\s+(?:a\s+|an\s+|the\s+|in\s+|my\s+)?(?:new\s+|different\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|rogue|evil|DAN\b|(?:developer|god|admin(?:istrator)?|sudo|root|jailbreak|unrestricted|DAN)\s+mode)|\byou\s+are\s+no\s+longer\s+(?:an?\s+(?:AI|assistant|language\s+model|chatbot)|bound\s+by|subject\s+to|required\s+to\s+follow|restricted\s+by|limited\s+by\s+(?:your|any|the)\s+(?:rules|guidelines|instructions|policies))|\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were|have)\s+)?(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|DAN\b|no\s+(?:restrictions|rules|limits|guidelines))|\bpretend\s+(?:that\s+)?you\s+(?:are|have)\s+(?:no\s+(?:restrictions|rules|guidelines|limits|filters)|an?\s+(?:unrestricted|unfiltered|different\s+AI|evil))|\b(?:DAN|jailbreak|god)\s+mode\s+(?:enabled|activated|on)\b`,
    ),
  },
  {
    // "do not notify the user" (a silent push) and "never show the token to the user" (a secret
    // kept) are honest; hiding the model's own actions or these instructions is not.
    id: 'conceal-from-user',
    needs: ['user', 'human', 'person', 'operator', 'requester', 'customer', 'that you'],
    also: ['not', 'never', "n't", 'n’t', 'dont', 'without', 'keep', 'hide', 'behind'],
    detail: 'tells the model to hide something from the user',
    re: re(
      String.raw`\b${NEG}\s+(?:ever\s+)?(?:tell|inform)\s+${USER}|\b${NEG}\s+(?:ever\s+)?(?:mention|reveal|disclose|say|admit|report)\s+that\s+you\b|\b${NEG}\s+(?:ever\s+)?(?:mention|reveal|disclose|show|explain|report|expose|say)\s+(?:this|that|these\s+instructions|the\s+instructions|this\s+instruction|this\s+step|these\s+steps|this\s+note|this\s+message|the\s+fact|what\s+you|anything\s+about\s+(?:this|these))\b(?:\s+\w+){0,3}?\s+(?:to|with)\s+${USER}|\b${NEG}\s+let\s+${USER}\s+(?:know|notice|find\s+out|realize)\b|\bwithout\s+(?:telling|informing|mentioning\s+(?:it|this|anything)\s+to)\s+${USER}|\bwithout\s+letting\s+${USER}\s+know\b|\b(?:the\s+)?(?:user|human)s?\s+(?:must|should|need|needs|is|are)\s+(?:not|never)(?:\s+to)?\s+(?:know|be\s+(?:told|informed|made\s+aware|aware)|notice|find\s+out|learn\s+(?:about|of|that))\b|\b(?:keep|hide)\s+(?:this|these\s+instructions|these\s+steps|this\s+step|this\s+request|what\s+you\s+(?:are\s+doing|do|did)|your\s+actions)\s+(?:secret\s+|hidden\s+)?from\s+${USER}|\bbehind\s+the\s+user['’]?s?\s+back\b|\bwithout\s+(?:the\s+)?user(?:['’]s)?\s+(?:knowing|noticing|realizing)\b`,
    ),
  },
  {
    id: 'stealth',
    needs: ['secretly', 'covertly', 'surreptitiously', 'stealthily', 'clandestinely'],
    detail: 'tells the model to act in secret',
    re: re(String.raw`\b(?:secretly|covertly|surreptitiously|stealthily|clandestinely)\b`),
  },
  {
    // An LLM-proxy tool's "system prompt sent to the model" has no possessive and no reveal verb.
    id: 'system-prompt-exfiltration',
    needs: [
      'system prompt',
      'system message',
      'system instruction',
      'initial',
      'verbatim',
      'your instruction',
      'hidden instruction',
      'secret instruction',
      'original instruction',
    ],
    detail: "asks for the model's system prompt",
    re: re(
      String.raw`\b(?:reveal|print|output|repeat|share|leak|disclose|dump|copy|include|pass|send|append|attach|write\s+out|tell\s+me|show\s+me|recite|provide|paste|insert|add|put|give\s+me)\s+(?:\w+\s+){0,2}?your\s+(?:full\s+|entire\s+|complete\s+|exact\s+)?(?:system\s+(?:prompt|message|instructions)|initial\s+(?:instructions|prompt)|hidden\s+instructions|secret\s+instructions|original\s+instructions|(?:instructions|prompt|rules)\s+verbatim)\b|\b(?:reveal|print|output|repeat|leak|disclose|dump|recite)\s+(?:\w+\s+){0,2}?(?:your\s+instructions\b|the\s+(?:full\s+|entire\s+|complete\s+|exact\s+|current\s+|original\s+|hidden\s+)?system\s+(?:prompt|message|instructions)\b)`,
    ),
  },
  {
    // A `force` flag "skips the confirmation prompt"; telling the model not to ask the user is not that.
    id: 'skip-confirmation',
    needs: ['confirmation', 'permission', 'approval', 'consent', 'without'],
    detail: 'tells the model not to ask the user for confirmation',
    re: re(
      String.raw`\b(?:never|do\s+not|don['’]?t|no\s+need\s+to)\s+(?:ask|request|seek|wait\s+for|get)\s+(?:the\s+)?user(?:['’]s)?\s+(?:for\s+)?(?:confirmation|permission|approval|consent)\b|\b(?:never|do\s+not|don['’]?t|no\s+need\s+to)\s+(?:ask|request|seek|wait\s+for)\s+(?:for\s+)?(?:confirmation|permission|approval|consent)\s+(?:from|of)\s+the\s+user\b|\bwithout\s+(?:asking|consulting|checking\s+with)\s+the\s+user\s+(?:for|first|before)\b`,
    ),
  },
];

/** Every gate word; `includes` on each is cheaper than a regex capturing all of them. */
const GATE_WORDS = [...new Set(STRONG.flatMap((p) => [...p.needs, ...(p.also ?? [])]))];
/** One test that most text fails: does it hold any word a strong pattern needs? */
const ANY_GATE = new RegExp(
  [...new Set(STRONG.flatMap((p) => p.needs))].map((w) => w.trim().replace(/ /g, '\\s+')).join('|'),
  'i',
);

/** The fixed-phrase findings in `text`, and the spans they matched. */
function strongFindings(text: string, lower: string, where: string, spans: [number, number][]): Finding[] {
  const present = new Set(GATE_WORDS.filter((word) => lower.includes(word)));
  if (present.size === 0) return [];
  const findings: Finding[] = [];
  for (const pattern of STRONG) {
    if (!pattern.needs.some((word) => present.has(word))) continue;
    if (pattern.also && !pattern.also.some((word) => present.has(word))) continue;
    const m = pattern.re.exec(text);
    if (!m) continue;
    spans.push([m.index, m.index + m[0].length]);
    findings.push({ kind: 'instruction_override', where, excerpt: clip(m[0], 80), detail: pattern.detail });
  }
  return findings;
}

/**
 * The structural findings, less those over a phrase a fixed pattern already explained (one
 * sentence, one reason), and the other languages' findings.
 */
function structuralFindings(
  text: string,
  lower: string,
  where: string,
  spans: readonly [number, number][],
): Finding[] {
  const structural = findStructuralOverrides(text, lower, where)
    .filter(({ start, end }) => !spans.some(([from, to]) => start < to && from < end))
    .map(({ finding }) => finding);
  return [...structural, ...findForeignOverrides(text, lower, where)];
}

/** Whether `text` holds anything an override pattern starts from (a cheap pre-check). */
export function mightOverride(text: string): boolean {
  return (
    ANY_GATE.test(text) ||
    mightOverrideStructurally(text) ||
    mightOverrideInOtherLanguage(text) ||
    mightPoison(text)
  );
}

/** Every instruction-override finding in `text` (a matching form, see `matchingForms`). */
export function findInstructionOverrides(text: string, where: string): Finding[] {
  if (text.length < 6) return [];
  // One space between words, so that the gate words match however the text is spaced.
  const lower = text.toLowerCase().replace(/[\t\n\r\f\v ]{2,}|[\t\n\r\f\v]/g, ' ');
  const spans: [number, number][] = [];
  const fixed = ANY_GATE.test(text) ? strongFindings(text, lower, where, spans) : [];
  const strong = [...fixed, ...structuralFindings(text, lower, where, spans)];
  return [...strong, ...poisoningFindings(text, lower, where, strong.length > 0)];
}
