import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

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
    // Sql.query answers unknown rows; a cast would skip the check lib/db/rows.ts makes (docs/data-layer.md).
    files: ['lib/**/*.ts'],
    ignores: ['lib/db/sql.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "TSAsExpression > AwaitExpression > CallExpression[callee.property.name='query'], TSAsExpression > CallExpression[callee.property.name='query']",
          message: 'Check rows with queryRows (lib/db/rows.ts) instead of casting them.',
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
