import type { z } from 'zod';
import { FIELD_HINTS } from '../../core/config/entry-schema.js';
import { describeIssue } from '../../core/config/issue-text.js';
import { ApiProblem } from './api-errors.js';

/**
 * A request's JSON body and query string, checked with the route's zod schema. A refusal is a
 * 400 `INVALID_REQUEST` that names the field and says how to write it; the field is also in
 * `details.field`, for a form to put the message next to the input.
 */

/** How entry fields are written, under the `entry.` prefix a request body gives them. */
const HINTS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(FIELD_HINTS).map(([field, hint]) => [`entry.${field}`, hint]),
);

/** The body as `schema` wants it. An absent body counts as `{}`. */
export function parseBody<S extends z.ZodType>(bytes: Uint8Array | undefined, schema: S): z.output<S> {
  let value: unknown = {};
  if (bytes && bytes.byteLength > 0) {
    try {
      value = JSON.parse(Buffer.from(bytes).toString('utf8'));
    } catch {
      throw new ApiProblem(
        400,
        'INVALID_REQUEST',
        'The request body is not JSON. Send a JSON object with Content-Type: application/json.',
      );
    }
  }
  return check(schema, value, 'The request body');
}

/**
 * The query parameters as `schema` wants them: each parameter once, as text (the schema
 * coerces numbers). A parameter given twice is refused rather than one of them picked.
 */
export function parseQuery<S extends z.ZodType>(params: URLSearchParams, schema: S): z.output<S> {
  const value: Record<string, string> = {};
  for (const [key, text] of params) {
    if (Object.hasOwn(value, key)) {
      throw new ApiProblem(
        400,
        'INVALID_REQUEST',
        `The query parameter "${key}" is given twice. Give it once.`,
        {
          details: { field: key },
        },
      );
    }
    // An empty parameter (`?server=`) means "not given", as forms send it.
    if (text !== '') value[key] = text;
  }
  return check(schema, value, 'The query');
}

function check<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const described = describeIssue(issue, schema, HINTS);
  const field = issue.path.length === 0 && issue.code !== 'unrecognized_keys' ? undefined : described.field;
  const what = field === undefined ? '' : ` field "${field}"`;
  throw new ApiProblem(400, 'INVALID_REQUEST', `${where} is not valid:${what} ${described.problem}`, {
    ...(field !== undefined && { details: { field } }),
  });
}
