import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DaemonSet, Deployment } from 'kubernetes-models/apps/v1';
import { Secret, Service } from 'kubernetes-models/v1';
import { beforeAll, describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { helmBinary } from '../support/helm';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const chart = path.join(repoRoot, 'deploy/helm/inferwatch');
let helm = '';

// Each class validates against the upstream Kubernetes OpenAPI schema of its kind.
const MODELS = { Deployment, DaemonSet, Secret, Service } as const;
type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; [key: string]: unknown };

const REQUIRED = ['server.databaseUrl=postgres://inferwatch@db.example:5432/inferwatch', 'server.secretKey=0123456789abcdef0123456789abcdef', 'agent.enrollKey=iwk_test'];

function runHelm(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(helm, args, { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function render(sets: string[]): Manifest[] {
  const out = runHelm(['template', 'iw', chart, '--namespace', 'monitoring', ...sets.flatMap((s) => ['--set', s])]);
  if (out.status !== 0) throw new Error(`helm template failed: ${out.stderr}`);
  return parseAllDocuments(out.stdout).map((doc) => doc.toJS() as Manifest).filter((m) => m !== null);
}

function validate(manifest: Manifest): void {
  const Model = MODELS[manifest.kind as keyof typeof MODELS];
  if (!Model) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}: add its class to MODELS`);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the classes take their own typed shapes; the schema is the check
  new Model(manifest as any).validate();
}

const byKind = (manifests: Manifest[], kind: string) => manifests.filter((m) => m.kind === kind) as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(() => {
  helm = helmBinary();
}, 600_000);

describe('the Helm chart, rendered by helm', () => {
  test('helm lint --strict passes with the required values', () => {
    const out = runHelm(['lint', '--strict', chart, ...REQUIRED.flatMap((s) => ['--set', s])]);
    expect(out.stderr + out.stdout).toContain('0 chart(s) failed');
    expect(out.status).toBe(0);
  });

  test('every rendered manifest is valid against the Kubernetes schemas, and the validation rejects a broken one', () => {
    const manifests = render(REQUIRED);
    expect(manifests.map((m) => `${m.apiVersion} ${m.kind}`).sort()).toEqual(['apps/v1 DaemonSet', 'apps/v1 Deployment', 'v1 Secret', 'v1 Secret', 'v1 Service']);
    for (const manifest of manifests) validate(manifest);

    const [deployment] = byKind(manifests, 'Deployment');
    expect(() => validate({ ...deployment, spec: { ...deployment.spec, replicas: 'three' } })).toThrow(/replicas must be integer/);
    const [daemonSet] = byKind(manifests, 'DaemonSet');
    expect(() => validate({ ...daemonSet, spec: { ...daemonSet.spec, template: { ...daemonSet.spec.template, spec: { ...daemonSet.spec.template.spec, hostPID: 'yes' } } } })).toThrow(/hostPID must be boolean/);
  });

  test('the server runs the configured replicas as a non-root user on a read-only root, probed on the app\'s health route', () => {
    const [deployment] = byKind(render([...REQUIRED, 'server.replicas=3']), 'Deployment');
    expect(deployment.spec.replicas).toBe(3);
    const pod = deployment.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    const [server] = pod.containers;
    expect(server.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    // The route the probes ask for is the app's own health route.
    expect(existsSync(path.join(repoRoot, 'app/api/health/route.ts'))).toBe(true);
    expect(server.readinessProbe.httpGet).toEqual({ path: '/api/health', port: 'http' });
    expect(server.startupProbe.httpGet).toEqual({ path: '/api/health', port: 'http' });
    // What the read-only root leaves writable: the declared volumes of server.Containerfile, each an emptyDir.
    expect(server.volumeMounts.map((m: { mountPath: string }) => m.mountPath).sort()).toEqual(['/app/.next/cache', '/tmp', '/var/lib/inferwatch']);
    expect(server.envFrom).toEqual([{ secretRef: { name: 'iw-inferwatch-server' } }]);
    const [secret] = byKind(render([...REQUIRED, 'server.replicas=3']), 'Secret');
    expect(secret.stringData).toEqual({ DATABASE_URL: 'postgres://inferwatch@db.example:5432/inferwatch', INFERWATCH_SECRET_KEY: '0123456789abcdef0123456789abcdef' });
  });

  test('the agent DaemonSet sees the host\'s processes and reads its /proc and /sys read-only at /host, as the node, on every node', () => {
    const [daemonSet] = byKind(render(REQUIRED), 'DaemonSet');
    const pod = daemonSet.spec.template.spec;
    expect(pod.hostPID).toBe(true);
    expect(pod.tolerations).toEqual([{ operator: 'Exists' }]);
    const [agent] = pod.containers;
    expect(agent.args.join(' ')).toContain('--proc-root /host/proc --sys-root /host/sys');
    expect(agent.args).toContain('--server=http://iw-inferwatch-server.monitoring.svc:3000');
    expect(agent.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10002, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });

    const volumes = Object.fromEntries(pod.volumes.map((v: { name: string }) => [v.name, v]));
    const mounts = Object.fromEntries(agent.volumeMounts.map((m: { mountPath: string }) => [m.mountPath, m]));
    expect(mounts['/host/proc']).toEqual({ name: 'host-proc', mountPath: '/host/proc', readOnly: true });
    expect(mounts['/host/sys']).toEqual({ name: 'host-sys', mountPath: '/host/sys', readOnly: true });
    expect(volumes['host-proc'].hostPath).toEqual({ path: '/proc', type: 'Directory' });
    expect(volumes['host-sys'].hostPath).toEqual({ path: '/sys', type: 'Directory' });
    expect(mounts['/var/lib/inferwatch-agent'].readOnly).toBeUndefined();
    expect(volumes.state.hostPath).toEqual({ path: '/var/lib/inferwatch-agent', type: 'DirectoryOrCreate' });

    const env = Object.fromEntries(agent.env.map((e: { name: string }) => [e.name, e]));
    expect(env.INFERWATCH_HOSTNAME.valueFrom).toEqual({ fieldRef: { fieldPath: 'spec.nodeName' } });
    expect(env.INFERWATCH_ENROLL_KEY.valueFrom).toEqual({ secretKeyRef: { name: 'iw-inferwatch-agent', key: 'INFERWATCH_ENROLL_KEY' } });
    // The one root step: giving the hostPath state dir to the agent's user, with two capabilities and nothing else.
    const [owner] = pod.initContainers;
    expect(owner.securityContext.capabilities).toEqual({ drop: ['ALL'], add: ['CHOWN', 'FOWNER'] });
    expect(owner.command.join(' ')).toContain('chown 10002:10002 /state');
  });

  test('values: an existing Secret for the key, an emptyDir state dir, a model folder for --data-path, the agent off', () => {
    const [daemonSet] = byKind(render([...REQUIRED, 'agent.existingSecret=fleet-key', 'agent.stateHostPath=']), 'DaemonSet');
    const pod = daemonSet.spec.template.spec;
    expect(pod.initContainers).toBeUndefined();
    expect(pod.volumes.find((v: { name: string }) => v.name === 'state')).toEqual({ name: 'state', emptyDir: {} });
    expect(pod.containers[0].env.find((e: { name: string }) => e.name === 'INFERWATCH_ENROLL_KEY').valueFrom.secretKeyRef.name).toBe('fleet-key');
    const [withModels] = byKind(render([...REQUIRED, 'agent.extraVolumes[0].name=models', 'agent.extraVolumes[0].hostPath.path=/srv/models',
      'agent.extraVolumeMounts[0].name=models', 'agent.extraVolumeMounts[0].mountPath=/models', 'agent.extraVolumeMounts[0].readOnly=true', 'agent.extraArgs[0]=--data-path=/models']), 'DaemonSet');
    validate(withModels);
    const modelsPod = withModels.spec.template.spec;
    expect(modelsPod.volumes.at(-1)).toEqual({ name: 'models', hostPath: { path: '/srv/models' } });
    expect(modelsPod.containers[0].volumeMounts.at(-1)).toEqual({ name: 'models', mountPath: '/models', readOnly: true });
    expect(modelsPod.containers[0].args.at(-1)).toBe('--data-path=/models');
    const withoutAgent = render([...REQUIRED, 'agent.enabled=false']);
    expect(withoutAgent.map((m) => m.kind).sort()).toEqual(['Deployment', 'Secret', 'Service']);
  });

  test('refuses to render without a database URL, or several replicas without a shared secret key', () => {
    const noDb = runHelm(['template', 'iw', chart, '--set', 'agent.enrollKey=k', '--set', 'server.secretKey=s']);
    expect(noDb.status).not.toBe(0);
    expect(noDb.stderr).toContain('server.databaseUrl');
    const noKey = runHelm(['template', 'iw', chart, '--set', REQUIRED[0]!, '--set', 'agent.enrollKey=k', '--set', 'server.replicas=2']);
    expect(noKey.status).not.toBe(0);
    expect(noKey.stderr).toContain('server.secretKey is required with more than one replica');
    const oneReplica = runHelm(['template', 'iw', chart, '--set', REQUIRED[0]!, '--set', 'agent.enrollKey=k', '--set', 'server.replicas=1']);
    expect(oneReplica.status).toBe(0);
    expect(execFileSync(helm, ['version', '--short'], { encoding: 'utf8' })).toMatch(/^v4\./);
  });
});
