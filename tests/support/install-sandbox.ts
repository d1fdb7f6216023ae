import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Stand-ins for what install.sh does that a CI machine must not: create a system user, drive systemd and (when the
 * tests do not run as root) hand files to root. Each records its arguments in `<dir>/calls`, one line per call.
 */
export function installStandIns(dir: string): { path: string; calls(): string[] } {
  const bin = path.join(dir, 'stand-in-bin');
  fs.mkdirSync(bin, { recursive: true });
  const calls = path.join(dir, 'calls');
  const names = ['useradd', 'systemctl', ...(process.getuid?.() === 0 ? [] : ['chown'])];
  for (const name of names) fs.writeFileSync(path.join(bin, name), `#!/bin/sh\necho "${name} $*" >> "${calls}"\n`, { mode: 0o755 });
  return {
    path: `${bin}:${process.env.PATH}`,
    calls: () => (fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n') : []),
  };
}

/** Runs a shell script file with arguments and stdin; resolves with its exit code and output, never rejects. */
export function runScript(
  file: string,
  args: string[],
  { stdin, env }: { stdin: string; env: Record<string, string> },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile('sh', [file, ...args], { env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    // A script that refuses its arguments exits before reading stdin.
    child.stdin!.on('error', () => {});
    child.stdin!.end(stdin);
  });
}

const UNIT_REL = 'etc/systemd/system/inferwatch-agent.service';

/**
 * What systemd would run for the unit install.sh put under `root`: its ExecStart, with the host paths it names moved
 * under `root`, the credential directory being where LoadCredential reads from, and its EnvironmentFile's settings.
 */
export function installedUnitCommand(root: string): { argv: string[]; env: Record<string, string> } {
  const unit = fs.readFileSync(path.join(root, UNIT_REL), 'utf8');
  const line = (key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(unit)?.[1];
  const [credentialName, credentialSource] = line('LoadCredential')!.split(':') as [string, string];
  const underRoot = (word: string) => (/^\/(usr\/local|var\/lib|etc)\//.test(word) ? path.join(root, word) : word);
  const [node, ...args] = line('ExecStart')!.split(' ');
  const argv = [node!, ...args.map((word) => underRoot(word.replace(`\${CREDENTIALS_DIRECTORY}/${credentialName}`, credentialSource)))];
  const envFile = path.join(root, line('EnvironmentFile')!.replace(/^-/, ''));
  const env = Object.fromEntries(
    fs
      .readFileSync(envFile, 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  return { argv, env };
}
