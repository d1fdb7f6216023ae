/** How old the last revocation-version check may be before a cached token lookup is trusted no more. */
export const REVOCATION_CHECK_MS = 1_000;

/**
 * Follows a counter other processes bump when a token stops working. `whenFresh()` answers at once while the
 * counter was read less than `maxAgeMs` ago (re-reading it in the background from half that age on), and
 * otherwise waits for a read; `onChange` runs before a read that saw a new value resolves.
 */
export class RevocationWatch {
  private version: number | null = null;
  private checkedAtMs = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly readVersion: () => Promise<number>,
    private readonly onChange: () => void,
    readonly maxAgeMs = REVOCATION_CHECK_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  whenFresh(): Promise<void> | undefined {
    const ageMs = this.clock() - this.checkedAtMs;
    if (ageMs < this.maxAgeMs / 2) return undefined;
    const reading = this.read();
    if (ageMs < this.maxAgeMs) {
      reading.catch(() => {});
      return undefined;
    }
    return reading;
  }

  private read(): Promise<void> {
    if (this.reading) return this.reading;
    const sentAtMs = this.clock();
    this.reading = this.readVersion()
      .then((version) => {
        if (version !== this.version) {
          if (this.version !== null) this.onChange();
          this.version = version;
        }
        this.checkedAtMs = Math.max(this.checkedAtMs, sentAtMs);
      })
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }
}
