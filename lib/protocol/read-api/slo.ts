import { z } from 'zod';
import { LATENCY_KINDS } from '../latency-kinds';

/** GET /api/v1/slo: every latency objective the alert rules hold, per region, latency series and model. */

const burnSchema = z.number().nonnegative().nullable();

export const sloHostSchema = z.object({
  hostId: z.number().int(),
  hostname: z.string(),
  requests: z.number().nonnegative(),
  /** Share of its requests over the objective's latency in the last hour. */
  slowShare: z.number().min(0).max(1),
});

export const sloRowSchema = z.object({
  region: z.string(),
  series: z.string(),
  kind: z.enum(LATENCY_KINDS),
  /** The request's model (its `model_name`, `gen_ai.request.model` or `model` tag); null when it names none. */
  model: z.string().nullable(),
  /** Requests and slow requests over the budget window. */
  requests: z.number().nonnegative(),
  slow: z.number().nonnegative(),
  /** 1 − spent: 1 untouched, 0 spent, below 0 overspent; null without requests. */
  budgetLeft: z.number().nullable(),
  burn1h: burnSchema,
  burn6h: burnSchema,
  /** Hosts with slow requests in the last hour, the slowest share first (at most 3). */
  worstHosts: z.array(sloHostSchema),
});

export const sloObjectiveSchema = z.object({
  /** The alert rules that judge this objective (a fast and a slow burn rule share one). */
  ruleIds: z.array(z.string()),
  title: z.string(),
  objective: z.number(),
  latencyMs: z.number(),
  kinds: z.array(z.enum(LATENCY_KINDS)).nullable(),
  rows: z.array(sloRowSchema),
});

export const sloResponseSchema = z.object({
  budgetWindowMs: z.number().int(),
  objectives: z.array(sloObjectiveSchema),
});

export type SloHost = z.infer<typeof sloHostSchema>;
export type SloRow = z.infer<typeof sloRowSchema>;
export type SloObjective = z.infer<typeof sloObjectiveSchema>;
export type SloResponse = z.infer<typeof sloResponseSchema>;
