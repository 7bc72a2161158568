import { preparedFields } from './prepared-response.js';

/** Headers to add, by lower-case name, made once (`headerList`) rather than per response. */
export type HeaderList = readonly (readonly [name: string, value: string])[];

/** `headers` as a `HeaderList`: names in lower case, as both `Headers` and Node keep them. */
export function headerList(headers: Readonly<Record<string, string>>): HeaderList {
  return Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value] as const);
}

/**
 * Adds headers to a response. A response whose headers are immutable (`Response.redirect`,
 * one returned by `fetch`) is re-wrapped around the same body stream, so nothing is copied.
 * With `overwrite: false`, a header the response already has is kept.
 */
export function withHeaders(
  response: Response,
  headers: HeaderList,
  options: { overwrite?: boolean } = {},
): Response {
  // A prepared response keeps its headers in a plain record (prepared-response.ts).
  const fields = preparedFields(response);
  if (fields !== undefined) {
    for (const [name, value] of headers) {
      if (options.overwrite === false && Object.hasOwn(fields, name)) continue;
      fields[name] = value;
    }
    return response;
  }
  const apply = (target: Headers) => {
    for (const [name, value] of headers) {
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

/** `withHeaders` for one header, named in lower case: a request's own value (its id). */
export function withHeader(response: Response, name: string, value: string): Response {
  const fields = preparedFields(response);
  if (fields === undefined) return withHeaders(response, [[name, value]]);
  fields[name] = value;
  return response;
}
