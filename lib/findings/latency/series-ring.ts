/** A bucket's p99 and request count. */
export interface BucketP99 {
  t: number;
  p99Ms: number;
  count: number;
}

/**
 * The p99 and count of the newest buckets of one series, in a fixed array indexed by bucket number modulo its size:
 * a write overwrites the bucket that fell out of range, so memory stays `slots` × 3 numbers however long it runs.
 */
export class SeriesRing {
  private readonly data: Float64Array;

  constructor(
    private readonly stepMs: number,
    private readonly slots: number,
  ) {
    this.data = new Float64Array(slots * 3).fill(-1);
  }

  set(t: number, p99Ms: number | null, count: number): void {
    const i = (Math.floor(t / this.stepMs) % this.slots) * 3;
    this.data[i] = t;
    this.data[i + 1] = p99Ms ?? Number.NaN;
    this.data[i + 2] = count;
  }

  /** Buckets starting within [fromMs, toMs) that had requests, oldest first. */
  within(fromMs: number, toMs: number): BucketP99[] {
    const out: BucketP99[] = [];
    for (let i = 0; i < this.data.length; i += 3) {
      const t = this.data[i]!;
      if (t >= fromMs && t < toMs && this.data[i + 2]! > 0 && !Number.isNaN(this.data[i + 1]!)) {
        out.push({ t, p99Ms: this.data[i + 1]!, count: this.data[i + 2]! });
      }
    }
    return out.sort((a, b) => a.t - b.t);
  }

  /** The median p99 of the buckets within [fromMs, toMs) that had requests, their number and their requests. */
  summary(fromMs: number, toMs: number): { p99Ms: number | null; buckets: number; count: number } {
    const p99s = scratch.length >= this.slots ? scratch : (scratch = new Float64Array(this.slots));
    let n = 0;
    let count = 0;
    for (let i = 0; i < this.data.length; i += 3) {
      const t = this.data[i]!;
      if (t >= fromMs && t < toMs && this.data[i + 2]! > 0 && !Number.isNaN(this.data[i + 1]!)) {
        p99s[n++] = this.data[i + 1]!;
        count += this.data[i + 2]!;
      }
    }
    if (n === 0) return { p99Ms: null, buckets: 0, count };
    // Insertion sort: at most a few dozen values, and no allocation.
    for (let i = 1; i < n; i++) {
      const v = p99s[i]!;
      let j = i - 1;
      for (; j >= 0 && p99s[j]! > v; j--) p99s[j + 1] = p99s[j]!;
      p99s[j + 1] = v;
    }
    const mid = n >> 1;
    return { p99Ms: n % 2 ? p99s[mid]! : (p99s[mid - 1]! + p99s[mid]!) / 2, buckets: n, count };
  }
}

/** Reused by every summary: the rings are read one at a time, and this runs 60,000 times a cycle. */
let scratch = new Float64Array(32);
