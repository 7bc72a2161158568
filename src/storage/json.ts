/**
 * JSON and time columns. Values are kept as JSON text and times as ISO-8601 UTC text, which
 * every SQL dialect stores and compares the same way (ISO strings sort in time order).
 */
import { SwitchboardError } from '../core/errors.js';
import { isoTime } from '../core/iso-time.js';

/** The source of "now" for a store; tests pass a fixed clock. */
export type Clock = () => Date;

/** The JSON text of `value`; refuses what JSON cannot carry instead of storing garbage. */
export function toJson(value: unknown, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new SwitchboardError('STORAGE_FAILED', `Cannot store ${what}: it is not JSON-serialisable.`, {
      cause: error,
    });
  }
  if (text === undefined)
    throw new SwitchboardError(
      'STORAGE_FAILED',
      `Cannot store ${what}: ${typeof value} is not a JSON value; pass null to store "nothing".`,
    );
  return text;
}

/** The JSON text of `value`, or SQL NULL when it is absent (`null` is stored as JSON null). */
export function toOptionalJson(value: unknown, what: string): string | null {
  return value === undefined ? null : toJson(value, what);
}

/** The value of a JSON column (SQL NULL, an absent value, reads back as `undefined`). */
export function fromJson(text: string | null): unknown {
  return text === null ? undefined : JSON.parse(text);
}

/** A time as stored (its ISO text, made once per millisecond). */
export function toTime(date: Date): string {
  return isoTime(date);
}

/** A stored time as a Date. */
export function fromTime(text: string): Date {
  return new Date(text);
}
