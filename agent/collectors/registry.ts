import { scrapeCollector } from '../scrape/scrape-collector';
import { cgroupCollector } from './cgroups/collector';
import { hostCgroupLimitsCollector } from './cgroups/limits';
import { cpuCollector } from './cpu';
import { cpuInventoryCollector } from './cpuinfo';
import { dataPathCollector } from './data-paths';
import { diskInventoryCollector } from './disk-inventory';
import { diskCollector } from './disks';
import { hostCollector } from './host';
import { probeCollector } from './probes';
import { processInventoryCollector } from './process-inventory';
import { processCollector } from './processes';
import { pressureCollector } from './pressure';
import type { RegisteredCollector } from './registration';

/**
 * Every collector the agent runs, each once: the report builder schedules them by cadence and assembles the report
 * from their parts, in this order. Adding one is its module (with defineCollector) and one line here.
 */
export const COLLECTORS: readonly RegisteredCollector[] = [
  cpuCollector,
  pressureCollector,
  diskCollector,
  cgroupCollector,
  processCollector,
  probeCollector,
  scrapeCollector,
  processInventoryCollector,
  hostCollector,
  cpuInventoryCollector,
  diskInventoryCollector,
  dataPathCollector,
  hostCgroupLimitsCollector,
];
