/**
 * Compiles Uniswap's Permit2 from its published source (scripts/demo-contracts/permit2: Permit2 at
 * github.com/Uniswap/permit2 and the two solmate files it imports, MIT) with npm solc, via IR as
 * Uniswap builds it, and writes engine/chains/devnet/permit2.json, which is committed: the embedded
 * devnet holds Permit2 at its canonical address from genesis, so wallet previews of Permit2
 * signatures work on it. Re-run after editing: `npx tsx scripts/compile-permit2.ts` (~20 s).
 *
 * Its `pragma solidity 0.8.17` is widened to the installed compiler. The deployed code's
 * immutables (the chain id and domain separator cached at construction) are left zero: Permit2's
 * EIP712 then computes its domain separator for the chain it runs on, as on any chain it was not
 * deployed for.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compile } from '../test/support/solc.js'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, 'demo-contracts', 'permit2')
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : f.endsWith('.sol') ? [join(dir, f)] : []))
const sources = Object.fromEntries(
  files(root).map((f) => [relative(root, f), readFileSync(f, 'utf8').replace('pragma solidity 0.8.17;', 'pragma solidity ^0.8.17;')]),
)
// paris: no PUSH0/MCOPY, so the code runs on every fork an operator may select
const out = compile(sources, { evmVersion: 'paris', optimize: true, viaIR: true }).Permit2!
const artifact = {
  compiler: 'solc (npm), via IR, optimizer 200 runs, evmVersion paris',
  address: '0x000000000022d473030f116ddee9f6b43ac78ba3',
  abi: out.abi,
  bytecode: out.bytecode,
  deployedBytecode: out.deployedBytecode,
}
const target = join(here, '..', 'engine', 'devnet', 'permit2.json')
writeFileSync(target, `${JSON.stringify(artifact)}\n`)
console.log(`wrote ${target}`)
