// `npm run build`'s second half: the server, its admin and migration CLIs and the agent as single ES modules that
// plain `node` runs, so nothing compiles TypeScript at run time. Run as its own process, so esbuild's service leaves with it.
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', sourcemap: 'linked', logLevel: 'warning' };

// Server code imports `server-only` to keep it out of client bundles; outside Next it is the empty module Next
// resolves it to for server components.
const serverOnlyIsEmpty = {
  name: 'server-only-is-empty',
  setup(b) {
    b.onResolve({ filter: /^server-only$/ }, () => ({ path: 'server-only', namespace: 'empty' }));
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

// Packages stay in node_modules (loaded once, shared with Next's own server); a CommonJS one imported from the ESM
// bundle needs `require`.
const server = {
  ...common,
  entryPoints: [path.join(root, 'server.ts')],
  outfile: path.join(root, 'dist', 'server.mjs'),
  packages: 'external',
  plugins: [serverOnlyIsEmpty],
  banner: { js: "import { createRequire as __inferwatchRequire } from 'node:module'; const require = __inferwatchRequire(import.meta.url);" },
};

// The admin CLI and the migration runner, for an image that has the server's node_modules but no tsx or sources.
const serverCli = (name, entry) => ({ ...server, entryPoints: [path.join(root, entry)], outfile: path.join(root, 'dist', `${name}.mjs`) });
const admin = serverCli('inferwatch-admin', 'lib/admin/cli.ts');
const migrate = serverCli('inferwatch-migrate', 'lib/db/migrate-cli.ts');

// The agent is copied to hosts alone, so it carries everything (it has no dependencies outside node:).
const agent = {
  ...common,
  entryPoints: [path.join(root, 'agent', 'cli.ts')],
  outfile: path.join(root, 'dist', 'inferwatch-agent.mjs'),
  minify: true,
  sourcemap: false,
};

const which = process.argv[2];
const serverSide = which === 'agent' ? [] : [server, admin, migrate];
await Promise.all([...serverSide, ...(which === 'server' ? [] : [agent])].map((options) => build(options)));
