import type { ContainerRuntime, PodQosClass, ProcessContainer } from '../../../lib/protocol';
import type { CgroupMembership } from './parse';

const ID = '([0-9a-f]{64})';

/** Scope names of the systemd cgroup driver and the group names of cgroupfs. conmon's own scopes never match. */
const CONTAINER_SEGMENTS: [RegExp, ContainerRuntime][] = [
  [new RegExp(`^docker-${ID}\\.scope$`), 'docker'],
  [new RegExp(`^cri-containerd-${ID}\\.scope$`), 'containerd'],
  [new RegExp(`^crio-${ID}(?:\\.scope)?$`), 'cri-o'],
  [new RegExp(`^libpod-(?:payload-)?${ID}(?:\\.scope)?$`), 'podman'],
];

/** containerd 1.4 with systemd_cgroup wrote the kubelet's "slice:prefix:id" cgroupsPath as one directory name. */
const SLICE_PREFIX_ID = new RegExp(`^(.+\\.slice):(docker|cri-containerd|crio):${ID}$`);

/** kubepods-pod<uid>.slice, kubepods-burstable-pod<uid>.slice, kubelet-kubepods-besteffort-pod<uid>.slice (kind). */
const POD_SLICE = /^(?:.+-)?kubepods(?:-(burstable|besteffort))?-pod([0-9a-f_]+)\.slice$/;
const QOS_SLICE = /^(?:.+-)?kubepods-(burstable|besteffort)\.slice$/;
const KUBEPODS = /^(?:kubepods|(?:.+-)?kubepods\.slice)$/;

function podUid(text: string): string | null {
  const uid = text.replaceAll('_', '-');
  return /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/.test(uid) ? uid : null;
}

function containerSegment(segment: string, parent: string | undefined): Omit<ProcessContainer, 'pod'> | null {
  for (const [pattern, runtime] of CONTAINER_SEGMENTS) {
    const match = pattern.exec(segment);
    if (match) return { runtime, id: match[1]! };
  }
  // A bare id is a container under docker's cgroupfs driver (/docker/<id>) or the kubelet's (/kubepods/…/pod<uid>/<id>),
  // which does not say which engine runs it.
  if (/^[0-9a-f]{64}$/.test(segment)) return { runtime: parent === 'docker' ? 'docker' : null, id: segment };
  return null;
}

/**
 * The container one cgroup path names, innermost first (kind runs pods inside a docker container), with its pod
 * under Kubernetes; null for a path outside any container (a service, a session, init.scope, the root).
 */
export function parseContainerPath(groupPath: string): ProcessContainer | null {
  const segments = groupPath.split('/').flatMap((segment) => {
    const match = SLICE_PREFIX_ID.exec(segment);
    return match ? [match[1]!, `${match[2]}-${match[3]}.scope`] : [segment];
  });
  let kube = false;
  let qos: PodQosClass | null = null;
  let pod: ProcessContainer['pod'] | null = null;
  let found: ProcessContainer | null = null;
  for (const [i, segment] of segments.entries()) {
    const podSlice = POD_SLICE.exec(segment);
    const qosSlice = QOS_SLICE.exec(segment);
    if (KUBEPODS.test(segment)) {
      [kube, qos, pod] = [true, null, null];
    } else if (qosSlice) {
      [kube, qos] = [true, qosSlice[1] as PodQosClass];
    } else if (podSlice) {
      const uid = podUid(podSlice[2]!);
      kube = true;
      pod = uid === null ? null : { uid, qosClass: (podSlice[1] as PodQosClass | undefined) ?? 'guaranteed' };
    } else if (kube && pod === null && (segment === 'burstable' || segment === 'besteffort')) {
      qos = segment;
    } else if (kube && pod === null && segment.startsWith('pod')) {
      const uid = podUid(segment.slice('pod'.length));
      if (uid !== null) pod = { uid, qosClass: qos ?? 'guaranteed' };
    } else {
      const container = containerSegment(segment, segments[i - 1]);
      if (container) found = pod ? { ...container, pod } : container;
    }
  }
  return found;
}

/** The container of a process from /proc/<pid>/cgroup: the cgroup2 path decides, else the first v1 path that names one. */
export function containerOf(membership: CgroupMembership): ProcessContainer | null {
  const paths = [membership.unified, ...Object.values(membership.v1)];
  for (const groupPath of paths) {
    const container = groupPath === null ? null : parseContainerPath(groupPath);
    if (container) return container;
  }
  return null;
}
