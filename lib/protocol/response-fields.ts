import { z } from 'zod';

// Pieces of the response schemas. The routes answer JSON, so a time is its ISO 8601 text (Date#toJSON); response
// objects are strict, so a field a schema does not name fails the response tests rather than going unseen.

/** Date#toJSON writes a year past 9999 with a sign and six digits (+010000-01-01T00:00:00.000Z); RFC 3339 has four. */
const EXPANDED_YEAR_TIME = /^[+-]\d{6}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const isoTimeSchema = z.union([z.iso.datetime({ offset: true }), z.string().regex(EXPANDED_YEAR_TIME)]);

export const labelValuesSchema = z.record(z.string(), z.string());

export const timeRangeSchema = z.strictObject({ from: isoTimeSchema, to: isoTimeSchema });
