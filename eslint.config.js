// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const NODE_BUILTINS = [
  'assert',
  'buffer',
  'child_process',
  'crypto',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'process',
  'stream',
  'timers',
  'tls',
  'url',
  'util',
  'worker_threads',
  'zlib',
];

export default tseslint.config(
  { ignores: ['gen/**', 'node_modules/**', '.data/**', 'bench/results/**', 'coverage/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // The service's settings are read once, through the schema of src/config.ts, so that the
    // README's table of variables is every variable. Tests may set up their own environment.
    files: ['src/**/*.ts'],
    ignores: ['src/config.ts', 'src/**/*.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'read settings through src/config.ts (its zod schema)' },
      ],
    },
  },
  // Plain JavaScript (the embedder thread): no type information to lint with.
  { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no I/O, no service code at run time.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [...NODE_BUILTINS, 'knex', 'pg', 'openai', '@temporalio/client', '@temporalio/worker'].map((name) => ({
            name,
            message: 'not allowed in workflow code (determinism)',
          })),
          patterns: [
            { group: ['node:*'], message: 'Node built-ins are not allowed in workflow code' },
            { group: ['@grpc/*'], message: 'gRPC is not allowed in workflow code' },
            {
              group: ['../src/**', '**/src/**'],
              allowTypeImports: true,
              message: 'import only types from src/ in workflow code',
            },
          ],
        },
      ],
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  // The console runs in the browser (console/, bundled by src/transport/http/console-bundle.ts).
  { files: ['console/**/*.js'], languageOptions: { globals: globals.browser } },
);
