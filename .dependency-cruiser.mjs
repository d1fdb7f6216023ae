// The import rules of the architecture's layout table (shared/ARCHITECTURE.md) that the code keeps; `npm run lint` runs them.
const TESTS = '\\.test\\.tsx?$';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules that import each other (type imports included) cannot be read, moved or tested one at a time.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'agent-imports-protocol-and-sketch-only',
      severity: 'error',
      comment: 'The agent runs on the monitored hosts: from lib/ it takes the wire format and the sketch, nothing else.',
      from: { path: '^agent/' },
      to: { path: '^(lib|app|components)/|^server\\.ts$', pathNot: '^lib/(protocol|sketch)/' },
    },
    {
      name: 'agent-no-server-packages',
      severity: 'error',
      comment: 'The agent is bundled on its own (npm run agent:bundle): never Next.js, Prisma, React or the database driver.',
      from: { path: '^agent/' },
      to: { path: '(^|/)node_modules/(next|react|react-dom|@prisma|prisma|pg|@electric-sql)/' },
    },
    {
      name: 'protocol-imports-zod-only',
      severity: 'error',
      comment: 'The wire format is shared by the agent, the server and the browser: zod, itself, and RE2 for label matchers (as Alertmanager\'s).',
      from: { path: '^lib/protocol/' },
      to: { pathNot: '^lib/protocol/|(^|/)node_modules/(zod|re2js)/' },
    },
    {
      name: 'components-import-protocol-only',
      severity: 'error',
      comment: 'UI code takes the types and schemas the browser needs from lib/protocol, never a server module.',
      from: { path: '^components/' },
      to: { path: '^lib/', pathNot: '^lib/protocol/' },
    },
    {
      name: 'app-imports-lib-and-components',
      severity: 'error',
      comment: 'Pages and route handlers call lib/ and render components/; the agent, tests and benchmarks stay out.',
      from: { path: '^app/' },
      to: { path: '^(agent|tests|bench|scripts)/' },
    },
    {
      name: 'lib-imports-lib-only',
      severity: 'error',
      comment: 'Server domain code does not reach into pages, UI, the agent, tests or benchmarks (its co-located tests may).',
      from: { path: '^lib/', pathNot: TESTS },
      to: { path: '^(app|components|agent|tests|bench|scripts)/' },
    },
    {
      name: 'lib-never-imports-server',
      severity: 'error',
      comment:
        'Configuration flows down: the entry points parse the environment (lib/server/environment.ts) and hand lib/ its values as parameters or through provideServerSettings(). Only lib/server and the entry points of npm run admin and npm run db:migrate may import lib/server.',
      from: { path: '^lib/', pathNot: ['^lib/server/', '^lib/admin/cli\\.ts$', '^lib/db/migrate-cli\\.ts$', TESTS] },
      to: { path: '^lib/server/' },
    },
    {
      name: 'findings-rules-and-facts-are-pure',
      severity: 'error',
      comment: 'Findings rules and the facts they share judge what they are given: no database, series, engine or I/O.',
      from: { path: '^lib/findings/(rules|facts)/', pathNot: TESTS },
      to: {
        path: [
          '^lib/(db|series|fleet|alerts|ingest|auth|admin|server|http|demo)/',
          '^lib/findings/(engine|read|store|effects)/',
          '^lib/findings/latency/read/',
          '^lib/findings/registry\\.ts$',
        ],
      },
    },
    {
      name: 'findings-latency-maths-is-pure',
      severity: 'error',
      comment: 'lib/findings/latency holds the maths of latency explained; its SQL readers live in latency/read/, the watcher in engine/.',
      from: { path: '^lib/findings/latency/[^/]+$', pathNot: TESTS },
      to: {
        path: ['^lib/(db|series|fleet|alerts|ingest|auth|admin|server|http|demo)/', '^lib/findings/(engine|read|store|effects)/', '^lib/findings/latency/read/'],
      },
    },
    {
      name: 'findings-store-below-effects',
      severity: 'error',
      comment: 'Stores keep rows; measuring what a fix bought (effects/) calls them, never the other way round.',
      from: { path: '^lib/findings/store/' },
      to: { path: '^lib/findings/effects/' },
    },
    {
      name: 'findings-rules-and-facts-no-node',
      severity: 'error',
      comment: 'Nor the file system, the network or any other Node.js module.',
      from: { path: '^lib/findings/(rules|facts)/', pathNot: TESTS },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'findings-facts-below-rules',
      severity: 'error',
      comment: 'Facts are what rules share; a fact that needs a rule belongs in that rule.',
      from: { path: '^lib/findings/facts/' },
      to: { path: '^lib/findings/rules/' },
    },
    {
      name: 'findings-rooms-below-engine',
      severity: 'error',
      comment: 'The engine calls stores and reads, never the other way round.',
      from: { path: '^lib/findings/', pathNot: '^lib/findings/engine/' },
      to: { path: '^lib/findings/engine/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules may be a link to another checkout's: judge its packages by their name, not where they lie.
    preserveSymlinks: true,
    exclude: { path: '^(tests/fixtures|tests/support/runtimes|lib/generated|\\.next|dist)/' },
    // Type-only imports count: a cycle through types still ties the modules together.
    tsPreCompilationDeps: true,
    // Beside .eslintcache; a file's result is reused until its content changes.
    cache: { folder: '.depcruise-cache', strategy: 'content' },
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
