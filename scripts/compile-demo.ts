/**
 * Compiles the embedded devnet's demo contracts (scripts/demo-contracts/*.sol) with npm solc and
 * writes engine/chains/devnet/demoContracts.json, which is committed: the service starts without a
 * compiler. Re-run after editing a contract: `npx tsx scripts/compile-demo.ts`. Changing the
 * bytecode changes the devnet's demo transaction hashes (README quotes them).
 *
 * It also writes their build-info, scripts/demo-contracts/build-info.json: the same compilation as
 * a solc standard-JSON pair with everything tracing needs selected (ASTs, source maps), as
 * `forge build --build-info` or Hardhat would write it; the README's tour registers it
 * (`POST /v1/sources`).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compile } from '../test/support/solc.js'
import { compileStandard } from '../test/support/solcStandard.js'

const here = dirname(fileURLToPath(import.meta.url))
const files = ['DemoToken.sol', 'DemoNFT.sol']
const sources = Object.fromEntries(files.map((f) => [f, readFileSync(join(here, 'demo-contracts', f), 'utf8')]))
// paris: no PUSH0/MCOPY needed, so the bytecode runs on every fork an operator may select
const out = compile(sources, { evmVersion: 'paris', optimize: true })
const artifact = {
  compiler: 'solc (npm), optimizer 200 runs, evmVersion paris',
  DemoToken: { abi: out.DemoToken!.abi, bytecode: out.DemoToken!.bytecode },
  DemoNFT: { abi: out.DemoNFT!.abi, bytecode: out.DemoNFT!.bytecode },
}
const target = join(here, '..', 'engine', 'chains', 'devnet', 'demoContracts.json')
writeFileSync(target, `${JSON.stringify(artifact, null, 1)}\n`)
console.log(`wrote ${target}`)

// the same sources and settings, every output tracing needs: the same bytecode
const buildInfo = compileStandard(sources, { evmVersion: 'paris', optimizer: { enabled: true, runs: 200 } })
const buildInfoTarget = join(here, 'demo-contracts', 'build-info.json')
writeFileSync(buildInfoTarget, `${JSON.stringify(buildInfo)}\n`)
console.log(`wrote ${buildInfoTarget}`)
