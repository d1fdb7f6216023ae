import type { AlertSelector } from '../protocol/alerts';
import { latencyKindOf } from '../protocol/latency-kinds';
import type { HostInfo } from './inputs';

export function selectsHost(selector: AlertSelector, host: HostInfo): boolean {
  if (selector.hostIds && !selector.hostIds.includes(host.id)) return false;
  if (selector.regions && !selector.regions.includes(host.region)) return false;
  if (selector.labels && !Object.entries(selector.labels).every(([name, value]) => host.labels[name] === value)) return false;
  return true;
}

export function selectsLatency(selector: AlertSelector, region: string, service: string): boolean {
  if (selector.regions && !selector.regions.includes(region)) return false;
  if (selector.services && !selector.services.includes(service)) return false;
  if (selector.kinds && !selector.kinds.includes(latencyKindOf(service))) return false;
  return true;
}
