import { describe, expect, it } from 'vitest';
import { preparedBody, preparedResponse } from '../../../src/gateway/http/prepared-response.js';

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
});
