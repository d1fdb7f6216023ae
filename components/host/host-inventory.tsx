import type { Inventory, ProcessContainer, ProcessInventory } from '@/lib/protocol';
import type { HostInventoryResponse } from '@/lib/protocol/read-api/inventory';
import { EmptyState, ErrorState } from '../states';
import { LocalTime } from '../time/local-time';
import { containerView, envEntries, formatBytes, formatQuota, hypervisorText, instructionSetBadges, inventorySections } from './inventory-view';
import { PathText } from './path-text';

function Unavailable({ what, reason }: { what: string; reason: string }) {
  return (
    <p className="muted">
      The agent could not read the {what}: <span className="agent-text">{reason}</span>
    </p>
  );
}

function CpuPanel({ inventory }: { inventory: Inventory }) {
  const { cpu, cpuUnavailable } = inventorySections(inventory);
  return (
    <div className="panel">
      <h3>CPU</h3>
      {cpu ? (
        <>
          <p className="cpu-model agent-text" data-testid="cpu-model">
            {cpu.model}
          </p>
          <p className="chips" aria-label="Instruction sets">
            {instructionSetBadges(cpu.flags).map((badge) => (
              <span
                key={badge.name}
                className={`badge ${badge.present ? 'badge-ok' : 'badge-warning'}`}
                title={badge.present ? `${badge.name} available` : `${badge.name} missing: ${badge.why}`}
                data-flag={badge.name}
                data-present={badge.present}
              >
                {badge.present ? '✓' : '✗'} {badge.name}
                <span className="visually-hidden">{badge.present ? ' available' : ' missing'}</span>
              </span>
            ))}
            {!cpu.flagsUniform && <span className="badge badge-warning">flags differ between vCPUs</span>}
          </p>
          <dl className="facts">
            <div>
              <dt>Hypervisor</dt>
              <dd className="agent-text">{hypervisorText(cpu)}</dd>
            </div>
            <div>
              <dt>Topology</dt>
              <dd>
                {cpu.sockets} socket{cpu.sockets === 1 ? '' : 's'}, {cpu.cores} cores, {cpu.threads} threads, {cpu.numaNodes} NUMA node
                {cpu.numaNodes === 1 ? '' : 's'}
              </dd>
            </div>
            <div>
              <dt>Online CPUs</dt>
              <dd>{inventory.host.onlineCpus}</dd>
            </div>
            <div>
              <dt>Governor</dt>
              <dd className="agent-text">{cpu.governor ?? 'not exposed'}</dd>
            </div>
            <div>
              <dt>Kernel</dt>
              <dd className="agent-text">{inventory.host.kernel ?? '—'}</dd>
            </div>
            <div>
              <dt>Memory</dt>
              <dd>{formatBytes(inventory.host.memTotalBytes)}</dd>
            </div>
          </dl>
        </>
      ) : (
        <Unavailable what="CPU" reason={cpuUnavailable ?? ''} />
      )}
    </div>
  );
}

function LimitsPanel({ inventory }: { inventory: Inventory }) {
  const { cgroup, cgroupUnavailable } = inventorySections(inventory);
  return (
    <div className="panel">
      <h3>cgroup limits</h3>
      {cgroup ? (
        <dl className="facts">
          <div>
            <dt>cgroup</dt>
            <dd>
              <PathText path={cgroup.path} /> (v{cgroup.version})
            </dd>
          </div>
          <div>
            <dt>CPU quota</dt>
            <dd>{formatQuota(cgroup.quotaCores)}</dd>
          </div>
          <div>
            <dt>cpuset</dt>
            <dd className="agent-text">{cgroup.cpusetCpus ?? 'all CPUs'}</dd>
          </div>
          <div>
            <dt>Effective CPUs</dt>
            <dd>{cgroup.effectiveCpus}</dd>
          </div>
        </dl>
      ) : (
        <Unavailable what="host's cgroup" reason={cgroupUnavailable ?? ''} />
      )}
    </div>
  );
}

