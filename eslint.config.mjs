// The linter of `npm test`: typescript-eslint's strict, type-aware preset (docs/architecture.md,
// "Lint and format" says why each option below is set).
import js from '@eslint/js';
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const TESTS = ['**/*.test.ts', '**/*.test.tsx', 'e2e/**/*.ts', 'server/test-support/**/*.ts', 'server/db/tests/**/*.ts', 'server/reliability/**/*.ts', 'bench/**/*.ts'];

export default tseslint.config(
  // renderer/public/: plain browser scripts (service worker, offline page) that Vite copies as they are.
  {
    ignores: [
      'dist/**',
      'renderer/public/**',
      'phone/public/**',
      'node_modules/**',
      'test-results/**',
      'playwright-report/**',
      'examples/**',
      '**/*.mjs',
      '**/*.cjs',
      '**/*.d.mts',
      'renderer/src/api/generated/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  comments.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A lint-disable comment says why on its own line: `// eslint-disable-next-line rule -- reason`.
      '@eslint-community/eslint-comments/require-description': ['error', { ignore: [] }],
      // Numbers and booleans read naturally in messages; objects and undefined still do not.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true, allowAny: false, allowNullish: false, allowRegExp: false, allowNever: false },
      ],
      // `onClick={() => setOpen(false)}` returns void on purpose; statements elsewhere still may not.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // The renderer's React code: the Rules of Hooks and complete effect dependencies (the React
    // Compiler rules of the plugin's preset are not enabled: the renderer is not compiled by it).
    files: ['renderer/src/**/*.ts', 'renderer/src/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    // Tests and benchmarks read JSON answers as untyped data and assert on their shape; the
    // assertions are the type check there.
    files: TESTS,
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true, allowAny: true, allowNullish: false, allowRegExp: false, allowNever: false },
      ],
    },
  },
);
