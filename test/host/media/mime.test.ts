import { describe, expect, it } from 'vitest';
import {
  extensionOf,
  isActiveContent,
  MEDIA_EXTENSIONS,
  mimeTypeOf,
  normalizeMimeType,
} from '../../../src/host/media/mime.js';

describe('MIME types and extensions', () => {
  it.each([
    ['image/png', 'png'],
    ['image/jpeg', 'jpg'],
    ['image/gif', 'gif'],
    ['image/webp', 'webp'],
    ['image/svg+xml', 'svg'],
    ['audio/wav', 'wav'],
    ['audio/mpeg', 'mp3'],
    ['audio/ogg', 'ogg'],
    ['video/webm', 'webm'],
    ['video/mp4', 'mp4'],
    ['application/pdf', 'pdf'],
    ['application/json', 'json'],
    ['text/plain', 'txt'],
    ['application/octet-stream', 'bin'],
  ])('maps %s to .%s and back', (type, ext) => {
    expect(extensionOf(type)).toBe(ext);
    expect(mimeTypeOf(ext)).toBe(type);
  });

  it('round-trips every extension it writes', () => {
    for (const ext of MEDIA_EXTENSIONS) expect(extensionOf(mimeTypeOf(ext))).toBe(ext);
  });

  it('resolves aliases, case and parameters', () => {
    expect(extensionOf('image/jpg')).toBe('jpg');
    expect(extensionOf('audio/x-wav')).toBe('wav');
    expect(extensionOf('audio/mp3')).toBe('mp3');
    expect(extensionOf('IMAGE/PNG')).toBe('png');
    expect(extensionOf('text/plain; charset=utf-8')).toBe('txt');
    expect(normalizeMimeType(' Audio/X-WAV ; rate=8000')).toBe('audio/wav');
  });

  it('turns unknown types into bin and malformed ones into octet-stream', () => {
    expect(extensionOf('application/x-made-up')).toBe('bin');
    expect(extensionOf('')).toBe('bin');
    expect(mimeTypeOf('exe')).toBe('application/octet-stream');
    expect(normalizeMimeType('application/x-made-up')).toBe('application/x-made-up');
    expect(normalizeMimeType('image/png](http://evil)')).toBe('application/octet-stream');
    expect(normalizeMimeType('image')).toBe('application/octet-stream');
    expect(normalizeMimeType('image/png\nx')).toBe('application/octet-stream');
  });

  it('flags types that can run script', () => {
    expect(isActiveContent('image/svg+xml')).toBe(true);
    expect(isActiveContent('text/html; charset=utf-8')).toBe(true);
    expect(isActiveContent('application/xhtml+xml')).toBe(true);
    expect(isActiveContent('image/png')).toBe(false);
    expect(isActiveContent('application/pdf')).toBe(false);
  });
});
