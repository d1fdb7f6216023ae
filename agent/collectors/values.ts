/**
 * Strict readers for the values in kernel files. Each returns null for text that is not exactly what the kernel
 * prints, so an odd file becomes a missing value for one field, never NaN in a report.
 */

import { MAX_MEASUREMENT } from '../../lib/protocol/primitives';

const DIGITS = /^\d+$/;
const DECIMAL = /^\d+(?:\.\d+)?$/;
/** Kernel counters are at most u64; the bound also keeps every rate computed from them finite. */
const U64_MAX = 2 ** 64;

/** An unsigned counter as the kernel prints it. May exceed 2^53 (u64 counters): only deltas of it are reported. */
export function parseCounter(text: string | undefined): number | null {
  if (text === undefined) return null;
  const trimmed = text.trim();
  if (!DIGITS.test(trimmed)) return null;
  const value = Number(trimmed);
  return value <= U64_MAX ? value : null;
}

/** The server stores counts (threads, in-flight requests, procs_running) as int4: a larger one is not a reading. */
export const INT4_MAX = 2_147_483_647;

/** An unsigned count reported as it is: an integer up to `max` (a safe integer, as the protocol requires). */
export function parseCount(text: string | undefined, max: number = INT4_MAX): number | null {
  const value = parseCounter(text);
  return value !== null && Number.isSafeInteger(value) && value <= max ? value : null;
}

/** A non-negative decimal such as a load average ("0.35") or a PSI average. */
export function parseDecimal(text: string | undefined): number | null {
  if (text === undefined) return null;
  const trimmed = text.trim();
  if (!DECIMAL.test(trimmed)) return null;
  const value = Number(trimmed);
  return value <= U64_MAX ? value : null;
}

// NUL and other C0 controls are what a garbled or binary file leaves in a string; PostgreSQL refuses NUL in text.
// eslint-disable-next-line no-control-regex -- matching control characters is what this pattern is for
const CONTROL_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** Trimmed text without control characters, cut to `max` UTF-16 units without splitting a surrogate pair. */
export function boundedText(text: string, max: number): string {
  let clean = text.replace(CONTROL_CHARS, '').trim();
  if (clean.length <= max) return clean;
  clean = clean.slice(0, max);
  const last = clean.charCodeAt(clean.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? clean.slice(0, -1) : clean;
}

/** The text when it fits in `max` after cleaning and is not empty, else null: for names a cut would falsify. */
export function fittingText(text: string | undefined, max: number): string | null {
  if (text === undefined) return null;
  const clean = text.replace(CONTROL_CHARS, '').trim();
  return clean.length > 0 && clean.length <= max ? clean : null;
}

/**
 * A count of units in bytes (kB × 1024, sectors × 512); null past the largest measurement a report may carry, which
 * a u64 count of units reaches long before a u64 of bytes.
 */
export function unitsToBytes(units: number | null, unitBytes: number): number | null {
  if (units === null) return null;
  const bytes = units * unitBytes;
  return bytes <= MAX_MEASUREMENT ? bytes : null;
}

/**
 * A rate within what a report may carry. Past it the counter behind it jumped (a garbled file, a counter restarted
 * near 2^64), not the device: a u64 delta over one interval reaches 10^18/s long before any hardware does.
 */
export function isMeasurable(rate: number): boolean {
  return rate <= MAX_MEASUREMENT;
}
