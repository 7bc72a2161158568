import { describe, expect, it } from 'vitest';
import {
  appContentSecurityPolicy,
  declaresApps,
  isAppVisible,
  isModelVisible,
  resourceUi,
  toolUi,
  withoutUiMeta,
} from '../../src/core/mcp-apps.js';

describe('toolUi', () => {
  it('reads the nested resourceUri first, the deprecated flat key second, only ui:// URIs', () => {
    expect(
      toolUi({ _meta: { ui: { resourceUri: 'ui://a/v' }, 'ui/resourceUri': 'ui://b/v' } }).resourceUri,
    ).toBe('ui://a/v');
    expect(toolUi({ _meta: { 'ui/resourceUri': 'ui://b/v' } }).resourceUri).toBe('ui://b/v');
    expect(toolUi({ _meta: { ui: { resourceUri: 'https://evil.test/v' } } }).resourceUri).toBeUndefined();
    expect(toolUi({}).visibility).toEqual(['model', 'app']);
  });

  it('reads a malformed visibility as hiding the tool from the model, never as the default', () => {
    expect(isModelVisible({ _meta: { ui: { visibility: ['app'] } } })).toBe(false);
    expect(isModelVisible({ _meta: { ui: { visibility: 'app' } } })).toBe(false);
    expect(isModelVisible({ _meta: { ui: { visibility: { model: true } } } })).toBe(false);
    expect(isModelVisible({ _meta: { ui: { visibility: [] } } })).toBe(false);
    expect(isModelVisible({ _meta: { ui: { visibility: ['model'] } } })).toBe(true);
    expect(isModelVisible({ _meta: { ui: {} } })).toBe(true);
    expect(isModelVisible({ _meta: { other: 1 } })).toBe(true);
    expect(isAppVisible({ _meta: { ui: { visibility: ['model'] } } })).toBe(false);
    expect(isAppVisible({})).toBe(true);
  });
});

describe('declaresApps', () => {
  it('needs the extension with the HTML profile among its mimeTypes', () => {
    const ext = (v: unknown) => ({ extensions: { 'io.modelcontextprotocol/ui': v } });
    expect(declaresApps(ext({ mimeTypes: ['text/html;profile=mcp-app'] }))).toBe(true);
    expect(declaresApps(ext({}))).toBe(false);
    expect(declaresApps(ext({ mimeTypes: ['text/html'] }))).toBe(false);
    expect(declaresApps({})).toBe(false);
    expect(declaresApps(undefined)).toBe(false);
  });
});

describe('the CSP of a view', () => {
  it('is the restrictive default when nothing is declared', () => {
    const csp = appContentSecurityPolicy(resourceUi(undefined).csp);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toContain("frame-src 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("base-uri 'self'");
  });

  it('is widened only by declared origins; keywords, wildcards and directive breaks are dropped', () => {
    const ui = resourceUi({
      ui: {
        csp: {
          connectDomains: ['https://api.test', 'wss://rt.test:8443', '*', "'unsafe-eval'"],
          resourceDomains: [
            'https://*.cdn.test',
            'https://x.test; script-src *',
            'data:',
            'https://p.test/path',
          ],
          frameDomains: ['https://www.youtube.com'],
          baseUriDomains: 'https://not-a-list.test',
        },
        permissions: { camera: {}, clipboardWrite: {}, midi: {} },
        domain: 'abc.example.test',
        prefersBorder: false,
      },
    });
    expect(ui.csp).toEqual({
      connectDomains: ['https://api.test', 'wss://rt.test:8443'],
      resourceDomains: ['https://*.cdn.test'],
      frameDomains: ['https://www.youtube.com'],
      baseUriDomains: [],
    });
    expect(ui.permissions).toEqual(['camera', 'clipboardWrite']);
    expect(ui).toMatchObject({ domain: 'abc.example.test', prefersBorder: false });
    const csp = appContentSecurityPolicy(ui.csp);
    expect(csp).toContain('connect-src https://api.test wss://rt.test:8443;');
    expect(csp).toContain("script-src 'self' 'unsafe-inline' blob: data: https://*.cdn.test;");
    expect(csp).toContain("worker-src 'self' blob: data: https://*.cdn.test;");
    expect(csp).toContain('frame-src https://www.youtube.com;');
    expect(csp).not.toMatch(/unsafe-eval|x\.test|\* |p\.test/);
  });
});

describe('withoutUiMeta', () => {
  it('removes _meta.ui and the flat key, keeps the rest, and leaves tools without them alone', () => {
    const tool = {
      name: 't',
      _meta: { ui: { resourceUri: 'ui://a' }, 'ui/resourceUri': 'ui://a', trace: 1 },
    };
    expect(withoutUiMeta(tool)).toEqual({ name: 't', _meta: { trace: 1 } });
    expect(withoutUiMeta({ name: 't', _meta: { ui: {} } })).toEqual({ name: 't' });
    const plain = { name: 'p', _meta: { trace: 1 } };
    expect(withoutUiMeta(plain)).toBe(plain);
  });
});
