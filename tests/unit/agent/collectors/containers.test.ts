import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { containerOf, parseContainerPath } from '../../../../agent/collectors/cgroups/containers';
import { parseCgroupFile } from '../../../../agent/collectors/cgroups/parse';
import { containerLabel, processContainerSchema, type ProcessContainer } from '../../../../lib/protocol';
import { fixture } from './two-readings';

const captured = (file: string) => containerOf(parseCgroupFile(readFileSync(fixture('cgroup-paths', file), 'utf8')));
const pod = (uid: string, qosClass: 'guaranteed' | 'burstable' | 'besteffort') => ({ uid, qosClass });

// Every file in tests/fixtures/cgroup-paths (its README says where each was captured) and what it names.
const CAPTURED: [string, ProcessContainer | null][] = [
  ['docker-v1-cgroupfs-ubuntu.cgroup', { runtime: 'docker', id: '31cb02944da7a12196a193cf0e0f6c226d7c453a1db62e65ba98287593a2ee30' }],
  ['docker-v1-cgroupfs-hybrid-debian10.cgroup', { runtime: 'docker', id: 'a2ffe0e97ac22657a2a023ad628e9df837c38a03b1ebc904d3f6d644eb1a1a81' }],
  ['docker-v1-systemd-centos.cgroup', { runtime: 'docker', id: '9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3d' }],
  ['docker-v1-root-parent-debian.cgroup', { runtime: null, id: '4f797c539e6c745de61a93ca3ff892358ecbcaccd8414d5db545c38428142970' }],
  ['docker-in-docker-v1-rancheros.cgroup', { runtime: 'docker', id: 'ec08435e04266c5ba381fccbb829f626d11d8ddf5f8f547263c7a2d79ab4787a' }],
  ['docker-v2-systemd.cgroup', { runtime: 'docker', id: 'b176419186d75a44628851daf7841d3374a2ec56d0b038ee3bd1e0c6d331e5b1' }],
  ['k8s-docker-v1-cgroupfs-besteffort.cgroup', {
    runtime: null, id: 'cb1eadb7abe3a6545e9856411207073277838e1bdc003337c2f8685faeedc32c', pod: pod('74ba62da-1a3d-11e7-bb11-080027cb0e22', 'besteffort'),
  }],
  ['k8s-docker-v1-systemd-besteffort.cgroup', {
    runtime: 'docker', id: 'b5b6f2da8008be266864f896f93789762b2ce50792114a5c5f2cc3315af0bc70', pod: pod('045b1e35-7f13-11e7-ac42-0050568ffca0', 'besteffort'),
  }],
  ['k8s-docker-v2-namespaced-view.cgroup', {
    runtime: 'docker', id: '2cc65c162ca1388b6b8d5ccfb701d22fc96675ccf8b2f1590c490c2c4039547f', pod: pod('fd698699-eabf-4c23-92ef-cf0bbdb78261', 'besteffort'),
  }],
  ['k8s-v1-cgroupfs-kube-proxy-subgroup.cgroup', {
    runtime: null, id: 'c04e0a88a1de067f25bece337d4dbb897396e0b623c2a65330850fc9823f1903', pod: pod('f8a694f2-7c08-11e9-98da-000c29077430', 'besteffort'),
  }],
  ['k8s-containerd-1.2-v1-cgroupfs.cgroup', {
    runtime: null, id: '5dd96d5394ca930a854a390ea46f7515a8bc930123eb3251ba20f2708a38fc61', pod: pod('a36d0c1d-0b26-4451-8d80-9c195e004afa', 'besteffort'),
  }],
  ['k8s-containerd-1.4-v1-slice-colon-id.cgroup', {
    runtime: 'containerd', id: 'd3d8ccf5cca91931c6285c1d7472c413dd5a7700fddc0aa9f89a9ac7008b003e', pod: pod('2105e389-7471-476e-a50f-6074cef29bbd', 'besteffort'),
  }],
  ['k8s-containerd-v1-systemd-bottlerocket.cgroup', {
    runtime: 'containerd', id: 'f45298cd514d1930c4fe3afc4412e59547f7e3148fddd22ca33cefce046eb830', pod: pod('dd1bf9d1-241d-47f5-8e25-12de83135812', 'besteffort'),
  }],
  ['k8s-containerd-1.6-v2-systemd.cgroup', {
    runtime: 'containerd', id: '25d057a4c6c9555f2a0eb106e8896968c28f1c44aca4754174851aca7f89ad26', pod: pod('9493223b-520e-4a97-a45f-359dcf967006', 'besteffort'),
  }],
  ['kind-v2-pod-in-docker-node.cgroup', {
    runtime: 'containerd', id: '99f3a16ea25b7724cb56a4f0c0df1113ad9474fbf5545bead97fd5c7f61c13f4', pod: pod('eab5a334-93fe-48a8-b139-9e8079c1f163', 'besteffort'),
  }],
  ['k8s-crio-v1-systemd-openshift-4.6.cgroup', {
    runtime: 'cri-o', id: 'd6d725b909f37c3e232aadfbafa950a58bfe7baa579ba8c47a12be88bb921607', pod: pod('8ca306fa-3c03-47fa-97dd-19979c345572', 'besteffort'),
  }],
  ['k8s-crio-v1-systemd-static-pod.cgroup', {
    runtime: 'cri-o', id: '7a1fd6fe8cdfbd44dc78c4cc85dad7031eaab4365801684cad0aabdeaf863f9e', pod: pod('487a0dc6dccaeefbcfedba7a7ce1ca18', 'burstable'),
  }],
  ['k8s-crio-v2-systemd-kubic.cgroup', {
    runtime: 'cri-o', id: 'f33f47b0db740bb647cb3e7ac62d96c74966dbb99cbfaf4563bfd42d387e8b44', pod: pod('042efd86-1f3b-4f2f-8736-f31c58e95bbc', 'burstable'),
  }],
  ['k8s-crio-v2-systemd-guaranteed-openshift.cgroup', {
    runtime: 'cri-o', id: '1c33afbc9e5aa6c69150d1af05254b562a4b17c313fc6153e3625cf456922bfe', pod: pod('7922aa99-d4aa-4885-a953-82976860b23a', 'guaranteed'),
  }],
  ['k8s-crio-v2-systemd-besteffort-openshift.cgroup', {
    runtime: 'cri-o', id: 'bdf2eeede4551b27acbbb05fb1b4f61925786681734bf128e68d39e17d115098', pod: pod('dbdd9718-6f63-40ef-987e-34776599d7d6', 'besteffort'),
  }],
  ['k8s-v2-cgroupfs-guaranteed.cgroup', {
    runtime: null, id: '65d752a38e1db784d521f48c3f1956f4f9a74ebb923377144f253f3aca9fa028', pod: pod('51b64565-2b17-4d46-83ac-22e398f2f7fb', 'guaranteed'),
  }],
  ['k8s-v2-cgroupfs-burstable.cgroup', {
    runtime: null, id: 'a069581483b00a498b3ba172612ffed06b3275a043bf3895c1b19e783e2793ee', pod: pod('5a89bcaa-3509-4375-83e1-b9e7a5712123', 'burstable'),
  }],
  ['podman-v1-systemd-in-container.cgroup', { runtime: 'podman', id: '2521e906f0a0c758c3a7dc4fd68c197e32e96abb4b36807d0b0ede6d014a7c24' }],
  ['podman-v2-rootless.cgroup', { runtime: 'podman', id: 'f992ec4ed807f76e5e54c9c67d78f0a4105bf945420271c2558ba905e38d2108' }],
  ['podman-v2-rootful.cgroup', { runtime: 'podman', id: '06dc5f321aad8726aa26559f16ec203bc099245bc44894b14a89fc02b022d1d5' }],
  ['podman-v2-rootful-user0.cgroup', { runtime: 'podman', id: 'cf21d19260ace8544fe8b769fc2638bf2c0873dfbfff0b6253f0569b26a1d5eb' }],
  ['podman-v2-quadlet.cgroup', { runtime: 'podman', id: '8e363eb2287da4ccc9f52ffc5de11252ac5fe707e3ddb917a3c0bdf9bb64165b' }],
  ['k8s-crio-v2-conmon.cgroup', null],
  ['host-v1-root.cgroup', null],
  ['host-v1-nsenter-session.cgroup', null],
  ['host-v2-init-scope.cgroup', null],
  ['host-v2-user-tmux-scope.cgroup', null],
  ['host-v2-service.cgroup', null],
];

