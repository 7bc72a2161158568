import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The demo servers `npm start` runs, each as a real stdio process reached by an SDK v2 client:
 * the weather server's three kinds of result, and the elicitation server asking, in both
 * protocol eras, and using what it was told.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const clients: Client[] = [];

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
});

type Era = 'legacy' | 'auto';
type ElicitParams = { message: string; requestedSchema?: { properties: Record<string, unknown> } };

async function connect(
  server: string,
  options: { era?: Era; answer?: (params: ElicitParams) => Record<string, unknown> } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'demo-test', version: '1.0.0' },
    {
      capabilities: options.answer ? { elicitation: { form: {} } } : {},
      versionNegotiation: { mode: options.era ?? 'legacy' },
    },
  );
  const answer = options.answer;
  if (answer) {
    client.setRequestHandler(
      'elicitation/create',
      (request) => answer(request.params as ElicitParams) as never,
    );
  }
  clients.push(client);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', join(root, 'examples/servers', `${server}.ts`)],
      cwd: root,
      stderr: 'pipe',
    }),
  );
  return client;
}

const texts = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '');

describe('demo-weather', () => {
  it('returns a forecast whose structured content validates against its outputSchema, the same every time', async () => {
    const client = await connect('demo-weather');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['current_conditions', 'forecast_chart', 'get_forecast']);
    const definition = tools.find((t) => t.name === 'get_forecast')!;
    expect(definition.outputSchema).toBeDefined();
    expect(definition.annotations?.readOnlyHint).toBe(true);

    const result = await client.callTool({ name: 'get_forecast', arguments: { city: 'Lisbon', days: 4 } });
    expect(result.isError).toBeFalsy();
    const validate = new AjvJsonSchemaValidator().getValidator(definition.outputSchema!);
    const check = validate(result.structuredContent);
    expect(check.errorMessage).toBeUndefined();
    expect(check.valid).toBe(true);
    const forecast = result.structuredContent as {
      city: string;
      days: { day: number; highC: number; lowC: number }[];
    };
    expect(forecast.city).toBe('Lisbon');
    expect(forecast.days.map((d) => d.day)).toEqual([0, 1, 2, 3]);
    for (const d of forecast.days) expect(d.highC).toBeGreaterThan(d.lowC);
    // The validator really checks: a wrong type fails it.
    const broken = structuredClone(forecast) as { days: { highC: unknown }[] };
    broken.days[0]!.highC = 'hot';
    expect(validate(broken).valid).toBe(false);

    const again = await client.callTool({ name: 'get_forecast', arguments: { city: ' lisbon ', days: 4 } });
    expect((again.structuredContent as typeof forecast).days).toEqual(forecast.days);
    const elsewhere = await client.callTool({ name: 'get_forecast', arguments: { city: 'Oslo', days: 4 } });
    expect((elsewhere.structuredContent as typeof forecast).days).not.toEqual(forecast.days);
  });

  it('draws the forecast as a PNG that decodes, and says the current conditions in text', async () => {
    const client = await connect('demo-weather');
    const result = await client.callTool({ name: 'forecast_chart', arguments: { city: 'Lisbon', days: 5 } });
    const image = (result.content as { type: string; data?: string; mimeType?: string }[]).find(
      (c) => c.type === 'image',
    )!;
    expect(image.mimeType).toBe('image/png');
    const png = Buffer.from(image.data!, 'base64');
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.toString('latin1', 12, 16)).toBe('IHDR');
    const width = png.readUInt32BE(16);
    const height = png.readUInt32BE(20);
    expect([width, height]).toEqual([480, 240]);
    expect([png[24], png[25]]).toEqual([8, 2]); // 8-bit RGB
    // Every IDAT chunk, inflated: one filter byte and width × 3 bytes per row.
    const idat: Buffer[] = [];
    for (let at = 8; at < png.length; ) {
      const length = png.readUInt32BE(at);
      if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
      at += length + 12;
    }
    const rows = inflateSync(Buffer.concat(idat));
    expect(rows.length).toBe(height * (1 + width * 3));
    // Not a blank image: the bars bring more than the background colour.
    expect(new Set(rows).size).toBeGreaterThan(10);
    expect(png.toString('latin1', png.length - 8, png.length - 4)).toBe('IEND');
    expect(texts(result)[0]).toMatch(/^Forecast chart for Lisbon: today -?\d+–-?\d+ °C/);

    const now = await client.callTool({ name: 'current_conditions', arguments: { city: 'Lisbon' } });
    expect(texts(now)).toEqual([expect.stringMatching(/^Lisbon now: -?\d+ °C, [a-z ]+, wind \d+ km\/h/)]);
  });
});

describe('demo-elicitation', () => {
  for (const era of ['legacy', 'auto'] as const) {
    it(`asks for a confirmation, then for a secret API key, and uses it (${era})`, async () => {
      const asked: ElicitParams[] = [];
      const client = await connect('demo-elicitation', {
        era,
        answer: (params) => {
          asked.push(params);
          return asked.length === 1
            ? { action: 'accept', content: { confirm: true } }
            : { action: 'accept', content: { api_key: 'sk-demo-1234abcd' } };
        },
      });
      expect(client.getProtocolEra()).toBe(era === 'auto' ? 'modern' : 'legacy');
      const result = await client.callTool({ name: 'connect_account', arguments: { service: 'acme-crm' } });
      expect(asked.map((a) => Object.keys(a.requestedSchema?.properties ?? {}))).toEqual([
        ['confirm'],
        ['api_key'],
      ]);
      expect(asked[0]!.message).toContain('Connect the demo account "acme-crm"?');
      expect(result.isError).toBeFalsy();
      expect(texts(result)).toEqual([
        expect.stringContaining('Connected "acme-crm" with the key …abcd (16 characters)'),
      ]);
    });
  }

  it('stops without asking for the key when the person does not confirm', async () => {
    const asked: string[] = [];
    const client = await connect('demo-elicitation', {
      era: 'auto',
      answer: (params) => {
        asked.push(params.message);
        return { action: 'decline' };
      },
    });
    const result = await client.callTool({ name: 'connect_account', arguments: { service: 'acme-crm' } });
    expect(asked).toHaveLength(1);
    expect(texts(result)).toEqual(['Not connected: "acme-crm" was not confirmed.']);
  });
});
