export interface RetentionDays {
  raw: number;
  oneMinute: number;
  oneHour: number;
}

export const DEFAULT_RETENTION_DAYS: RetentionDays = { raw: 7, oneMinute: 35, oneHour: 400 };

function positiveDays(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const days = Number(text);
  if (!Number.isFinite(days) || days <= 0) throw new Error(`${name} must be a positive number of days, got "${text}"`);
  return days;
}

/** INFERWATCH_RETENTION_RAW_DAYS, INFERWATCH_RETENTION_1M_DAYS, INFERWATCH_RETENTION_1H_DAYS. */
export function retentionFromEnv(env: NodeJS.ProcessEnv = process.env): RetentionDays {
  return {
    raw: positiveDays(env, 'INFERWATCH_RETENTION_RAW_DAYS', DEFAULT_RETENTION_DAYS.raw),
    oneMinute: positiveDays(env, 'INFERWATCH_RETENTION_1M_DAYS', DEFAULT_RETENTION_DAYS.oneMinute),
    oneHour: positiveDays(env, 'INFERWATCH_RETENTION_1H_DAYS', DEFAULT_RETENTION_DAYS.oneHour),
  };
}
