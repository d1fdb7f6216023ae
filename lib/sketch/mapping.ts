/**
 * The fixed logarithmic bucket mapping shared by every agent and the server. Changing any constant here changes
 * the meaning of stored keys, so it is part of the wire protocol.
 *
 * key(v) = ceil(log_γ v), γ = (1+α)/(1−α); bucket k holds (γ^(k−1), γ^k] and is represented by 2γ^k/(γ+1),
 * which is within α of every value in the bucket.
 */
export const SKETCH_RELATIVE_ACCURACY = 0.008;
export const SKETCH_GAMMA = (1 + SKETCH_RELATIVE_ACCURACY) / (1 - SKETCH_RELATIVE_ACCURACY);
/** Values at or below this land in `zeroCount`. */
export const SKETCH_MIN_VALUE_MS = 1e-6;
/** Larger values are refused: ≈ 31 years, and it keeps every key far inside int16 and the key count below 4096. */
export const SKETCH_MAX_VALUE_MS = 1e12;
export const SKETCH_MIN_KEY = -32768;
export const SKETCH_MAX_KEY = 32767;
/** `sketchSchema` allows at most this many buckets. */
export const SKETCH_MAX_BUCKETS = 4096;

const LN_GAMMA = Math.log(SKETCH_GAMMA);

/** The bucket key of a value above SKETCH_MIN_VALUE_MS; a pure function of the value, so keys merge by summing. */
export function keyOf(valueMs: number): number {
  const key = Math.ceil(Math.log(valueMs) / LN_GAMMA);
  return key < SKETCH_MIN_KEY ? SKETCH_MIN_KEY : key > SKETCH_MAX_KEY ? SKETCH_MAX_KEY : key;
}

export function valueOfKey(key: number): number {
  return (2 * Math.exp(key * LN_GAMMA)) / (SKETCH_GAMMA + 1);
}

/**
 * 1-based rank of the q-quantile among `count` values: ⌈q·count⌉, at least 1 (numpy's `inverted_cdf`).
 * The tiny shrink keeps float noise from bumping an exact product up a rank (0.07 × 100 = 7.000000000000001).
 */
export function quantileRank(q: number, count: number): number {
  return Math.max(1, Math.ceil(q * count * (1 - 1e-12)));
}
