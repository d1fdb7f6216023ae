import { z } from 'zod';

/**
 * Pieces of the response schemas. The routes answer JSON, so a time is its ISO 8601 text (Date's toJSON), and a
 * response object is strict: a field the schema does not name fails the response tests rather than going unseen.
 */
// Date#toJSON writes a year past 9999 with a sign and six digits (+010000-01-01T00:00:00.000Z), which a read's `to`
// may ask for; RFC 3339's date-time has four.
const EXPANDED_YEAR_TIME = /^[+-]\d{6}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const isoTimeSchema = z.union([z.iso.datetime({ offset: true }), z.string().regex(EXPANDED_YEAR_TIME)]);

export const labelValuesSchema = z.record(z.string(), z.string());

export const timeRangeSchema = z.strictObject({ from: isoTimeSchema, to: isoTimeSchema });
