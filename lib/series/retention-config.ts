export interface RetentionDays {
  raw: number;
  oneMinute: number;
  oneHour: number;
}

export const DEFAULT_RETENTION_DAYS: RetentionDays = { raw: 7, oneMinute: 35, oneHour: 400 };
