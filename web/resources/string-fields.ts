/** A text value a form asks for: a prompt's argument or a template's variable. */
export interface StringField {
  readonly name: string;
  readonly description?: string;
  readonly required?: boolean;
}

/**
 * The JSON Schema of an object of text fields, so the generated form (web/forms/) asks for
 * prompt arguments and template variables as it asks for tool arguments: labels tied to the
 * inputs, required marks, "Required." when one is left empty. MCP prompt arguments are
 * strings (`PromptArgument`), and so is what fills a URI template. Pure.
 */
export function stringFieldsSchema(fields: readonly StringField[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(
      fields.map((field) => [
        field.name,
        { type: 'string', ...(field.description !== undefined && { description: field.description }) },
      ]),
    ),
    required: fields.filter((field) => field.required === true).map((field) => field.name),
  };
}
