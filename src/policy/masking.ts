/**
 * Secret masking for what people and logs are shown of a tool call: argument previews in the
 * Inbox, form fields a front-end must read without echo. Pure: values in, masked copies out.
 *
 * A value is secret when its schema says so (`format: "password"`, or `writeOnly: true` —
 * JSON Schema 2020-12 §9.4), when its name says so, or when the value itself looks like a
 * credential (see `SECRET_VALUE_PATTERNS`). Names are matched on their letters and digits
 * only, case-insensitively, so `apiToken`, `api_token`, `API-TOKEN` and `x-api-key` all count.
 */

/** What a secret value is replaced with. */
export const MASKED = '••••••';

/**
 * Name fragments that mark a secret. Beyond the four the issue names (password, passphrase,
 * secret, token): `passwd`; `apikey`, `privatekey`, `accesskey` (as in `api_key`,
 * `private_key`, `aws_access_key_id`); `credential`; `authorization` (the header); `cookie`.
 * Left out on purpose: `auth` (also `author`, `auth_mode`), `pwd` (the working directory),
 * `key` (every map has one), `pin` (also `pinned`).
 */
const SECRET_NAME_FRAGMENTS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'privatekey',
  'accesskey',
  'credential',
  'authorization',
  'cookie',
] as const;

/**
 * Credential shapes masked wherever they appear, whatever the field is called. Each pattern
 * is specific enough not to match ordinary prose: a prefix the issuer reserved plus a long
 * run of token characters.
 */
const SECRET_VALUE_PATTERNS: readonly { readonly pattern: RegExp; readonly replacement: string }[] = [
  // PEM private keys, to the END line (or the end of a truncated value).
  {
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    replacement: MASKED,
  },
  // JWTs: base64url `{"` header and payload (RFC 7519 §3), any signature.
  { pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, replacement: MASKED },
  // GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained PATs.
  { pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g, replacement: MASKED },
  // OpenAI / Anthropic style `sk-…` keys.
  { pattern: /\bsk-[A-Za-z0-9_-]{20,}/g, replacement: MASKED },
  // Stripe secret and restricted keys.
  { pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g, replacement: MASKED },
  // Slack tokens.
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replacement: MASKED },
  // AWS access key ids.
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replacement: MASKED },
  // Google API keys.
  { pattern: /\bAIza[0-9A-Za-z_-]{35}/g, replacement: MASKED },
  // `Bearer <token>` (RFC 6750 §2.1): the token goes, the scheme stays. A digit is required so
  // that "Bearer instruments" and the like stay readable.
  {
    pattern: /\b(Bearer\s+)(?=[A-Za-z0-9._~+/-]*[0-9])[A-Za-z0-9._~+/-]{16,}=*/g,
    replacement: `$1${MASKED}`,
  },
  // The password of a URL's userinfo (`postgres://user:pw@host`, RFC 3986 §3.2.1).
  { pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]+:)[^\s/?#@]+(@)/gi, replacement: `$1${MASKED}$2` },
];

/** Objects nested deeper than this are not walked; they are shown as `…`. */
const MAX_DEPTH = 32;

type SchemaObject = Record<string, unknown>;

function asRecord(value: unknown): SchemaObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as SchemaObject)
    : undefined;
}

/** The schema and its `allOf`/`anyOf`/`oneOf` branches (one level; `$ref` is not followed). */
function branches(schema: unknown): SchemaObject[] {
  const root = asRecord(schema);
  if (!root) return [];
  const out = [root];
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const list = root[key];
    if (Array.isArray(list)) for (const branch of list) if (asRecord(branch)) out.push(branch);
  }
  return out;
}

/** The schema itself declares the value secret. */
function declaredSecret(schema: unknown): boolean {
  return branches(schema).some((s) => s.format === 'password' || s.writeOnly === true);
}

function nameLooksSecret(name: string): boolean {
  const letters = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_NAME_FRAGMENTS.some((fragment) => letters.includes(fragment));
}

/** The JSON types the schema allows, or undefined when it does not say. */
function declaredTypes(schema: unknown): string[] | undefined {
  const types = branches(schema).flatMap((s) =>
    typeof s.type === 'string'
      ? [s.type]
      : Array.isArray(s.type)
        ? s.type.filter((t) => typeof t === 'string')
        : [],
  );
  return types.length > 0 ? types : undefined;
}

