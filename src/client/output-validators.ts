import type { Tool } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { describeError } from '../core/errors.js';
import type { OutputValidator } from './results.js';

/**
 * Compiled `outputSchema` validators, one per tool definition (a new definition after
 * `list_changed` compiles anew). A schema that does not compile yields a validator that
 * reports why, so the result says so instead of the call failing.
 */
export class OutputValidators {
  private readonly cache = new WeakMap<Tool, OutputValidator | undefined>();
  private readonly ajv = new AjvJsonSchemaValidator();

  for(tool: Tool): OutputValidator | undefined {
    if (this.cache.has(tool)) return this.cache.get(tool);
    const validator = tool.outputSchema ? this.compile(tool.outputSchema) : undefined;
    this.cache.set(tool, validator);
    return validator;
  }

  private compile(schema: NonNullable<Tool['outputSchema']>): OutputValidator {
    try {
      const check = this.ajv.getValidator(schema as Parameters<AjvJsonSchemaValidator['getValidator']>[0]);
      return (value) => {
        const result = check(value);
        return result.valid ? undefined : (result.errorMessage ?? 'does not match the output schema');
      };
    } catch (error) {
      const reason = `the tool's outputSchema cannot be compiled: ${describeError(error)}`;
      return () => reason;
    }
  }
}
