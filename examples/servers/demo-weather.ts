/**
 * `demo-weather`: an MCP server with fake, deterministic weather — one tool per kind of
 * result a client has to handle: structured content checked against an `outputSchema`
 * (`get_forecast`), an image (`forecast_chart`, a PNG drawn here) and plain text
 * (`current_conditions`). No network; the same city always gets the same weather.
 *
 *   node --import tsx examples/servers/demo-weather.ts     # speaks MCP on stdin/stdout
 */
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { forecastChartPng } from './forecast-chart.js';
import { currentConditions, ForecastSchema, forecast } from './weather-model.js';

const City = z.string().trim().min(1).max(80).describe('A city name, e.g. "Lisbon".');
const Days = z.number().int().min(1).max(7).default(3).describe('How many days, 1–7 (default 3).');
// Read-only, and nothing outside this process is touched: safe to run without asking.
const annotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

/** One server instance with the three tools (a factory: the stdio entry may build one per era). */
function createWeatherServer(): McpServer {
  const server = new McpServer(
    { name: 'demo-weather', version: '1.0.0' },
    {
      capabilities: { tools: {} },
      instructions: 'Fake weather for demos: deterministic per city, never real.',
    },
  );

  server.registerTool(
    'get_forecast',
    {
      title: 'Forecast',
      description: 'Daily forecast for a city: conditions, high and low in °C, chance of rain, wind.',
      inputSchema: z.object({ city: City, days: Days }),
      outputSchema: ForecastSchema,
      annotations,
    },
    ({ city, days }) => {
      const data = forecast(city, days);
      return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
    },
  );

  server.registerTool(
    'forecast_chart',
    {
      title: 'Forecast chart',
      description:
        'The forecast as a PNG chart: a bar per day from low to high (cool to warm), rain chance along the bottom.',
      inputSchema: z.object({ city: City, days: Days }),
      annotations,
    },
    ({ city, days }) => {
      const data = forecast(city, days);
      const png = forecastChartPng(data);
      const range = data.days.map((d) => `${d.label} ${d.lowC}–${d.highC} °C`).join(', ');
      return {
        content: [
          { type: 'text', text: `Forecast chart for ${data.city}: ${range}.` },
          { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
        ],
      };
    },
  );

  server.registerTool(
    'current_conditions',
    {
      title: 'Current conditions',
      description: 'The weather in a city right now, in one line of text.',
      inputSchema: z.object({ city: City }),
      annotations,
    },
    ({ city }) => ({ content: [{ type: 'text', text: currentConditions(city) }] }),
  );

  return server;
}

serveStdio(createWeatherServer);
