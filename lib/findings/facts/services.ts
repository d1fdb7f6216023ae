import type { Inventory, ProcessInventory } from '../../protocol';

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

/** "serve.py (pid 4242)": how a message names one process. */
export function processLabel(process: ProcessInventory): string {
  return process.name === `pid:${process.pid}` ? `pid ${process.pid}` : `${process.name} (pid ${process.pid})`;
}
