import { processSetting } from '../process-singleton';

export interface RetentionDays {
  raw: number;
  oneMinute: number;
  oneHour: number;
}

export const DEFAULT_RETENTION_DAYS: RetentionDays = { raw: 7, oneMinute: 35, oneHour: 400 };

/** How long this process's series are kept (INFERWATCH_RETENTION_*), for reads and maintenance not told otherwise. */
export const processRetentionSetting = processSetting<RetentionDays>('retention');
