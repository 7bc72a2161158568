/**
 * A strict reader of the Prometheus text exposition format 0.0.4, for tests: every line is a
 * `# HELP`, a `# TYPE`, a blank, or a sample `name{label="value",…} value [timestamp]`; anything
 * else throws, naming the line. Each sample's family must have been announced by `# TYPE`.
 */
export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parsePrometheusText(text: string): PromSample[] {
  const samples: PromSample[] = [];
  const families = new Map<string, string>();
  for (const [index, line] of text.split('\n').entries()) {
    const where = `line ${index + 1}: ${JSON.stringify(line)}`;
    if (line === '') continue;
    if (line.startsWith('# HELP ')) continue;
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      if (!name || !type || !TYPES.has(type) || !new RegExp(`^${NAME}$`).test(name))
        throw new Error(`bad TYPE, ${where}`);
      families.set(name, type);
      continue;
    }
    if (line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample, ${where}`);
    const [, name, labelText = '', valueText] = match;
    const family = [...families.keys()].find(
      (f) =>
        name === f ||
        (families.get(f) === 'histogram' &&
          /^_(bucket|sum|count)$/.test(name!.slice(f.length)) &&
          name!.startsWith(f)),
    );
    if (family === undefined) throw new Error(`sample of no announced family, ${where}`);
    const labels: Record<string, string> = {};
    let rest = labelText;
    while (rest.length > 0) {
      const label = LABEL.exec(rest);
      if (!label) throw new Error(`bad labels, ${where}`);
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      rest = rest.slice(label[0].length);
    }
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText);
    if (Number.isNaN(value) && valueText !== 'NaN') throw new Error(`bad value, ${where}`);
    samples.push({ name: name!, labels, value });
  }
  return samples;
}
