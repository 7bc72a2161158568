import { SwitchboardError } from '../../core/errors.js';

/**
 * Tool names as LLM APIs take them. OpenAI and Anthropic accept `^[a-zA-Z0-9_-]{1,64}$`;
 * catalog names already fit (the catalog holds them to that), so for them the mapping is the
 * identity, but meta-tools, other limits and hand-built tool sets may not. The mapping is
 * deterministic for a given set of names (the order they come in does not matter), so the
 * same tool set always produces the same provider names, which keeps prompt caches warm.
 */

/** What a provider accepts; defaults fit OpenAI and Anthropic. */
export interface ProviderNameOptions {
  /** Longest name the provider accepts. Default 64. */
  readonly maxLength?: number;
}

const DEFAULT_MAX_LENGTH = 64;
const HASH_LENGTH = 8;
/** Bounds the search for a free name; a set of tools never needs more than a few tries. */
const MAX_ATTEMPTS = 1_000;

/**
 * A two-way mapping between catalog names and provider-safe names for one tool set. A name
 * that is already safe maps to itself. Any other name is sanitised (characters outside
 * `[a-zA-Z0-9_-]` become `_`) and, when too long, cut to keep its readable start and given
 * `_` plus a short hash of the original name. When two names would meet, the one that is
 * already safe keeps its name and the other gets a hash suffix (taken in sorted order, so
 * the outcome does not depend on the order of the tools).
 */
export class ProviderNames {
  private readonly forward = new Map<string, string>();
  private readonly reverse = new Map<string, string>();
  private readonly maxLength: number;

  constructor(names: Iterable<string>, options: ProviderNameOptions = {}) {
    this.maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
    if (!Number.isInteger(this.maxLength) || this.maxLength < HASH_LENGTH + 2) {
      throw new SwitchboardError(
        'CONFIG_INVALID',
        `Provider name limit ${this.maxLength} is too small; give a maxLength of at least ${HASH_LENGTH + 2}.`,
      );
    }
    const unique = [...new Set(names)].sort();
    const safe = unique.filter((name) => this.isSafe(name));
    for (const name of safe) this.assign(name, name);
    for (const name of unique) {
      if (!this.forward.has(name)) this.assign(name, this.freeName(name));
    }
  }

  /** The provider name of a catalog name in this set. Throws `NOT_FOUND` for any other name. */
  toProvider(catalogName: string): string {
    const name = this.forward.get(catalogName);
    if (name === undefined) {
      throw new SwitchboardError(
        'NOT_FOUND',
        `Tool "${catalogName}" is not in this tool set; build the ProviderNames from the tools you send.`,
      );
    }
    return name;
  }

  /** The catalog name behind a provider name, or undefined when the model named no tool of this set. */
  toCatalog(providerName: string): string | undefined {
    return this.reverse.get(providerName);
  }

  /** Every pair, catalog name → provider name. */
  entries(): IterableIterator<[string, string]> {
    return this.forward.entries();
  }

  private isSafe(name: string): boolean {
    return name.length >= 1 && name.length <= this.maxLength && /^[a-zA-Z0-9_-]+$/.test(name);
  }

  private assign(catalogName: string, providerName: string): void {
    this.forward.set(catalogName, providerName);
    this.reverse.set(providerName, catalogName);
  }

  private freeName(name: string): string {
    const sanitised = name.replace(/[^a-zA-Z0-9_-]/g, '_');
    if (sanitised.length >= 1 && sanitised.length <= this.maxLength && !this.reverse.has(sanitised)) {
      return sanitised;
    }
    const prefix = sanitised.slice(0, this.maxLength - HASH_LENGTH - 1) || 'tool';
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const candidate = `${prefix}_${shortHash(attempt === 0 ? name : `${name}\u0000${attempt}`)}`;
      if (!this.reverse.has(candidate)) return candidate;
    }
    // Unreachable in practice: 1,000 distinct 32-bit hashes all taken by other tools of one set.
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `No free provider name found for tool "${name}"; rename the tool.`,
    );
  }
}

/**
 * FNV-1a, 32 bits, as 8 hex digits: short, stable across runs and platforms, and free of
 * Node-only modules. Not for security; collisions are resolved by the caller.
 */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(HASH_LENGTH, '0');
}
