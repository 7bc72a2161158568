/**
 * Every migration the code knows, by id. A static list rather than a directory scan, so a
 * bundled Switchboard carries its migrations. Ids sort in the order they apply; append only.
 */
import type { Migration } from 'kysely';
import { migration001Initial } from './001-initial.js';
import { migration002GrantsTokens } from './002-grants-tokens.js';
import { migration003Locks } from './003-locks.js';
import { migration004Replicas } from './004-replicas.js';
import { migration005Tasks } from './005-tasks.js';
import { migration006ReplicaViews } from './006-replica-views.js';

/** The migrations of this version of Switchboard, keyed by id. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '001-initial': migration001Initial,
  '002-grants-tokens': migration002GrantsTokens,
  '003-locks': migration003Locks,
  '004-replicas': migration004Replicas,
  '005-tasks': migration005Tasks,
  '006-replica-views': migration006ReplicaViews,
};
