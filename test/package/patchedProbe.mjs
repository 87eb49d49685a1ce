// Run inside an install of the package: which @ethereumjs/evm its engine resolves, whether that
// copy and its @ethereumjs/vm carry the repository's patches (patches/), and whether the
// interpreter bundled into the node's start (dist/bundle/nodeStart.js, what `evm-sim node` runs)
// is the patched one with the engine's hooks on it. Prints JSON.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

const pkgDir = process.argv[2]
// resolved from the engine's own file, as engine/execution/evmTables.ts resolves it
const fromEngine = createRequire(join(pkgDir, 'dist', 'engine', 'execution', 'evmTables.js'))
const evmPath = fromEngine.resolve('@ethereumjs/evm')
const load = (name) => import(pathToFileURL(fromEngine.resolve(name)).href.replace('/dist/cjs/', '/dist/esm/'))
const { Interpreter } = await import(pathToFileURL(join(dirname(evmPath), '..', 'esm', 'interpreter.js')).href)
const { Common, Hardfork, Mainnet } = await load('@ethereumjs/common')
const { createLegacyTx } = await load('@ethereumjs/tx')
const { createAddressFromString, hexToBytes } = await load('@ethereumjs/util')
const { createVM, runTx } = await load('@ethereumjs/vm')

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
const vm = await createVM({ common })
const emitter = createAddressFromString('0x00000000000000000000000000000000000c0de5')
// PUSH1 0x2a PUSH1 0 PUSH1 0 LOG1 STOP
await vm.stateManager.putCode(emitter, hexToBytes('0x602a60006000a100'))
const key = hexToBytes('0x4646464646464646464646464646464646464646464646464646464646464646')
const tx = createLegacyTx({ to: emitter, gasLimit: 100000n, gasPrice: 10n }, { common }).sign(key)
const res = await runTx(vm, { tx, skipBalance: true, skipHardForkValidation: true, skipLogsBloom: true })
const bundle = await import(pathToFileURL(join(pkgDir, 'dist', 'bundle', 'nodeStart.js')).href)
process.stdout.write(
  JSON.stringify({
    evmPath,
    bundled: bundle.interpreterHooks(),
    runStepIsAsync: Interpreter.prototype.runStep.constructor.name === 'AsyncFunction',
    bloomSkipped: res.bloom === undefined && res.execResult.logs.length === 1,
  }),
)
