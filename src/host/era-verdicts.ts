import { type EraVerdict, type EraVerdictStore, MemoryEraVerdictStore } from '../client/era.js';
import type { KeyValueRepository } from '../storage/ports.js';

/**
 * The protocol-era verdicts the connections cache, kept across restarts. Connections read
 * them synchronously, so they are loaded into memory once at start and written through to the
 * store as they change (a lost write only costs one extra probe later).
 */
const NAMESPACE = 'era-verdict';

export async function persistentEraVerdicts(
  kv: KeyValueRepository,
  onError: (error: unknown) => void,
): Promise<EraVerdictStore> {
  const memory = new MemoryEraVerdictStore();
  for (const { key, value } of await kv.list(NAMESPACE)) memory.set(key, value as EraVerdict);
  return {
    get: (key) => memory.get(key),
    set: (key, verdict) => {
      memory.set(key, verdict);
      kv.set(NAMESPACE, key, verdict).catch(onError);
    },
    delete: (key) => {
      memory.delete(key);
      kv.delete(NAMESPACE, key).catch(onError);
    },
  };
}
