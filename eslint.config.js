import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tollgate/**', 'eslint.config.js', 'jest.config.js', 'jest.unit.config.js'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  // The inbox page is plain browser JavaScript, outside the TypeScript project.
  {
    files: ['inbox/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { parserOptions: { projectService: false } },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, providers or clients.
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'Workflow code must stay free of Node built-ins.' },
            { group: ['ai', '@ai-sdk/*'], message: 'Model calls belong in activities.' },
            { group: ['@temporalio/client', '@temporalio/worker', '@temporalio/activity'], message: 'Workflows import @temporalio/workflow only.' },
            { group: ['zod'], message: 'Schemas are validated on the worker, not in the workflow.' },
            { group: ['**/activities/*', '**/temporal-client/*', '**/http-client/*', '**/stream/*', '**/demo-agent/*', '**/definitions/*', '**/devserver/*'], message: 'Import activities with `import type` only.', allowTypeImports: true },
          ],
        },
      ],
    },
  },
);
