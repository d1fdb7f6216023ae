import type { ActiveCollector } from '../../../agent/collectors/registration';
import { COLLECTORS } from '../../../agent/collectors/registry';
import type { CollectorContext } from '../../../agent/collectors/types';

export type FakeRead = (ctx: CollectorContext) => Promise<unknown>;

/**
 * The registered collectors named in `reads`, in the registry's order, each reading from its fake instead of the
 * host: the real cadence and place in the report, test data. A name the registry does not have is a test bug.
 */
export function collectorsReading(reads: Record<string, FakeRead>): ActiveCollector[] {
  const unknown = Object.keys(reads).filter((name) => !COLLECTORS.some((c) => c.name === name));
  if (unknown.length > 0) throw new Error(`no registered collector named ${unknown.join(', ')}`);
  return COLLECTORS.flatMap((c) => {
    const collect = reads[c.name];
    return collect ? [c.withSource({ collect })] : [];
  });
}
