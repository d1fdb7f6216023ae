import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';

// No image is built here (there may be no Docker daemon): the Containerfiles are read as text and held against the
// repository, the bundler's real output, .dockerignore, the compose file and the chart.
const repoRoot = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

interface Instruction { op: string; args: string }
interface Stage { name: string | null; instructions: Instruction[] }

function parseContainerfile(text: string): Stage[] {
  const logical = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, op = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (op.toUpperCase() === 'FROM') stages.push({ name: /\sAS\s+(\S+)$/i.exec(args)?.[1] ?? null, instructions: [] });
    stages.at(-1)?.instructions.push({ op: op.toUpperCase(), args });
  }
  return stages;
}

const argsOf = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op).map((i) => i.args);
const copies = (stage: Stage) =>
  argsOf(stage, 'COPY').map((args) => {
    const words = args.split(/\s+/);
    const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length) ?? null;
    const paths = words.filter((w) => !w.startsWith('--'));
    return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
  });
const jsonArray = (args: string) => JSON.parse(args) as string[];

const dockerignore = read('.dockerignore').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
const ignored = (file: string) => dockerignore.some((pattern) => file === pattern || file.startsWith(`${pattern}/`));

describe.each([
  { file: 'deploy/server.Containerfile', uid: 10001 },
  { file: 'deploy/agent.Containerfile', uid: 10002 },
])('$file', ({ file, uid }) => {
  const stages = parseContainerfile(read(file));
  const final = stages.at(-1)!;

  test('is multi-stage and runs as a numeric non-root user', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(argsOf(final, 'USER')).toEqual([`${uid}:${uid}`]);
    expect(final.instructions.findLast((i) => i.op === 'USER' || i.op === 'CMD' || i.op === 'ENTRYPOINT')?.op).not.toBe('USER');
    // The user is created in the image with that uid.
    expect(argsOf(final, 'RUN').join('\n')).toContain(`useradd --system --uid ${uid}`);
  });

  test('copies from the build context only files that exist and that .dockerignore lets through', () => {
    const sources = stages.flatMap((stage) => copies(stage).filter((c) => c.from === null).flatMap((c) => c.sources));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      if (source === '.') continue;
      expect(existsSync(path.join(repoRoot, source)), `${source} exists`).toBe(true);
      expect(ignored(source), `${source} is not in .dockerignore`).toBe(false);
    }
  });

  test('copies from its build stage only what that stage makes or copied in, and what it runs is in the final image', () => {
    const build = stages.find((s) => s.name === 'build')!;
    const [workdir] = argsOf(build, 'WORKDIR');
    const built = copies(final).filter((c) => c.from === 'build');
    for (const copy of built) {
      for (const source of copy.sources) {
        expect(source.startsWith(`${workdir}/`), `${source} is under the build stage's ${workdir}`).toBe(true);
        const inRepo = source.slice(workdir!.length + 1);
        // dist/ and lib/generated/ are made by the build stage; everything else is a repository file.
        if (!/^(dist|\.next|node_modules|lib\/generated)(\/|$)/.test(inRepo)) expect(existsSync(path.join(repoRoot, inRepo)), inRepo).toBe(true);
      }
    }
    const run = [...argsOf(final, 'ENTRYPOINT'), ...argsOf(final, 'CMD')].flatMap(jsonArray).filter((a) => a.endsWith('.mjs'));
    expect(run).toHaveLength(1);
    const [workdirFinal] = argsOf(final, 'WORKDIR');
    const target = path.posix.resolve(workdirFinal ?? '/', run[0]!);
    // Docker's rule: into a dest ending in "/" each source keeps its name; otherwise the one source becomes dest.
    const destinations = built.flatMap((c) => c.sources.map((s) => {
      const dest = path.posix.resolve(workdirFinal ?? '/', c.dest);
      return c.dest.endsWith('/') ? path.posix.join(dest, path.posix.basename(s)) : dest;
    }));
    expect(destinations.some((d) => target === d || target.startsWith(`${d}/`)), `${target} is copied into the image`).toBe(true);
  });
});

describe('the images and the bundler agree', () => {
  test('every dist/ file the Containerfiles take is one scripts/bundle.mjs writes (server, admin CLI, migrations, agent)', () => {
    const wanted = ['deploy/server.Containerfile', 'deploy/agent.Containerfile'].flatMap((file) => {
      const text = read(file);
      return [...text.matchAll(/\/src\/dist\/([\w.-]+\.mjs)/g)].map((m) => m[1]!).concat(file.includes('server') ? ['server.mjs', 'inferwatch-admin.mjs', 'inferwatch-migrate.mjs'] : []);
    });
    expect(wanted).toContain('inferwatch-agent.mjs');
    const startedMs = Date.now() - 1000;
    execFileSync(process.execPath, ['scripts/bundle.mjs'], { cwd: repoRoot, stdio: 'ignore' });
    for (const name of wanted) expect(statSync(path.join(repoRoot, 'dist', name)).mtimeMs, name).toBeGreaterThanOrEqual(startedMs);
    // The server image's CMD and the docs name the entry points that exist.
    expect(read('deploy/server.Containerfile')).toContain('"dist/server.mjs"');
    expect(read('deploy/server.Containerfile')).toContain('dist/inferwatch-admin.mjs');
    expect(read('deploy/server.Containerfile')).toContain('dist/inferwatch-migrate.mjs');
  });

  test('what the read-only server image may write (its VOLUMEs) is what compose gives it, and the agent\'s uid is the chart\'s', () => {
    const volumesOf = (file: string) => argsOf(parseContainerfile(read(file)).at(-1)!, 'VOLUME').flatMap(jsonArray).sort();
    const { server, agent } = parse(read('deploy/compose.yaml')).services;
    const composeWritable = [...server.tmpfs, ...server.volumes.map((v: string) => v.split(':')[1])].sort();
    expect(volumesOf('deploy/server.Containerfile')).toEqual(composeWritable);
    expect(volumesOf('deploy/agent.Containerfile')).toEqual(agent.volumes.filter((v: string) => !v.startsWith('/')).map((v: string) => v.split(':')[1]));
    expect(parse(read('deploy/helm/inferwatch/values.yaml')).agent.runAsUser).toBe(10002);
    for (const secretish of ['node_modules', '.env', '.inferwatch', '.git']) expect(dockerignore).toContain(secretish);
  });
});
