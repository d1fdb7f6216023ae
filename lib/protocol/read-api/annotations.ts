import { z } from 'zod';
import type { Severity } from '../findings';
import { HOUR_MS } from '../time';
import { checkRange, rangeShape, withDefaultRange } from './params';

/** What can happen to a host that its charts mark: an inventory change, a finding or an alert opening or ending. */
export const ANNOTATION_KINDS = ['inventory', 'finding-opened', 'finding-resolved', 'alert-fired', 'alert-resolved'] as const;
export type AnnotationKind = (typeof ANNOTATION_KINDS)[number];

export interface HostAnnotation {
  /** When it happened, ms since the epoch. */
  t: number;
  kind: AnnotationKind;
  /** The finding's or alert's severity; null for an inventory change. */
  severity: Severity | null;
  /** The rule's title, or "Inventory changed". */
  title: string;
  /** What changed, the finding's message, or the alert's summary. */
  detail: string;
  /** The finding's or alert's id; null for an inventory change. */
  refId: number | null;
}

/** GET /api/v1/hosts/:id/annotations */
export interface HostAnnotationsResponse {
  hostId: number;
  from: string;
  to: string;
  /** Oldest first. */
  annotations: HostAnnotation[];
  /** True when the range held more than MAX_ANNOTATIONS; the newest are kept. */
  truncated: boolean;
}

export const MAX_ANNOTATIONS = 500;

export const hostAnnotationsParamsSchema = z.object({ ...rangeShape }).superRefine(checkRange).transform(withDefaultRange(HOUR_MS));
export type HostAnnotationsParams = z.infer<typeof hostAnnotationsParamsSchema>;
