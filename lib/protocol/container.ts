import { z } from 'zod';

/** The engines whose cgroup names say which one runs a container (docker-…, cri-containerd-…, crio-…, libpod-…). */
export const CONTAINER_RUNTIMES = ['docker', 'containerd', 'cri-o', 'podman'] as const;
export type ContainerRuntime = (typeof CONTAINER_RUNTIMES)[number];

export const POD_QOS_CLASSES = ['guaranteed', 'burstable', 'besteffort'] as const;
export type PodQosClass = (typeof POD_QOS_CLASSES)[number];

/** A pod's uid as the kubelet names its cgroup: a UUID, or 32 hex digits for a static pod (a hash of its manifest). */
const podUidSchema = z.string().regex(/^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/);

export const processContainerSchema = z.object({
  /** null where the cgroup path names a container but not its engine (the kubelet's cgroupfs driver). */
  runtime: z.enum(CONTAINER_RUNTIMES).nullable(),
  id: z.string().regex(/^[0-9a-f]{64}$/),
  /** Present when the container is one of a Kubernetes pod's. */
  pod: z.object({ uid: podUidSchema, qosClass: z.enum(POD_QOS_CLASSES) }).optional(),
});
export type ProcessContainer = z.infer<typeof processContainerSchema>;

/** "pod 3f2a1b4c…/container 9c1b2d3e4f5a…" or "container 9c1b2d3e4f5a… (docker)": a container named in a line of text. */
export function containerLabel(container: ProcessContainer): string {
  const id = `container ${container.id.slice(0, 12)}…`;
  if (container.pod) return `pod ${container.pod.uid.slice(0, 8)}…/${id}`;
  return container.runtime === null ? id : `${id} (${container.runtime})`;
}
