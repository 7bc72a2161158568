import { preparedFields } from './prepared-response.js';

/**
 * Adds headers to a response. A response whose headers are immutable (`Response.redirect`,
 * one returned by `fetch`) is re-wrapped around the same body stream, so nothing is copied.
 * With `overwrite: false`, a header the response already has is kept.
 */
export function withHeaders(
  response: Response,
  headers: Readonly<Record<string, string>>,
  options: { overwrite?: boolean } = {},
): Response {
  // A prepared response keeps its headers in a plain record (prepared-response.ts).
  const fields = preparedFields(response);
  if (fields !== undefined) {
    for (const [name, value] of Object.entries(headers)) {
      const key = name.toLowerCase();
      if (options.overwrite === false && Object.hasOwn(fields, key)) continue;
      fields[key] = value;
    }
    return response;
  }
  const apply = (target: Headers) => {
    for (const [name, value] of Object.entries(headers)) {
      if (options.overwrite === false && target.has(name)) continue;
      target.set(name, value);
    }
  };
  try {
    apply(response.headers);
    return response;
  } catch (error) {
    // The immutable guard throws a TypeError on the first set, before anything changed.
    if (!(error instanceof TypeError)) throw error;
    const copy = new Response(response.body, response);
    apply(copy.headers);
    return copy;
  }
}
