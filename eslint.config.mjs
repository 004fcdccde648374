// ESLint: typescript-eslint's type-checked recommendations plus the house rules below; formatting is
// Prettier's (eslint-config-prettier turns off the rules it owns). Run by `npm run lint` and .ci/run.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // The client's schema.ts is openapi-typescript's output (npm run generate:client), checked for drift instead.
  { ignores: ['dist/**', '**/dist/**', 'node_modules/**', 'coverage/**', '**/*.js', '**/*.cjs', '**/*.mjs', 'clients/typescript/src/schema.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Ports are async; an in-memory or in-process adapter implements them without awaiting anything.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests read HTTP answers and fixtures as untyped JSON (supertest's `res.body` is `any`) and check their
    // shape with expect(); the type-safety rules would only demand casts that prove nothing more.
    files: ['test/**/*.ts', '**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // jest.fn() mocks are passed around unbound on purpose.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  prettier,
);
