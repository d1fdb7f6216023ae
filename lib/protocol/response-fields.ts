import { z } from 'zod';

/**
 * Pieces of the response schemas. The routes answer JSON, so a time is its ISO 8601 text (Date's toJSON), and a
 * response object is strict: a field the schema does not name fails the response tests rather than going unseen.
 */
export const isoTimeSchema = z.iso.datetime({ offset: true });

export const labelValuesSchema = z.record(z.string(), z.string());

export const timeRangeSchema = z.strictObject({ from: isoTimeSchema, to: isoTimeSchema });
