/** One alert of Alertmanager's API v2 `postableAlerts` (api/v2/openapi.yaml). */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
}

export interface AlertState {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  firedAtMs: number;
  resolvedAtMs: number | null;
  url: string;
}

/**
 * Prometheus's client contract: a firing alert is re-sent every `resendMs` with endsAt = now + 4 × resendMs, so
 * Alertmanager resolves it by itself if inferwatch goes away; a resolved one is sent with its endsAt in the past.
 */
export function postableAlert(alert: AlertState, nowMs: number, resendMs: number): PostableAlert {
  return {
    labels: alert.labels,
    annotations: alert.annotations,
    startsAt: new Date(alert.firedAtMs).toISOString(),
    endsAt: new Date(alert.resolvedAtMs ?? nowMs + 4 * resendMs).toISOString(),
    generatorURL: alert.url,
  };
}

export function alertmanagerAlertsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/api/v2/alerts`;
}
