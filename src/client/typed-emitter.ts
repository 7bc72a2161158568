import { EventEmitter } from 'node:events';

/** EventEmitter with typed event names and arguments. */
export class TypedEmitter<Events extends Record<string, unknown[]>> {
  private readonly emitter = new EventEmitter();

  on<K extends keyof Events & string>(event: K, listener: (...args: Events[K]) => void): this {
    this.emitter.on(event, listener as (...args: unknown[]) => void);
    return this;
  }

  once<K extends keyof Events & string>(event: K, listener: (...args: Events[K]) => void): this {
    this.emitter.once(event, listener as (...args: unknown[]) => void);
    return this;
  }

  off<K extends keyof Events & string>(event: K, listener: (...args: Events[K]) => void): this {
    this.emitter.off(event, listener as (...args: unknown[]) => void);
    return this;
  }

  /** How many listeners `event` has (a front-end attached, or not). */
  listenerCount<K extends keyof Events & string>(event: K): number {
    return this.emitter.listenerCount(event);
  }

  protected emit<K extends keyof Events & string>(event: K, ...args: Events[K]): void {
    this.emitter.emit(event, ...args);
  }
}
