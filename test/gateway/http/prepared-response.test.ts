import { describe, expect, it } from 'vitest';
import { listen } from '../../../src/gateway/http/node-adapter.js';
import {
  preparedBody,
  preparedFields,
  preparedResponse,
} from '../../../src/gateway/http/prepared-response.js';
import { headerList, withHeaders } from '../../../src/gateway/http/response-headers.js';

describe('preparedResponse', () => {
  it('is a Response with its status and headers, whose whole body the adapter can take at once', () => {
    const response = preparedResponse('{"a":1}', {
      status: 201,
      headers: { 'content-type': 'application/json' },
    });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(201);
    response.headers.set('x-extra', 'yes');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-extra')).toBe('yes');
    expect(preparedBody(response)).toBe('{"a":1}');
    expect(preparedBody(new Response('{"a":1}'))).toBeUndefined();
  });

  it('reads like any response: text, json, arrayBuffer and the body stream, once', async () => {
    const text = preparedResponse('hello', { status: 200 });
    expect(text.bodyUsed).toBe(false);
    expect(await text.text()).toBe('hello');
    expect(text.bodyUsed).toBe(true);
    await expect(text.text()).rejects.toThrow(TypeError);
    // Read by someone else, it is no longer the adapter's to write at once.
    expect(preparedBody(text)).toBeUndefined();

    expect(await preparedResponse('{"n":2}', { status: 200 }).json()).toEqual({ n: 2 });
    const bytes = await preparedResponse('abc', { status: 200 }).arrayBuffer();
    expect(new TextDecoder().decode(bytes)).toBe('abc');

    const streamed = preparedResponse('streamed', { status: 200 });
    const reader = streamed.body!.getReader();
    expect(preparedBody(streamed)).toBeUndefined();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('streamed');
    expect(streamed.bodyUsed).toBe(true);
  });

  it('clones into another prepared response with the same status, headers and body', async () => {
    const original = preparedResponse('{"a":1}', { status: 202, headers: { 'x-a': '1' } });
    const copy = original.clone();
    expect(copy.status).toBe(202);
    expect(copy.headers.get('x-a')).toBe('1');
    expect(await copy.json()).toEqual({ a: 1 });
    expect(preparedBody(original)).toBe('{"a":1}');
    // Through a wrapper as well: new Response(body, init) streams it.
    expect(await new Response(original.body, original).text()).toBe('{"a":1}');
  });

  it('keeps its headers in a plain record that withHeaders adds to, until headers is read', () => {
    const response = preparedResponse('{}', {
      status: 200,
      headers: { 'Content-Type': 'application/json', 'X-Twice': 'a', 'x-twice': 'b' },
    });
    expect(preparedFields(response)).toEqual({ 'content-type': 'application/json', 'x-twice': 'a, b' });
    withHeaders(response, headerList({ 'X-Request-Id': 'r1', 'Content-Type': 'text/plain' }), {
      overwrite: false,
    });
    withHeaders(response, headerList({ 'Cache-Control': 'no-store' }));
    expect(preparedFields(response)).toEqual({
      'content-type': 'application/json',
      'x-twice': 'a, b',
      'x-request-id': 'r1',
      'cache-control': 'no-store',
    });
    // Read as a web response, the record becomes its Headers, which hold every change after.
    expect(response.headers.get('x-request-id')).toBe('r1');
    expect(preparedFields(response)).toBeUndefined();
    withHeaders(response, headerList({ 'X-Late': 'yes' }));
    expect(response.headers.get('x-late')).toBe('yes');
    expect([...response.headers.keys()]).toEqual([
      'cache-control',
      'content-type',
      'x-late',
      'x-request-id',
      'x-twice',
    ]);
    // Headers given as a Headers object or as pairs are kept in a Headers from the start.
    expect(
      preparedFields(preparedResponse('', { status: 200, headers: new Headers({ a: '1' }) })),
    ).toBeUndefined();
    expect(preparedFields(preparedResponse('', { status: 200, headers: [['a', '1']] }))).toBeUndefined();
    expect(preparedFields(preparedResponse('', { status: 204 }))).toEqual({});
  });

  it('goes out through the node adapter with the headers of its record, and with those set after reading', async () => {
    let read = false;
    const listener = await listen(
      async () => {
        const response = preparedResponse('{"ok":true}', {
          status: 200,
          headers: { 'content-type': 'application/json' },
        });
        if (read) response.headers.set('x-read', 'yes');
        return withHeaders(response, headerList({ 'X-Request-Id': 'abc' }));
      },
      { host: '127.0.0.1', port: 0 },
    );
    try {
      for (const headersRead of [false, true]) {
        read = headersRead;
        const answer = await fetch(`${listener.url}/x`);
        expect(answer.headers.get('content-type')).toBe('application/json');
        expect(answer.headers.get('x-request-id')).toBe('abc');
        expect(answer.headers.get('content-length')).toBe('11');
        expect(answer.headers.get('x-read')).toBe(headersRead ? 'yes' : null);
        expect(await answer.text()).toBe('{"ok":true}');
      }
    } finally {
      await listener.close();
    }
  });
});
