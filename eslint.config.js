import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

const NO_STORE_LITERAL = {
  selector: 'Literal[value=/no-store/]:not(ImportDeclaration > Literal), TemplateElement[value.raw=/no-store/]',
  message: 'Cache-Control no-store is set in one place: answer through route() (lib/http/route.ts), or use noStore / NO_STORE from lib/http/no-store.ts.',
};

// Not type-aware: recommendedTypeChecked took ≈ 2.5 min on the 2-core machines, against ≈ 1 min for this.
export default defineConfig([
  globalIgnores(['.next/', '.inferwatch/', 'dist/', 'lib/generated/', 'test-results/', 'playwright-report/', 'tests/fixtures/', 'next-env.d.ts']),
  js.configs.recommended,
  tseslint.configs.recommended,
  reactHooks.configs.flat.recommended,
  {
    rules: {
      // server.ts declares what its shutdown handler stops before start-up assigns it; `const` there would be read in its TDZ.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // A leading underscore marks a parameter kept for its signature (requireReader's request, until login exists).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // The HTTP answer's plumbing is written once: lib/http/route.ts (role, parsing, audit, the error envelope) and
    // lib/http/no-store.ts (the cache policy). A handler that repeats it, or a second spelling of no-store, is refused.
    files: ['app/**/*.ts', 'lib/**/*.ts', 'server.ts'],
    ignores: ['lib/http/no-store.ts', '**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_STORE_LITERAL] },
  },
  {
    // Sql.query answers unknown rows; a cast would skip the check lib/db/rows.ts makes (docs/data-layer.md). Flat
    // config replaces a rule's options per file, so lib/ repeats the no-store guard beside this one.
    files: ['lib/**/*.ts'],
    ignores: ['lib/db/sql.ts', 'lib/http/no-store.ts', '**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        NO_STORE_LITERAL,
        {
          selector:
            "TSAsExpression > AwaitExpression > CallExpression[callee.property.name='query'], TSAsExpression > CallExpression[callee.property.name='query'], CallExpression[callee.property.name='query'][typeArguments]",
          message: 'Check rows with queryRows or checkRows (lib/db/rows.ts) instead of naming their type unchecked.',
        },
      ],
    },
  },
  {
    files: ['app/**/route.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@/lib/auth/principal', importNames: ['requireRole', 'audit'], message: 'Declare `role` and `audit` in route() (lib/http/route.ts).' },
            { name: '@/lib/errors', importNames: ['toErrorResponse'], message: 'route() (lib/http/route.ts) turns what a handler throws into the error envelope.' },
          ],
        },
      ],
    },
  },
  {
    // The agent reads procfs/sysfs synchronously on purpose (agent/collectors/read.ts); a function that does must
    // not be `async`, or its callers wait on work that already happened and its type hides that it blocks.
    files: ['agent/**/*.ts'],
    rules: { 'require-await': 'error' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', console: 'readonly' } },
  },
]);
