import { clip, type Finding } from './finding.js';

/**
 * Fake role and system markers: the tokens and conventions chat templates use to separate
 * turns (ChatML, Llama, Gemma, the Anthropic text format, markdown role headings, JSON
 * messages), written into a description or into data so that what follows reads as a system
 * or user turn, or so that a tool result seems to have ended. Honest near-misses stay quiet:
 * a tokenizer tool mentioning `<|endoftext|>`, IIS's `<system.webServer>`, a heading
 * "## System requirements", a line "System: Linux 6.5", "labelled Human: or Assistant:" in
 * the middle of a sentence.
 */
interface Marker {
  readonly detail: string;
  /** Cheap gate: the marker can only match a text containing one of these (lower-case). */
  readonly needs: readonly string[];
  readonly re: RegExp;
}

const ROLE = '(?:system|user|assistant|developer|tool|ipython)';

const MARKERS: readonly Marker[] = [
  {
    detail: 'ChatML turn marker',
    needs: ['<|'],
    re: new RegExp(String.raw`<\|\s*im_(?:start|sep)\s*\|>\s*${ROLE}\b`, 'i'),
  },
  {
    detail: 'chat-template role token',
    needs: ['<|'],
    re: /<\|\s*(?:system|user|assistant|developer|im_system)\s*\|>/i,
  },
  {
    detail: 'Llama 3 role header',
    needs: ['<|'],
    re: new RegExp(String.raw`<\|start_header_id\|>\s*${ROLE}\s*<\|end_header_id\|>`, 'i'),
  },
  { detail: 'Llama [INST] marker', needs: ['inst]'], re: /\[\/?INST\]/ },
  { detail: 'Llama <<SYS>> marker', needs: ['sys>>'], re: /<<\/?SYS>>/i },
  {
    detail: 'Gemma turn marker',
    needs: ['<start_of_turn>'],
    re: /<start_of_turn>\s*(?:user|model|system)\b/i,
  },
  {
    detail: 'markdown role heading',
    needs: ['#'],
    re: /^[ \t]*#{1,6}[ \t]*(?:system|assistant|user|human|developer|instructions?|response)(?:[ \t]+(?:prompt|message))?[ \t]*:/im,
  },
  {
    detail: 'fake conversation tag',
    needs: ['<'],
    re: /<\/?[ \t]*(?:system|system[_-]?(?:prompt|message|instructions?|reminder|override)|assistant|developer|tool[_-]?(?:results?|response|output|call)|function[_-]?(?:results?|calls?|response))[ \t]*>/i,
  },
  {
    detail: 'Human:/Assistant: turn at a line start',
    needs: ['human', 'assistant'],
    re: /^[ \t]*(?:Human|Assistant)[ \t]*:/m,
  },
  {
    detail: 'JSON message with a system role',
    needs: ['role'],
    re: /["']role["']\s*:\s*["'](?:system|developer)["']/i,
  },
  {
    detail: 'upper-case role label at a line start',
    needs: ['system', 'assistant', 'developer'],
    re: /^[ \t]*(?:\[(?:SYSTEM|ASSISTANT|DEVELOPER)(?:[ \t]+[A-Z]+)?\]|(?:SYSTEM|ASSISTANT|DEVELOPER)(?:[ \t]+(?:MESSAGE|PROMPT|NOTE|OVERRIDE|INSTRUCTIONS?|UPDATE))?[ \t]*:)/m,
  },
  {
    detail: 'fake section delimiter',
    needs: ['begin', 'start', 'end'],
    re: /(?:\[|[-=#*]{3,}|<!--)[ \t]*(?:begin|start|end)(?:[ \t]+of)?(?:[ \t]+the)?[ \t]+(?:system[ \t]+(?:prompt|message|instructions)|tool[ \t]+(?:output|result|response)s?|user[ \t]+(?:input|message)|untrusted[ \t]+data)/i,
  },
];

/** One or two tests that most text fails: every marker needs one of these. */
const ANY_MARKER = /[<[#]|[-=*]{3}|SYSTEM|ASSISTANT|DEVELOPER/;
const ANY_ROLE_WORD = /human|assistant|role/i;

/** Every role-marker finding in `text` (a matching form, see `matchingForms`). */
export function findRoleMarkers(text: string, where: string): Finding[] {
  if (text.length < 5 || !(ANY_MARKER.test(text) || ANY_ROLE_WORD.test(text))) return [];
  const lower = text.toLowerCase();
  const findings: Finding[] = [];
  for (const marker of MARKERS) {
    if (!marker.needs.some((word) => lower.includes(word))) continue;
    const m = marker.re.exec(text);
    if (!m) continue;
    const excerpt = text.slice(m.index, m.index + Math.max(m[0].length, 60));
    findings.push({ kind: 'role_marker', where, excerpt: clip(excerpt, 80), detail: marker.detail });
  }
  return findings;
}
