import type { Middleware } from '../context.js';
import { HttpError } from '../http-error.js';
import { grantsNothing } from '../principal.js';

/**
 * Coarse authorization: a principal whose grants allow no server or no tool gets 403 here,
 * before the MCP layer does any work. Everything finer (which server, which tool) is the MCP
 * layer's, through `ctx.principal.allows(server, tool)`.
 */
export function authorize(): Middleware {
  return (ctx, next) => {
    const principal = ctx.principal;
    if (principal === undefined) throw new Error('Authorization runs before authentication.');
    if (grantsNothing(principal.grants)) {
      throw new HttpError(
        403,
        `"${principal.id}" may use no server or tool of this gateway. Ask for access to be granted.`,
      );
    }
    return next();
  };
}
