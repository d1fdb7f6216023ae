import type { DemoFleetResponse } from '@/lib/protocol/read-api/fleet';

/**
 * The fleet filtered to the demo's hosts, as components/fleet/search-params.ts writes it (a test holds them equal):
 * the banner is on every page, and the fleet's URL parsers would bring zod into each page's first load.
 */
export const DEMO_FLEET_HREF = '/?label=demo:true';

export interface DemoBannerText {
  lead: string;
  detail: string;
}

const hostsText = (n: number) => `${new Intl.NumberFormat('en').format(n)} simulated host${n === 1 ? '' : 's'}`;
const verb = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** What the demo banner says: nothing without demo hosts; how to turn the demo off while it reports; why they linger after. */
export function demoBannerText(counts: DemoFleetResponse): DemoBannerText | null {
  if (counts.hosts === 0) return null;
  if (counts.reporting > 0) {
    return {
      lead: `Demo fleet: ${hostsText(counts.hosts)}, labelled demo=true, ${verb(counts.hosts, 'reports', 'report')} made-up numbers beside your own hosts.`,
      detail: 'It runs by default on the embedded database: start the server with INFERWATCH_DEMO=0 to turn it off.',
    };
  }
  return {
    lead: `Demo fleet: ${hostsText(counts.hosts)}, labelled demo=true, ${verb(counts.hosts, 'is', 'are')} still listed but no longer ${verb(counts.hosts, 'reports', 'report')}.`,
    detail: 'The demo is off; its hosts stay until retention drops their samples.',
  };
}
