/**
 * A time as ISO 8601 text (`Date.prototype.toISOString`), made once per millisecond: a busy
 * gateway stamps many records in the same one (access lines, audit rows), and formatting a
 * date costs more than the rest of such a record's fields. Throws as `toISOString` does for an
 * invalid date.
 */
export function isoTime(at: Date): string {
  const time = at.getTime();
  if (time !== lastTime) {
    lastIso = at.toISOString();
    lastTime = time;
  }
  return lastIso;
}

let lastTime = Number.NaN;
let lastIso = '';
