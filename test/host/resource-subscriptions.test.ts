import { describe, expect, it } from 'vitest';
import { TypedEmitter } from '../../src/client/typed-emitter.js';
import type { HostEvents } from '../../src/host/host.js';
import {
  ResourceSubscriptions,
  type SubscriptionHost,
  sharedResourceSubscriptions,
} from '../../src/host/resource-subscriptions.js';
import type { ServerSnapshot, ServerState } from '../../src/host/supervisor/supervisor.js';

/**
 * Counting upstream subscriptions against a stand-in host: what is sent upstream, when, and in
 * which order, and which subscribers hear an update.
 */
class FakeHost extends TypedEmitter<HostEvents> {
  /** Requests the server answered, in order. */
  readonly sent: string[] = [];
  /** Requests as they start (`>`) and end (`<`), interleaved. */
  readonly log: string[] = [];
  era: 'legacy' | 'modern' = 'legacy';
  canSubscribe = true;
  refuse = false;
  /** When set, each upstream request waits for a `releaseNext()`. */
  hold = false;
  private readonly held: (() => void)[] = [];
  private onHeld: (() => void) | undefined;
  private state: ServerState = 'connected';

  servers() {
    return [snapshot('a', this.state)] as never;
  }
  upstreamProtocol(_server: string) {
    return { era: this.era, capabilities: { resources: { subscribe: this.canSubscribe } } };
  }
  async subscription(server: string, method: string, uri: string): Promise<void> {
    this.log.push(`> ${method}`);
    if (this.hold) {
      await new Promise<void>((resolve) => {
        this.held.push(resolve);
        this.onHeld?.();
      });
    }
    this.sent.push(`${method} ${server} ${uri}`);
    this.log.push(`< ${method}`);
    if (this.refuse) throw new Error('refused');
  }
  /** Lets the oldest held request go on, once there is one. */
  async releaseNext(): Promise<void> {
    if (this.held.length === 0) await new Promise<void>((resolve) => (this.onHeld = resolve));
    this.onHeld = undefined;
    this.held.shift()?.();
  }
  updated(server: string, uri: string): void {
    this.emit('event', {
      server,
      method: 'notifications/resources/updated',
      params: { uri },
      receivedAt: new Date(),
    });
  }
  setState(state: ServerState): void {
    this.state = state;
    this.emit('servers', [snapshot('a', state)]);
  }
}

function snapshot(name: string, state: ServerState): ServerSnapshot {
  return { name, transport: 'stdio', state, tools: 0, resources: 0, prompts: 0 };
}

const asHost = (fake: FakeHost) => fake as unknown as SubscriptionHost;

describe('ResourceSubscriptions', () => {
  it('subscribes upstream once for many subscribers, tells each, and unsubscribes after the last', async () => {
    const host = new FakeHost();
    const subs = new ResourceSubscriptions(asHost(host));
    const heard: string[] = [];
    const first = await subs.add('a', 'x://1', (uri) => heard.push(`first ${uri}`));
    const second = await subs.add('a', 'x://1', (uri) => heard.push(`second ${uri}`));
    expect(host.sent).toEqual(['resources/subscribe a x://1']);
    expect(subs.active()).toEqual([{ server: 'a', uri: 'x://1', subscribers: 2 }]);

    host.updated('a', 'x://1');
    host.updated('a', 'x://other'); // not subscribed
    host.updated('b', 'x://1'); // another server's resource of the same URI
    expect(heard).toEqual(['first x://1', 'second x://1']);

    await first();
    await first(); // a second call does nothing
    expect(host.sent).toEqual(['resources/subscribe a x://1']);
    await second();
    expect(host.sent).toEqual(['resources/subscribe a x://1', 'resources/unsubscribe a x://1']);
    expect(subs.active()).toEqual([]);
    // Nothing subscribed: the host is not listened to any more.
    expect(host.listenerCount('event')).toBe(0);
    expect(host.listenerCount('servers')).toBe(0);
  });

  it('accepts a subscriber of a server that cannot subscribe, and asks that server nothing', async () => {
    for (const setup of [(h: FakeHost) => (h.canSubscribe = false), (h: FakeHost) => (h.era = 'modern')]) {
      const host = new FakeHost();
      setup(host);
      const subs = new ResourceSubscriptions(asHost(host));
      const end = await subs.add('a', 'x://1', () => undefined);
      expect(subs.active()).toHaveLength(1);
      await end();
      expect(host.sent).toEqual([]);
    }
  });

  it('fails the subscriber when the server refuses, keeping nothing and sending no unsubscribe', async () => {
    const host = new FakeHost();
    host.refuse = true;
    const subs = new ResourceSubscriptions(asHost(host));
    await expect(subs.add('a', 'x://1', () => undefined)).rejects.toThrow('refused');
    expect(subs.active()).toEqual([]);
    expect(host.sent).toEqual(['resources/subscribe a x://1']);
    expect(host.listenerCount('event')).toBe(0);
  });

  it('subscribes a new first subscriber only after the unsubscribe of the last one is done', async () => {
    const host = new FakeHost();
    host.hold = true;
    const subs = new ResourceSubscriptions(asHost(host));
    const adding = subs.add('a', 'x://1', () => undefined);
    await host.releaseNext();
    const leaving = (await adding)();
    const again = subs.add('a', 'x://1', () => undefined);
    await host.releaseNext(); // the unsubscribe
    await host.releaseNext(); // the new subscribe, which must not have started before
    await Promise.all([leaving, again]);
    expect(host.log).toEqual([
      '> resources/subscribe',
      '< resources/subscribe',
      '> resources/unsubscribe',
      '< resources/unsubscribe',
      '> resources/subscribe',
      '< resources/subscribe',
    ]);
    expect(subs.active()).toEqual([{ server: 'a', uri: 'x://1', subscribers: 1 }]);
  });

  it('sends its subscriptions again when the server reconnects', async () => {
    const host = new FakeHost();
    const subs = new ResourceSubscriptions(asHost(host));
    const end = await subs.add('a', 'x://1', () => undefined);
    host.setState('connected'); // no change: nothing sent
    host.setState('reconnecting');
    host.setState('connected');
    await end();
    expect(host.sent).toEqual([
      'resources/subscribe a x://1',
      'resources/subscribe a x://1',
      'resources/unsubscribe a x://1',
    ]);
  });

  it('is one per host', () => {
    const host = asHost(new FakeHost());
    expect(sharedResourceSubscriptions(host)).toBe(sharedResourceSubscriptions(host));
    expect(sharedResourceSubscriptions(asHost(new FakeHost()))).not.toBe(sharedResourceSubscriptions(host));
  });
});
