/**
 * Writes engine/chains/devnet/opPredeploys.json (committed) from the forge artifacts of npm
 * `@eth-optimism/contracts-bedrock` (MIT): the deployed code of the L1Block and GasPriceOracle
 * predeploys, which the embedded devnet installs at genesis when it runs as an OP-stack chain.
 * Neither contract has immutables, so the deployed code is used as published.
 *
 * Run with the package's tarball unpacked somewhere (`npm pack @eth-optimism/contracts-bedrock`,
 * `tar xzf` it): `npx tsx scripts/vendor-op-predeploys.ts <path to the unpacked package/>`.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const pkg = process.argv[2]
if (!pkg) throw new Error('usage: vendor-op-predeploys.ts <unpacked @eth-optimism/contracts-bedrock package dir>')
const version = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string }).version
const code = (name: string) =>
  (JSON.parse(readFileSync(join(pkg, 'forge-artifacts', `${name}.sol`, `${name}.json`), 'utf8')) as { deployedBytecode: { object: string } }).deployedBytecode
    .object
const out = {
  source: `npm @eth-optimism/contracts-bedrock ${version} (MIT), forge-artifacts/*.json deployedBytecode`,
  L1Block: { address: '0x4200000000000000000000000000000000000015', deployedBytecode: code('L1Block') },
  GasPriceOracle: { address: '0x420000000000000000000000000000000000000f', deployedBytecode: code('GasPriceOracle') },
}
const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'engine', 'devnet', 'opPredeploys.json')
writeFileSync(target, `${JSON.stringify(out, null, 2)}\n`)
console.log(`wrote ${target}`)
