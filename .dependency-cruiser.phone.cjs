/**
 * The phone app's layer check (`npm run lint:layers`): the phone (phone/) shares the server's
 * rules — collection schemas, the record factory, the balance and sync checks, money — by importing
 * them, so nothing it reaches, directly or through them, may need Node. Only what runs counts:
 * type-only imports are erased from the bundle (hence no pre-compilation dependencies here). The
 * phone's Vite build refuses a Node module too (vite.phone.config.ts).
 */
const { builtinModules } = require('node:module');

const NODE_BUILTIN = `^(node:)?(${builtinModules
  .filter((m) => !m.startsWith('_'))
  .map((m) => m.replace(/\//g, '\\/'))
  .join('|')})$`;

module.exports = {
  forbidden: [
    {
      name: 'phone-runs-in-a-browser',
      comment: 'Nothing the phone app runs may import a Node module, however deep in the server modules it shares.',
      severity: 'error',
      from: { path: '^phone/' },
      to: { path: NODE_BUILTIN, reachable: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^(dist|test-results)/)|(^|/)node_modules/' },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'browser', 'default'], extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
  },
};
