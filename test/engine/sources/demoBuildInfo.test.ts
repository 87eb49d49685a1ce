/**
 * The demo contracts' build-info the README's tour registers (scripts/demo-contracts/build-info.json,
 * written by scripts/compile-demo.ts) is the compilation of the devnet's demo bytecode: its
 * contracts match the committed creation code and the runtime code it deploys.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Hex, encodeAbiParameters, hexToBytes } from 'viem'
import { describe, expect, it } from 'vitest'
import { contractsOfBuildInfo } from '../../../engine/sources/buildInfo.js'
import { createSourceIndex } from '../../../engine/sources/sourceIndex.js'
import { inProcessChain } from './deploy.js'

const root = join(import.meta.dirname, '..', '..', '..')
const read = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'))

describe("the demo contracts' build-info", () => {
  it('matches the devnet demo contracts, creation and runtime', async () => {
    const index = createSourceIndex(contractsOfBuildInfo(read('scripts/demo-contracts/build-info.json')))
    const demo = read('engine/chains/devnet/demoContracts.json') as Record<string, { bytecode: Hex }>
    const chain = await inProcessChain()
    // the devnet deploys the token with its supply as the constructor's argument
    const args: Record<string, string> = { DemoToken: encodeAbiParameters([{ type: 'uint256' }], [10n ** 24n]).slice(2), DemoNFT: '' }
    for (const name of ['DemoToken', 'DemoNFT']) {
      const initCode = `${demo[name]!.bytecode}${args[name]}` as Hex
      expect(index.matchCreation(hexToBytes(initCode))?.name).toBe(name)
      const { code } = await chain.create(initCode)
      expect(index.matchRuntime(code)?.name).toBe(name)
    }
  })
})
