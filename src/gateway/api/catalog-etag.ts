import { createHash } from 'node:crypto';
import type { CatalogSnapshot } from '../../host/catalog/catalog.js';
import type { Principal } from '../http/context.js';

/**
 * The etag of what one principal sees of the catalog through the API: the tools its grants
 * reach (by name and definition hash), and the resources, resource templates and prompts of
 * the servers it sees. The event stream sends `catalog` when this changes, so a principal is
 * not told of a change behind another's grants (the catalog's own etag changes with every
 * server's offer). Pure.
 */
export function visibleCatalogEtag(snapshot: CatalogSnapshot, principal: Principal): string {
  const hash = createHash('sha256');
  for (const t of snapshot.tools)
    if (principal.allows(t.server, t.tool.name)) hash.update(`t\0${t.name}\0${t.hash}\n`);
  for (const r of snapshot.resources)
    if (principal.allows(r.server)) hash.update(`r\0${r.server}\0${JSON.stringify(r.item)}\n`);
  for (const t of snapshot.resourceTemplates)
    if (principal.allows(t.server)) hash.update(`u\0${t.server}\0${JSON.stringify(t.item)}\n`);
  for (const p of snapshot.prompts)
    if (principal.allows(p.server)) hash.update(`p\0${p.server}\0${JSON.stringify(p.item)}\n`);
  return hash.digest('hex').slice(0, 16);
}
