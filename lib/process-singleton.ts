/**
 * Values held once per process. Next's server bundle and server.ts's bundle each load their own copy of lib (and
 * `npm run dev` reloads modules), so a module-level variable would be one per copy; the database, ingest's writer,
 * the metrics registry and the rate limits must be the process's. Each lives on globalThis under Symbol.for(name).
 */
export interface ProcessSlot<T> {
  get(): T | undefined;
  set(value: T | undefined): void;
}

export function processSlot<T>(name: string): ProcessSlot<T> {
  const key = Symbol.for(`inferwatch.${name}`);
  const store = globalThis as unknown as Record<symbol, T | undefined>;
  return {
    get: () => store[key],
    set: (value) => {
      store[key] = value;
    },
  };
}

/** The process's one `name`, made by `create` the first time any copy of lib asks for it. */
export function processSingleton<T>(name: string, create: () => T): T {
  const slot = processSlot<T>(name);
  let value = slot.get();
  if (value === undefined) {
    value = create();
    slot.set(value);
  }
  return value;
}

/**
 * A setting lib code reads at call time where no caller could pass it (the database getDb() opens, the principal a
 * route's request acts as). The entry point provides it (lib/server/provide-settings.ts), so configuration still flows
 * down and lib/ never imports lib/server; reading one nobody provided is a wiring bug and says which.
 */
export interface ProcessSetting<T> {
  provide(source: () => T): void;
  get(): T;
}

export function processSetting<T>(name: string): ProcessSetting<T> {
  const slot = processSlot<() => T>(`setting.${name}`);
  return {
    provide: (source) => slot.set(source),
    get: () => {
      const source = slot.get();
      if (!source) throw new Error(`the ${name} setting was not provided: the entry point calls provideServerSettings() (lib/server/provide-settings.ts)`);
      return source();
    },
  };
}
