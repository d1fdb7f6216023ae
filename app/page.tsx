import { FleetTable } from '@/components/fleet-table';

export default function FleetPage() {
  return (
    <section>
      <h1>Fleet</h1>
      <p className="muted">
        CPU steal is time a noisy neighbour took from your vCPUs; iowait is time the CPUs sat idle waiting for disk.
        Both are measured over each host&apos;s latest reporting interval.
      </p>
      <FleetTable />
    </section>
  );
}