/**
 * True when a field is a secret, judged from its name and (optionally) its schema:
 * `format: "password"` or `writeOnly: true`, or a name containing one of the secret fragments
 * (password, passphrase, secret, token, api key, …). A name alone does not make a field
 * secret when the schema says it holds only numbers or booleans — `max_tokens: integer` is a
 * count, not a credential.
 */
export function isSecretField(name: string, schema?: unknown): boolean {
  if (declaredSecret(schema)) return true;
  if (!nameLooksSecret(name)) return false;
  const types = declaredTypes(schema);
  return types === undefined || types.some((t) => t === 'string' || t === 'object' || t === 'array');
}

/**
 * Replaces every credential-shaped part of `text` (GitHub, OpenAI/Anthropic, Stripe, Slack,
 * AWS and Google keys, JWTs, `Bearer` tokens, PEM private keys, URL passwords) with `MASKED`,
 * leaving the rest readable.
 */
export function maskSecretValues(text: string): string {
  let out = text;
  for (const { pattern, replacement } of SECRET_VALUE_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

function propertySchema(schema: unknown, key: string): unknown {
  for (const s of branches(schema)) {
    const properties = asRecord(s.properties);
    if (properties && Object.hasOwn(properties, key)) return properties[key];
  }
  for (const s of branches(schema)) if (asRecord(s.additionalProperties)) return s.additionalProperties;
  return undefined;
}

function itemSchema(schema: unknown, index: number): unknown {
  for (const s of branches(schema)) {
    if (Array.isArray(s.prefixItems) && index < s.prefixItems.length) return s.prefixItems[index];
    if (Array.isArray(s.items)) {
      if (index < s.items.length) return s.items[index];
    } else if (asRecord(s.items)) return s.items;
  }
  return undefined;
}

/**
 * A value is masked whole when its schema says it is secret, or when its name does and it can
 * hold text. The value's own type decides, not the schema's: `max_tokens: 100` stays,
 * `token: "…"` goes. Array elements have no name; only their schema can mask them whole.
 */
function masksWhole(name: string | undefined, schema: unknown, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (declaredSecret(schema)) return true;
  return (
    name !== undefined && (typeof value === 'string' || typeof value === 'object') && nameLooksSecret(name)
  );
}

function maskChild(name: string | undefined, schema: unknown, value: unknown, depth: number): unknown {
  return masksWhole(name, schema, value) ? MASKED : maskValue(value, schema, depth + 1);
}

function maskValue(value: unknown, schema: unknown, depth: number): unknown {
  if (typeof value === 'string') return maskSecretValues(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(value)) return value.map((v, i) => maskChild(undefined, itemSchema(schema, i), v, depth));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    // defineProperty: a `__proto__` key from JSON.parse stays an ordinary own property.
    Object.defineProperty(out, key, {
      value: maskChild(key, propertySchema(schema, key), v, depth),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * A deep copy of a tool call's arguments with secrets replaced by `MASKED`. Follows the input
 * schema's `properties`, `additionalProperties`, `items` and `prefixItems` where it has them
 * and judges by names elsewhere; credential-shaped text is masked in every string. Nesting
 * past 32 levels is cut to `…`.
 */
export function maskArguments(
  args: Readonly<Record<string, unknown>>,
  inputSchema?: unknown,
): Record<string, unknown> {
  return maskValue(args, inputSchema, 0) as Record<string, unknown>;
}

/**
 * The masked arguments as compact one-line JSON for a person to read, cut at `maxChars`
 * (default 500) with `…` and the full length, e.g. `{"path":"/tmp/a","body":"lorem… (12034 chars)`.
 */
export function previewArguments(
  args: Readonly<Record<string, unknown>> | undefined,
  inputSchema?: unknown,
  options: { readonly maxChars?: number } = {},
): string {
  const maxChars = Math.max(1, options.maxChars ?? 500);
  let text: string;
  try {
    text = JSON.stringify(maskArguments(args ?? {}, inputSchema)) ?? '{}';
  } catch {
    return '(arguments that cannot be shown as JSON)';
  }
  if (text.length <= maxChars) return text;
  let head = text.slice(0, maxChars);
  // Never leave half a surrogate pair at the cut.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return `${head}… (${text.length} chars)`;
}
