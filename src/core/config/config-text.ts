import { createScanner, type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import { SwitchboardError } from '../errors.js';
import { shownText } from './issue-text.js';

/**
 * The text of a config file (JSON with comments and trailing commas) → a plain value, with
 * bounds on what is accepted. Pure: no file system here.
 *
 * - **Size**: our config files up to 4 MiB (thousands of entries; reading and checking that
 *   takes milliseconds), other clients' files up to 64 MiB (`~/.claude.json` keeps a history
 *   that grows). The reader (config-files) refuses a larger file before reading it.
 * - **Depth**: our files nest at most 64 objects and arrays (a config needs 6), other clients'
 *   files 512. jsonc-parser parses recursively, so a file of thousands of `[` would otherwise
 *   overflow the stack; the depth is counted first with its scanner, which does not recurse.
 * - **Keys**: in our files a key given twice in one object is refused (which of the two is
 *   meant cannot be known, and JSON parsers differ on it), and so is `__proto__`, which plain
 *   JavaScript objects read as their prototype (the entry would vanish silently). Other
 *   clients' files are read as their clients read them: the last duplicate wins.
 * - Every value becomes an own property (`__proto__` included): nothing of a file can reach an
 *   object's prototype.
 */

/** How strictly a text is read: our config files, or another client's. */
export interface ConfigTextLimits {
  /** Deepest nesting of objects and arrays accepted. */
  readonly maxDepth: number;
  /** Longest text accepted, in characters (the reader bounds bytes before reading). */
  readonly maxChars: number;
  /** `reject`: a key given twice in one object, or `__proto__`, is an error; `last`: the last one wins. */
  readonly duplicateKeys: 'reject' | 'last';
}

/** The bound on the size of our config files, in bytes. */
export const CONFIG_MAX_BYTES = 4 * 1024 * 1024;
/** The bound on the size of other clients' config files, in bytes. */
export const FOREIGN_CONFIG_MAX_BYTES = 64 * 1024 * 1024;

/** Our config files: `switchboard.json`, `~/.switchboard/config.json`. */
export const OWN_CONFIG_LIMITS: ConfigTextLimits = {
  maxDepth: 64,
  maxChars: CONFIG_MAX_BYTES,
  duplicateKeys: 'reject',
};

/** Other clients' config files, read for an import. */
export const FOREIGN_CONFIG_LIMITS: ConfigTextLimits = {
  maxDepth: 512,
  maxChars: FOREIGN_CONFIG_MAX_BYTES,
  duplicateKeys: 'last',
};

/** Plain words for jsonc-parser's error codes (by their printed name). */
const PARSE_PROBLEMS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'a number is not written correctly',
  CommaExpected: 'a comma is missing',
  ColonExpected: 'a colon is missing',
  PropertyNameExpected: 'a property name in double quotes is expected',
  ValueExpected: 'a value is expected',
  CloseBraceExpected: 'a closing "}" is missing',
  CloseBracketExpected: 'a closing "]" is missing',
  EndOfFileExpected: 'there is more text after the end of the object',
  UnexpectedEndOfString: 'a string is not closed',
  UnexpectedEndOfComment: 'a /* comment is not closed',
  UnexpectedEndOfNumber: 'a number is cut short',
  InvalidUnicode: 'a \\u escape is not valid',
  InvalidEscapeCharacter: 'invalid escape in a string',
  InvalidCharacter: 'a control character inside a string',
};

// jsonc-parser's SyntaxKind is a const enum, which isolated modules cannot read: its values.
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const EOF = 17;

/** 1-based line and column of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Parses the text of a config file. An empty file is an empty config. Throws CONFIG_INVALID
 * naming `file:line:column` for a syntax error, a nesting past the limit, or (ours) a key
 * given twice or `__proto__`.
 */
export function parseConfigText(
  text: string,
  file: string,
  limits: ConfigTextLimits = OWN_CONFIG_LIMITS,
): unknown {
  const body = text.replace(/^\uFEFF/, '');
  const at = (offset: number, problem: string, fix: string) => {
    const { line, column } = lineAndColumn(body, offset);
    return new SwitchboardError('CONFIG_INVALID', `${file}:${line}:${column}: ${problem}. ${fix}`, {
      details: { file, line, column },
    });
  };
  if (body.length > limits.maxChars) {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `${file}: the file has ${body.length} characters, more than the ${limits.maxChars} a config file may have. ` +
        'Check that it is the right file; split a generated config or remove what it does not need.',
      { details: { file } },
    );
  }
  const deep = tooDeepAt(body, limits.maxDepth);
  if (deep !== undefined) {
    throw at(
      deep,
      `objects and arrays nest deeper than ${limits.maxDepth} levels here`,
      'A config needs only a few levels: check the file for a run of "[" or "{" and remove it.',
    );
  }
  const errors: ParseError[] = [];
  const root = parseTree(body, errors, { allowTrailingComma: true, allowEmptyContent: true });
  const first = errors[0];
  if (first) {
    const code = printParseErrorCode(first.error);
    throw at(
      first.offset,
      PARSE_PROBLEMS[code] ?? code,
      'Fix the JSON there (comments and trailing commas are allowed).',
    );
  }
  return root ? nodeValue(root, { body, limits, at }) : {};
}

/** The offset of the first `{` or `[` past `maxDepth` levels, or undefined. Iterative. */
function tooDeepAt(text: string, maxDepth: number): number | undefined {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let token = scanner.scan(); token !== EOF; token = scanner.scan()) {
    if (token === OPEN_BRACE || token === OPEN_BRACKET) {
      depth++;
      if (depth > maxDepth) return scanner.getTokenOffset();
    } else if (token === CLOSE_BRACE || token === CLOSE_BRACKET) {
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
}

interface Reading {
  readonly body: string;
  readonly limits: ConfigTextLimits;
  readonly at: (offset: number, problem: string, fix: string) => SwitchboardError;
}

/** The value of a parse tree node; recursion is bounded by the depth checked before. */
function nodeValue(node: Node, reading: Reading): unknown {
  const { limits, at } = reading;
  switch (node.type) {
    case 'array':
      return (node.children ?? []).map((child) => nodeValue(child, reading));
    case 'object': {
      const object: Record<string, unknown> = {};
      const firstAt = new Map<string, number>();
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (!keyNode || !valueNode) continue;
        const key = String(keyNode.value);
        if (limits.duplicateKeys === 'reject') {
          if (key === '__proto__')
            throw at(
              keyNode.offset,
              'the key "__proto__" is not allowed',
              "JavaScript reads it as an object's prototype, so what it holds would be lost. Rename or remove it.",
            );
          const earlier = firstAt.get(key);
          if (earlier !== undefined)
            throw at(
              keyNode.offset,
              `the key ${shownText(key)} appears twice in one object (first at line ${lineAndColumn(reading.body, earlier).line})`,
              'Keep one of the two.',
            );
          firstAt.set(key, keyNode.offset);
        }
        // defineProperty, not assignment: "__proto__" stays an own property like any other key.
        Object.defineProperty(object, key, {
          value: nodeValue(valueNode, reading),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return object;
    }
    default:
      return node.value;
  }
}
