import type { TimeUnit } from '../scrape/catalog';

/**
 * The OpenTelemetry GenAI semantic conventions' duration histograms (semantic-conventions, gen-ai-metrics.md), all in
 * seconds. Histograms of other names are read when the operator names them with --otlp-histogram.
 */
export const GEN_AI_HISTOGRAMS: readonly string[] = [
  'gen_ai.server.request.duration',
  'gen_ai.server.time_to_first_token',
  'gen_ai.server.time_per_output_token',
  'gen_ai.client.operation.duration',
];

/** OTLP units are UCUM: the three that name a duration the agent reads. */
export function unitOf(ucum: string): TimeUnit | null {
  const unit = ucum.trim();
  if (unit === 's' || unit === 'ms' || unit === 'us') return unit;
  return null;
}

export interface OtlpHistogramSpec {
  metric: string;
  /** Overrides the unit the exporter sends; needed only when it sends none or a wrong one. */
  unit: TimeUnit | null;
}

/** Parses `--otlp-histogram NAME[@UNIT]`: OpenTelemetry instrument names (letters, digits, `_ . - /`). */
export function parseOtlpHistogramSpec(text: string): OtlpHistogramSpec {
  const at = text.lastIndexOf('@');
  const metric = (at === -1 ? text : text.slice(0, at)).trim();
  if (!/^[a-zA-Z][a-zA-Z0-9_.\-/]{0,254}$/.test(metric)) {
    throw new Error(`"${text}" is not an OpenTelemetry instrument name (expected NAME or NAME@s|ms|us)`);
  }
  if (at === -1) return { metric, unit: null };
  const unit = unitOf(text.slice(at + 1));
  if (!unit) throw new Error(`unknown unit "${text.slice(at + 1)}" in "${text}" (use s, ms or us)`);
  return { metric, unit };
}