describe('containerOf on captured /proc/<pid>/cgroup files', () => {
  test.each(CAPTURED)('%s', (file, expected) => {
    const container = captured(file);
    expect(container).toEqual(expected);
    if (container) expect(processContainerSchema.parse(container)).toEqual(container);
  });

  test('every captured file is in the table, so a new capture cannot go untested', () => {
    const files = readdirSync(fixture('cgroup-paths')).filter((file) => path.extname(file) === '.cgroup');
    expect(files.sort()).toEqual(CAPTURED.map(([file]) => file).sort());
  });

  test('this repository\'s own Firecracker capture (a 32-hex memory group, the rest at /) names no container', () => {
    expect(containerOf(parseCgroupFile(readFileSync(fixture('inventory-firecracker-v1', 'proc', 'self', 'cgroup'), 'utf8')))).toBeNull();
  });
});

describe('parseContainerPath', () => {
  test('the innermost container wins: docker inside podman is the docker container', () => {
    const outer = 'a'.repeat(64);
    const inner = 'b'.repeat(64);
    expect(parseContainerPath(`/machine.slice/libpod-${outer}.scope/docker/${inner}`)).toEqual({ runtime: 'docker', id: inner });
  });

  test('a pod with no container below it, a QoS slice, and a kubepods path alone name no container', () => {
    expect(parseContainerPath('/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0b7632a2_a56e_4278_987a_22de18008dbe.slice')).toBeNull();
    expect(parseContainerPath('/kubepods.slice/kubepods-besteffort.slice')).toBeNull();
    expect(parseContainerPath('/kubepods')).toBeNull();
  });

  test('ids that are not 64 hex digits and conmon scopes are not containers', () => {
    expect(parseContainerPath('/system.slice/docker-abc.scope')).toBeNull();
    expect(parseContainerPath(`/docker/${'A'.repeat(64)}`)).toBeNull();
    expect(parseContainerPath(`/machine.slice/libpod-conmon-${'c'.repeat(64)}.scope`)).toBeNull();
    expect(parseContainerPath('/system.slice/docker.service')).toBeNull();
    expect(parseContainerPath('/user.slice/user-1000.slice/session-3.scope')).toBeNull();
  });

  test('a pod uid that is neither a UUID nor 32 hex digits is left out, the container kept', () => {
    const id = 'd'.repeat(64);
    expect(parseContainerPath(`/kubepods/burstable/podnot-a-uid/${id}`)).toEqual({ runtime: null, id });
  });

  test('CRI-O under the cgroupfs driver names its container crio-<id> without .scope', () => {
    const id = 'e'.repeat(64);
    expect(parseContainerPath(`/kubepods/besteffort/pod74ba62da-1a3d-11e7-bb11-080027cb0e22/crio-${id}`)).toEqual({
      runtime: 'cri-o', id, pod: pod('74ba62da-1a3d-11e7-bb11-080027cb0e22', 'besteffort'),
    });
  });

  test('the unified path decides over v1 paths; a v1 path is read when the unified one names none', () => {
    const a = 'a'.repeat(64);
    const b = 'b'.repeat(64);
    expect(containerOf({ unified: `/system.slice/docker-${a}.scope`, v1: { cpu: `/docker/${b}` } })?.id).toBe(a);
    expect(containerOf({ unified: '/system.slice/containerd.service', v1: { cpu: `/docker/${b}` } })?.id).toBe(b);
    expect(containerOf({ unified: null, v1: {} })).toBeNull();
  });
});

describe('containerLabel', () => {
  test('names a pod\'s container by pod and container, any other by container and engine', () => {
    const id = '9c1b2d3e4f5a'.padEnd(64, '0');
    expect(containerLabel({ runtime: 'containerd', id, pod: pod('3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b', 'burstable') })).toBe('pod 3f2a1b4c…/container 9c1b2d3e4f5a…');
    expect(containerLabel({ runtime: 'docker', id })).toBe('container 9c1b2d3e4f5a… (docker)');
    expect(containerLabel({ runtime: null, id })).toBe('container 9c1b2d3e4f5a…');
  });
});

