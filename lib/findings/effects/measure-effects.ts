import type { Database } from '../../db/open';
import { HOUR_MS } from '../../protocol/time';
import { EFFECT_MIN_REQUESTS, judgeEffect } from '../judge-effect';
import { measureEffect } from './measure-effect';
import { beginMeasuringEffects, listDueEffects, saveMeasuredEffect } from '../store/finding-effects';

export interface EffectOptions {
  /** The windows compared: this long before the fix and after the resolution (an hour by default). */
  windowMs?: number;
  minRequests?: number;
  /** Occurrences measured per call; the rest wait for the next cycle. */
  batch?: number;
}

/** One pass of the fix-effect job: start measuring what resolved, measure what is due. Returns how many it measured. */
export async function measureFixEffects(db: Pick<Database, 'sql'>, now: Date, options: EffectOptions = {}): Promise<number> {
  const windowMs = options.windowMs ?? HOUR_MS;
  await beginMeasuringEffects(db.sql, now, windowMs);
  const due = await listDueEffects(db.sql, now, options.batch ?? 50);
  for (const occurrence of due) {
    const measured = await measureEffect(db, occurrence, windowMs);
    await saveMeasuredEffect(db.sql, occurrence.id, judgeEffect(measured, options.minRequests ?? EFFECT_MIN_REQUESTS), now);
  }
  return due.length;
}
