import type { ApiServer } from '../../src/gateway/api/api-types.js';
import { StateBadge } from './state-badge.js';

/**
 * With gateway replicas (docs/replicas.md): the server's state on each of them, by the
 * replica's address, this one marked. Each replica connects to its servers on its own.
 */
export function ReplicaStates(props: { readonly server: ApiServer }) {
  const { server } = props;
  const replicas = server.replicas;
  if (!replicas || replicas.length < 2) return null;
  return (
    <details class="replicas" data-testid={`server-replicas-${server.name}`}>
      <summary>
        On {replicas.filter((r) => r.state === 'connected').length} of {replicas.length} replicas
      </summary>
      <ul>
        {replicas.map((r) => (
          <li key={r.replica}>
            <code>{r.replica}</code>
            {r.self && ' (this one)'} <StateBadge name={`${server.name}@${r.replica}`} state={r.state} />
            {r.error && (
              <>
                {' '}
                <strong>{r.error.code}</strong>: {r.error.message}
              </>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}
