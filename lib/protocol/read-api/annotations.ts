import { z } from 'zod';
import { SEVERITIES } from '../findings';
import { isoTimeSchema } from '../response-fields';
import { HOUR_MS } from '../time';
import { checkRange, rangeShape, withDefaultRange } from './params';

/** What can happen to a host that its charts mark: an inventory change, a finding or an alert opening or ending. */
export const ANNOTATION_KINDS = ['inventory', 'finding-opened', 'finding-resolved', 'alert-fired', 'alert-resolved'] as const;
export type AnnotationKind = (typeof ANNOTATION_KINDS)[number];

export const hostAnnotationSchema = z.strictObject({
  /** When it happened, ms since the epoch. */
  t: z.number(),
  kind: z.enum(ANNOTATION_KINDS),
  /** The finding's or alert's severity; null for an inventory change. */
  severity: z.enum(SEVERITIES).nullable(),
  /** The rule's title, or "Inventory changed". */
  title: z.string(),
  /** What changed, the finding's message, or the alert's summary. */
  detail: z.string(),
  /** The finding's or alert's id; null for an inventory change. */
  refId: z.number().int().nullable(),
});
export type HostAnnotation = z.infer<typeof hostAnnotationSchema>;

/** GET /api/v1/hosts/:id/annotations */
export const hostAnnotationsResponseSchema = z.strictObject({
  hostId: z.number().int(),
  from: isoTimeSchema,
  to: isoTimeSchema,
  /** Oldest first. */
  annotations: z.array(hostAnnotationSchema),
  /** True when the range held more than MAX_ANNOTATIONS; the newest are kept. */
  truncated: z.boolean(),
});
export type HostAnnotationsResponse = z.infer<typeof hostAnnotationsResponseSchema>;

export const MAX_ANNOTATIONS = 500;

export const hostAnnotationsParamsSchema = z.object({ ...rangeShape }).superRefine(checkRange).transform(withDefaultRange(HOUR_MS));
export type HostAnnotationsParams = z.infer<typeof hostAnnotationsParamsSchema>;
