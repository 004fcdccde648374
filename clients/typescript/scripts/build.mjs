#!/usr/bin/env node
/**
 * The package's build (`npm run build` in clients/typescript): ES modules in dist/esm/ and CommonJS in dist/cjs/,
 * each with its declarations and a package.json naming its module type, so `exports` can answer `import` and
 * `require` with files Node loads as they are.
 *
 * TypeScript is found by Node's module resolution from this file, not on PATH: inside the repository that is the
 * root's node_modules (after the root `npm install`; no install in this folder needed), in a copy of the package on
 * its own, its devDependency. `--typecheck` compiles src/ and type-tests/ without writing anything (`npm run
 * typecheck`): type-tests/ holds the calls that must not compile, each marked `// @ts-expect-error`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Reads tsconfig.build.json (or another config of this folder) with `overrides` on top. */
function configOf(file, overrides = {}) {
  const path = join(packageDir, file);
  const { config, error } = ts.readConfigFile(path, ts.sys.readFile);
  if (error) fail([error]);
  const existing = ts.convertCompilerOptionsFromJson(overrides, packageDir);
  if (existing.errors.length > 0) fail(existing.errors);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, packageDir, existing.options, path);
  if (parsed.errors.length > 0) fail(parsed.errors);
  return parsed;
}

function fail(diagnostics) {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => packageDir, getNewLine: () => '\n' };
  process.stderr.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
  process.exit(1);
}

/**
 * Node resolves an ES module's relative imports as written: `./client` must be `./client.js` there. The sources keep
 * extensionless imports (the repository's CommonJS typecheck and jest read them), so the ESM build adds `.js` to
 * every relative specifier of its output, in the code and in the declarations.
 */
function withJsExtensions(context) {
  const { factory } = context;
  const rewrite = (specifier) =>
    ts.isStringLiteral(specifier) && specifier.text.startsWith('.') && !/\.[cm]?js$/.test(specifier.text)
      ? factory.createStringLiteral(`${specifier.text}.js`)
      : specifier;
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && node.moduleSpecifier) {
      return factory.updateImportDeclaration(node, node.modifiers, node.importClause, rewrite(node.moduleSpecifier), node.attributes);
    }
    if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      return factory.updateExportDeclaration(node, node.modifiers, node.isTypeOnly, node.exportClause, rewrite(node.moduleSpecifier), node.attributes);
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = rewrite(node.argument.literal);
      const argument = factory.updateLiteralTypeNode(node.argument, literal);
      return factory.updateImportTypeNode(node, argument, node.attributes, node.qualifier, node.typeArguments, node.isTypeOf);
    }
    return ts.visitEachChild(node, visit, context);
  };
  return (file) => ts.visitNode(file, visit);
}

function compile(parsed, transformers) {
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, projectReferences: parsed.projectReferences });
  const diagnostics = [...ts.getPreEmitDiagnostics(program)];
  if (diagnostics.length > 0) fail(diagnostics);
  if (parsed.options.noEmit) return;
  const emitted = program.emit(undefined, undefined, undefined, false, transformers);
  if (emitted.diagnostics.length > 0) fail(emitted.diagnostics);
}

if (process.argv.includes('--typecheck')) {
  compile(configOf('tsconfig.json'));
  process.stderr.write('Type-checked src/ and type-tests/.\n');
  process.exit(0);
}

rmSync(join(packageDir, 'dist'), { recursive: true, force: true });
const builds = [
  { dir: 'cjs', type: 'commonjs', options: { module: 'commonjs', moduleResolution: 'node10' } },
  {
    dir: 'esm',
    type: 'module',
    options: { module: 'es2022', moduleResolution: 'bundler' },
    transformers: { after: [withJsExtensions], afterDeclarations: [withJsExtensions] },
  },
];
for (const { dir, type, options, transformers } of builds) {
  const outDir = join(packageDir, 'dist', dir);
  compile(configOf('tsconfig.build.json', { ...options, outDir }), transformers);
  mkdirSync(outDir, { recursive: true });
  // The folder's own module type: Node reads .js files by the nearest package.json.
  writeFileSync(join(outDir, 'package.json'), `${JSON.stringify({ type }, null, 2)}\n`);
}
process.stderr.write('Built dist/esm (ES modules) and dist/cjs (CommonJS), with declarations.\n');