function DisksTable({ inventory }: { inventory: Inventory }) {
  const { disks, disksUnavailable } = inventorySections(inventory);
  if (disksUnavailable) return <Unavailable what="disks" reason={disksUnavailable} />;
  if (disks.length === 0) return <p className="muted">No block devices reported.</p>;
  return (
    <div className="table-wrap">
      <table className="data" aria-label="Disks">
        <thead>
          <tr>
            <th scope="col">Device</th>
            <th scope="col">Class</th>
            <th scope="col">Model</th>
            <th scope="col" className="num">
              Size
            </th>
            <th scope="col" className="num">
              HW queues
            </th>
            <th scope="col">Scheduler</th>
          </tr>
        </thead>
        <tbody>
          {disks.map((disk) => (
            <tr key={disk.device} data-disk={disk.device}>
              <th scope="row" className="agent-text">
                {disk.device}
              </th>
              <td>
                <span className={`badge ${disk.class === 'hdd' ? 'badge-warning' : ''}`}>{disk.class}</span>
                {disk.rotational && disk.class !== 'hdd' ? <span className="muted"> (rotational)</span> : null}
              </td>
              <td className="agent-text">{disk.model ?? '—'}</td>
              <td className="num">{formatBytes(disk.sizeBytes)}</td>
              <td className="num">{disk.hwQueues ?? '—'}</td>
              <td className="agent-text">{disk.scheduler ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ContainerFacts({ container }: { container: ProcessContainer }) {
  const view = containerView(container);
  return (
    <>
      <div>
        <dt>Container</dt>
        <dd data-testid="process-container">
          <code className="agent-text" title={view.id}>
            {view.shortId}
          </code>{' '}
          <span className="muted agent-text">({view.engine})</span>
        </dd>
      </div>
      {view.pod && (
        <div>
          <dt>Pod</dt>
          <dd data-testid="process-pod">
            <code className="agent-text">{view.pod.uid}</code>, QoS {view.pod.qosClass}
          </dd>
        </div>
      )}
    </>
  );
}

function ProcessCard({ process }: { process: ProcessInventory }) {
  const env = envEntries(process);
  return (
    <li className="panel process" data-process={process.name}>
      <h4>
        <span className="agent-text">{process.name}</span> <span className="muted">pid {process.pid}</span>
      </h4>
      <dl className="facts">
        <div>
          <dt>Threads</dt>
          <dd>{process.threads}</dd>
        </div>
        <div>
          <dt>Allowed CPUs</dt>
          <dd>
            <span className="agent-text">{process.cpusAllowedList}</span> ({process.cpusAllowedCount})
          </dd>
        </div>
        {process.container && <ContainerFacts container={process.container} />}
        <div>
          <dt>cgroup</dt>
          <dd>
            {process.cgroup ? (
              <>
                <PathText path={process.cgroup.path} />: {formatQuota(process.cgroup.quotaCores)}, cpuset{' '}
                <span className="agent-text">{process.cgroup.cpusetCpus ?? 'all'}</span>
              </>
            ) : (
              'the host’s'
            )}
          </dd>
        </div>
        <div>
          <dt>Runtimes</dt>
          <dd>
            {process.runtimes ? (process.runtimes.length ? process.runtimes.map((r) => r.id).join(', ') : 'none recognised') : (
              <span className="muted agent-text">{process.runtimesUnreadable ?? 'not reported by this agent'}</span>
            )}
          </dd>
        </div>
      </dl>
      <div>
        <strong>Thread settings</strong>{' '}
        {process.envUnreadable ? (
          <span className="muted agent-text">environment unreadable: {process.envUnreadable}</span>
        ) : env.length === 0 ? (
          <span className="muted">none of OMP_*, MKL_*, KMP_*, OPENBLAS_* … set</span>
        ) : (
          <ul className="env-list">
            {env.map(([key, value]) => (
              <li key={key}>
                <code className="agent-text">
                  {key}={value}
                </code>
              </li>
            ))}
          </ul>
        )}
      </div>
      {process.logWarnings.length > 0 && (
        <ul className="log-warnings">
          {process.logWarnings.map((w) => (
            <li key={w.id} className="agent-text">
              {w.line}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function ChangeHistory({ data }: { data: HostInventoryResponse }) {
  return (
    <div className="panel" data-testid="inventory-history">
      <h3>Change history</h3>
      {data.changes.length === 0 && !data.firstSeenAt ? (
        <p className="muted">No changes in the last 90 days.</p>
      ) : (
        <ol className="change-list">
          {data.changes.map((change) => (
            <li key={change.takenAt + change.hash}>
              <LocalTime iso={change.takenAt} />{' '}
              {change.changes.length ? (
                <ul>
                  {change.changes.map((text, i) => (
                    <li key={i} className="agent-text">
                      {text}
                    </li>
                  ))}
                </ul>
              ) : (
                <span className="muted">details changed that do not bear on latency</span>
              )}
            </li>
          ))}
          {data.firstSeenAt && (
            <li>
              <LocalTime iso={data.firstSeenAt} /> <span className="muted">first inventory (enrolment)</span>
            </li>
          )}
        </ol>
      )}
      {data.truncated && <p className="muted">Older changes are not shown.</p>}
    </div>
  );
}

/**
 * CPU model and instruction sets, hypervisor, disks, watched processes with their thread settings, limits, history.
 * Rendered on the server with the page: a snapshot that changes rarely needs none of the browser's script.
 */
export function HostInventory({ data, error }: { data: HostInventoryResponse | null; error: Error | null }) {
  let body;
  if (error || !data) body = <ErrorState what="the inventory" error={error ?? new Error('no answer')} />;
  else if (!data.current)
    body = (
      <EmptyState title="No inventory yet">
        <p className="muted">The agent sends the host&apos;s inventory with its first report and again whenever it changes.</p>
      </EmptyState>
    );
  else {
    const { current } = data;
    const inventory = current.data;
    body = (
      <>
        <p className="muted">
          As of <LocalTime iso={current.takenAt} />; changes show on the charts as they happen, and here after a reload.
        </p>
        <div className="grid-2">
          <CpuPanel inventory={inventory} />
          <LimitsPanel inventory={inventory} />
        </div>
        <h3>Disks</h3>
        <DisksTable inventory={inventory} />
        <h3>Watched processes</h3>
        {inventory.processes.length === 0 ? (
          <p className="muted">No watched processes. Start the agent with --watch-process NAME to see threads, thread settings and allowed CPUs.</p>
        ) : (
          <ul className="process-list">
            {inventory.processes.map((p, i) => (
              <ProcessCard key={`${p.name}-${p.pid}-${i}`} process={p} />
            ))}
          </ul>
        )}
        <ChangeHistory data={data} />
      </>
    );
  }
  return (
    <section aria-labelledby="inventory-heading">
      <h2 id="inventory-heading">Inventory</h2>
      {body}
    </section>
  );
}
