/**
 * The development node's start as one file: `evm-sim node` loads the engine, the app and their
 * dependencies through dist/bundle/nodeStart.js when it is there (src/cli/node.ts), where Node 20
 * would otherwise resolve, read and link several hundred modules one by one — most of the node's
 * start. Run by scripts/build.mjs over the compiled output, so dist/ holds both.
 *
 * - Node's own modules and packages with native parts or files read at run time stay outside,
 *   resolved from the package's node_modules as in the unbundled build.
 * - ethereumjs' Interpreter, which the engine's hooks patch, is imported by the bundle statically
 *   (engine/execution/interpreterModule.ts says why), so the bundle holds one copy of it, the one
 *   its EVM runs.
 *
 * @example
 * await bundleNodeStart('/repo/.dist-tmp-1234', '/repo')
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/** packages with a native addon or data files read beside their code */
const OUTSIDE = ['secp256k1', 'tiny-secp256k1', 'sevm', 'swagger-ui-dist', 'thread-stream', 'pino-pretty']

export async function bundleNodeStart(dist, root) {
  const require = createRequire(join(root, 'package.json'))
  const esbuild = await import(require.resolve('esbuild'))
  const interpreter = join(dirname(require.resolve('@ethereumjs/evm')), '..', 'esm', 'interpreter.js')
  const interpreterModule = {
    name: 'interpreter-module',
    setup(build) {
      build.onLoad({ filter: /engine[\\/]execution[\\/]interpreterModule\.js$/ }, () => ({
        contents: `import { Interpreter } from ${JSON.stringify(interpreter)}\nexport async function interpreterPrototype() { return Interpreter.prototype }\n`,
        loader: 'js',
        resolveDir: root,
      }))
    },
  }
  const outfile = join(dist, 'bundle/nodeStart.js')
  await esbuild.build({
    entryPoints: [join(dist, 'src/cli/nodeStart.js')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: OUTSIDE,
    plugins: [interpreterModule],
    // a CommonJS dependency's require() of Node's modules, inside an ES module
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    logLevel: 'warning',
    legalComments: 'none',
    // no comments, and names kept (error messages and logs print them)
    minifyWhitespace: true,
    minifySyntax: true,
    charset: 'ascii',
  })
  writeFileSync(outfile, asciiOnly(readFileSync(outfile, 'utf8')))
}

/**
 * The bundle with every character past ASCII written as its `\u` escape. esbuild escapes them in
 * strings and templates but not in a regular expression literal, where the escape means the same
 * character; one such character left makes V8 hold and scan the whole 5 MB source as two-byte
 * text, and the loader decode it the slow way.
 */
function asciiOnly(code) {
  return code.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
