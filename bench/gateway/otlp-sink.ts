import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OTLP/HTTP receiver on 127.0.0.1 for the telemetry targets: reads each export, counts it
 * and its bytes, answers 200, keeps nothing. What a collector on the same machine would cost
 * the gateway (the export's serialisation and POST), not the collector's own work.
 */
export interface OtlpSink {
  readonly endpoint: string;
  readonly exports: { traces: number; metrics: number; bytes: number };
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const exports = { traces: 0, metrics: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => {
      exports.bytes += chunk.length;
    });
    req.on('end', () => {
      if (req.url === '/v1/traces') exports.traces++;
      else if (req.url === '/v1/metrics') exports.metrics++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
