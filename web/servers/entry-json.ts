/** A server entry typed as JSON, parsed; the error names the problem for the error banner. */
export function parseEntryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (caught) {
    throw new Error(`The entry is not valid JSON: ${(caught as Error).message}. Correct it and save again.`);
  }
}
