// The vitest example of docs/record-replay.md, as the page shows it: the page quotes the lines
// between the markers, and the last test here fails when the two differ. The cassette was
// recorded from the demo weather server with
//   npx switchboard --config examples/demo record weather --out weather.cassette.jsonl
// and the test after the example checks that it still answers as that server does.
// example: start
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expect, it } from 'vitest';

it('the agent gets the forecast for Lisbon', async () => {
  const client = new Client({ name: 'agent-under-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: 'npx',
      args: ['switchboard', 'replay', 'examples/demo/weather.cassette.jsonl'],
    }),
  );
  try {
    const result = await client.callTool({ name: 'get_forecast', arguments: { city: 'Lisbon', days: 2 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ city: 'Lisbon', days: [{ label: 'today' }, {}] });
  } finally {
    await client.close();
  }
});

// example: end

import { readFile } from 'node:fs/promises';

it('the recording still answers as the demo weather server does', async () => {
  const live = new Client({ name: 'agent-under-test', version: '1.0.0' });
  await live.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'examples/servers/demo-weather.ts'],
      stderr: 'pipe',
    }),
  );
  const recorded = new Client({ name: 'agent-under-test', version: '1.0.0' });
  await recorded.connect(
    new StdioClientTransport({
      command: 'npx',
      args: ['switchboard', 'replay', 'examples/demo/weather.cassette.jsonl'],
      stderr: 'pipe',
    }),
  );
  try {
    const call = { name: 'get_forecast', arguments: { city: 'Lisbon', days: 2 } };
    expect(await recorded.callTool(call)).toEqual(await live.callTool(call));
  } finally {
    await Promise.all([live.close(), recorded.close()]);
  }
});

it('is quoted by docs/record-replay.md as it is here', async () => {
  const page = await readFile('docs/record-replay.md', 'utf8');
  const self = await readFile('test/examples/replay-example.test.ts', 'utf8');
  const quoted = /## In a vitest suite[\s\S]*?```ts\n([\s\S]*?)```/.exec(page)?.[1];
  const example = /\/\/ example: start\n([\s\S]*?)\/\/ example: end\n/.exec(self)?.[1];
  expect(example).toMatch(/replay/);
  expect(quoted?.trim()).toBe(example?.trim());
});
