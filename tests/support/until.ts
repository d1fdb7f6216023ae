/**
 * Polls `check` until it answers something truthy, and returns that; fails naming `what` after `timeoutMs`. Tests wait on
 * what they can observe rather than sleep, so a slow machine only waits longer.
 */
export async function until<T>(what: string, check: () => T | Promise<T>, timeoutMs = 30_000, everyMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
