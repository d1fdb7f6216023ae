/** Types of GET /api/v1/latency and GET /api/v1/regions/compare. Type-only: safe for client code. */
export interface LatencyQuantiles {
  count: number;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  p999: number | null;
  minMs: number | null;
  maxMs: number | null;
  meanMs: number | null;
}

export interface LatencyBucket extends LatencyQuantiles {
  /** Bucket start, ms since the epoch. */
  t: number;
}

export type LatencyScope =
  | { kind: 'fleet' }
  | { kind: 'host'; hostId: number }
  | { kind: 'region'; region: string }
  | { kind: 'labels'; labels: Record<string, string> };

export interface LatencyResponse {
  scope: LatencyScope;
  name: string;
  from: string;
  to: string;
  /** Quantiles of the merged histogram of every matching host over [from, to) — never averaged percentiles. */
  total: LatencyQuantiles;
  /** Present when `points` was asked for. */
  series?: { resolution: 'raw' | '1m' | '1h'; bucketMs: number; buckets: LatencyBucket[] };
}

export interface RegionProbe {
  name: string;
  samples: number;
  okRatio: number | null;
  connectMsAvg: number | null;
  connectMsMax: number | null;
  responseMsAvg: number | null;
  responseMsMax: number | null;
}

export interface RegionComparison {
  region: string;
  hostCount: number;
  stealPctAvg: number | null;
  stealPctMax: number | null;
  iowaitPctAvg: number | null;
  iowaitPctMax: number | null;
  /** Per latency series name. */
  latency: Record<string, LatencyQuantiles>;
  /** Per probe name: the RTT this region's hosts measured to each target. */
  probes: RegionProbe[];
}

export interface RegionCompareResponse {
  from: string;
  to: string;
  regions: RegionComparison[];
}
