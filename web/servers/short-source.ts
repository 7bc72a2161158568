/**
 * A config file's path as its last two parts (`demo/switchboard.json`), the whole path in the
 * tooltip: the folder names above say little and crowd the card. `api` and `store` stay as they are.
 */
export function shortSource(source: string): string {
  const parts = source.split(/[\\/]/).filter((part) => part !== '');
  return parts.length > 2 ? `…/${parts.slice(-2).join('/')}` : source;
}
