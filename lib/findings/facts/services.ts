import { containerLabel, type Inventory, type ProcessInventory } from '../../protocol';

/** Groups watched processes by watch name: the workers of one service. */
export function servicesOf(inventory: Inventory): ReadonlyMap<string, readonly ProcessInventory[]> {
  let services = servicesCache.get(inventory);
  if (!services) servicesCache.set(inventory, (services = groupServices(inventory)));
  return services;
}

// Inventory snapshots are immutable and kept across cycles (InventoryCache), and every rule asks about the same
// processes: what is derived from one is computed once.
const servicesCache = new WeakMap<Inventory, Map<string, ProcessInventory[]>>();

function groupServices(inventory: Inventory): Map<string, ProcessInventory[]> {
  const services = new Map<string, ProcessInventory[]>();
  for (const process of inventory.processes) {
    const workers = services.get(process.name);
    if (workers) workers.push(process);
    else services.set(process.name, [process]);
  }
  return services;
}

/** "serve.py (pid 4242)", "python3 (pid 4242) in pod 3f2a1b4c…/container 9c1b2d3e4f5a…": how a message names one process. */
export function processLabel(process: ProcessInventory): string {
  // Watched by container (--watch-process container:ID or pod:UID), its own name says more than the selector.
  const name = /^(?:container|pod):/.test(process.name) ? process.comm : process.name;
  const label = process.name === `pid:${process.pid}` ? `pid ${process.pid}` : `${name} (pid ${process.pid})`;
  return process.container ? `${label} in ${containerLabel(process.container)}` : label;
}
