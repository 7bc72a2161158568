import { stem } from './tokenize.js';

/**
 * Words that mean the same thing when someone asks for a tool. Generic on purpose: the usual
 * verbs of tool names (CRUD, search, run), the things tools act on under their everyday
 * names ("folder", "popup", "how far"), and common abbreviations, nothing tied to one
 * server's tool names. A word may sit in more than one group ("add" creates and also sums). Query terms
 * are expanded with their synonyms at a discount (see tool-index.ts); the catalog is indexed
 * as written.
 */
const GROUPS: readonly (readonly string[])[] = [
  // The verbs of tool names.
  ['delete', 'remove', 'erase', 'destroy', 'drop', 'rm', 'purge', 'forget', 'discard', 'uninstall'],
  ['create', 'add', 'new', 'make', 'insert', 'register'],
  ['list', 'enumerate', 'ls', 'browse'],
  ['read', 'get', 'fetch', 'load', 'retrieve', 'view', 'show', 'cat', 'display'],
  ['write', 'save', 'store', 'persist', 'put'],
  ['search', 'find', 'query', 'lookup', 'locate', 'grep', 'filter'],
  ['update', 'edit', 'modify', 'change', 'patch', 'set'],
  ['move', 'rename', 'mv', 'relocate'],
  ['copy', 'duplicate', 'clone', 'cp', 'fork'],
  ['run', 'execute', 'exec', 'invoke', 'start', 'launch', 'trigger'],
  ['stop', 'cancel', 'abort', 'halt', 'kill', 'terminate'],
  ['send', 'post', 'publish', 'deliver', 'notify'],
  ['sum', 'add', 'plus', 'total'],
  ['compress', 'zip', 'gzip', 'archive', 'pack'],
  ['enable', 'disable', 'toggle', 'switch'],
  ['wait', 'sleep', 'pause', 'delay'],
  ['reply', 'respond', 'answer'],
  ['upload', 'attach'],
  ['hover', 'mouseover'],
  ['undo', 'rollback', 'revert'],
  ['restart', 'redeploy', 'rollout'],
  ['deploy', 'apply'],
  ['approve', 'review'],
  ['think', 'thought', 'reason', 'reflect'],
  // Things tools act on, and their everyday names.
  ['directory', 'folder', 'dir'],
  ['image', 'picture', 'photo', 'img', 'screenshot'],
  ['video', 'screencast'],
  ['user', 'account', 'member', 'person', 'people'],
  ['message', 'msg', 'chat'],
  ['relation', 'relationship', 'connection'],
  ['size', 'big', 'large', 'space'],
  ['dialog', 'popup', 'alert', 'modal'],
  ['dropdown', 'combobox'],
  ['field', 'input', 'textbox'],
  ['key', 'keystroke', 'keypress', 'hotkey', 'shortcut'],
  ['tab', 'page'],
  ['web', 'internet', 'online', 'google'],
  ['place', 'venue', 'business', 'shop', 'restaurant', 'cafe'],
  ['direction', 'route'],
  ['distance', 'far'],
  ['elevation', 'altitude', 'height'],
  ['coordinate', 'latitude', 'longitude', 'gps'],
  ['table', 'database', 'db'],
  ['row', 'record', 'entry'],
  ['issue', 'bug', 'ticket'],
  ['pull', 'pr'],
  ['check', 'ci'],
  ['reaction', 'react', 'emoji'],
  ['performance', 'perf', 'speed', 'slow', 'latency'],
  ['accessibility', 'a11y'],
  ['javascript', 'js', 'script'],
  ['library', 'package', 'framework', 'sdk'],
  ['kubernetes', 'k8s'],
  ['container', 'pod'],
  ['secret', 'credential', 'password'],
  ['workspace', 'team', 'organization', 'org'],
  // Abbreviations.
  ['environment', 'env'],
  ['configuration', 'config', 'settings'],
  ['repository', 'repo'],
  ['document', 'doc', 'documentation'],
  ['authentication', 'auth', 'login'],
  ['information', 'info', 'metadata', 'details', 'stat'],
  ['error', 'failure', 'exception'],
];

function buildTable(groups: readonly (readonly string[])[]): ReadonlyMap<string, readonly string[]> {
  const table = new Map<string, Set<string>>();
  for (const group of groups) {
    const stems = group.map((word) => stem(word));
    for (const s of stems) {
      const others = table.get(s) ?? new Set<string>();
      for (const other of stems) if (other !== s) others.add(other);
      table.set(s, others);
    }
  }
  return new Map([...table].map(([word, others]) => [word, [...others]]));
}

const TABLE = buildTable(GROUPS);

/** The stemmed synonyms of a stemmed term (not the term itself); empty when it has none. */
export function synonymsOf(term: string): readonly string[] {
  return TABLE.get(term) ?? [];
}
