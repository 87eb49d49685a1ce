/**
 * A handful of execution-apis' eth_simulateV1 vectors, recorded by geth on the hive test chain, run
 * on that chain itself (the devnet booted from the checkout's tests/genesis.json with
 * tests/chain.rlp imported) and compared field for field, nothing masked: state roots and block
 * hashes included. All 91: `npx tsx scripts/simulateV1Vectors.ts <checkout>`.
 *
 * The twelve vectors and the chain are copied in test/fixtures/execution-apis/ (CC0, unchanged):
 * they run on every test run. EXECUTION_APIS_DIR may name a whole checkout instead (the same
 * twelve are picked from it). The machinery under it (import from a genesis and blocks, real state
 * roots) is also tested on a chain of its own in test/engine/chains/devnet/importedDevnet.test.ts.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Engine } from '../../../../engine/types.js'
import { runVector, vectorsIn, type Vector } from '../../../support/simulateV1Vectors.js'

const dir = process.env.EXECUTION_APIS_DIR ?? fileURLToPath(new URL('../../../fixtures/execution-apis', import.meta.url))

/** chosen for what the hive chain itself decides: its history, its forks, its roots and hashes */
const CHOSEN = [
  'ethSimulate-simple.io', // hashes, roots and receipts of a plain transfer block on the head
  'ethSimulate-blockhash-start-before-head.io', // BLOCKHASH of the chain's own blocks, simulated on an older base
  'ethSimulate-empty-with-block-num-set-firstblock.io', // on block 1: proof of work, Homestead rules, the ethash reward
  'ethSimulate-get-block-properties.io', // the block environment the EVM sees
  'ethSimulate-extcodehash-existing-contract.io', // a contract of the chain's own state
  'ethSimulate-use-as-many-features-as-possible.io',
  'ethSimulate-move-ecrecover-and-call.io',
  'ethSimulate-eth-send-should-produce-more-logs-on-forward.io', // traceTransfers
  'ethSimulate-blobs.io',
  'ethSimulate-overflow-nonce.io',
  'ethSimulate-overflow-nonce-validation.io',
  'ethSimulate-make-call-with-future-block.io', // header not found
]

describe('execution-apis eth_simulateV1 vectors on the hive chain', () => {
  let engine: Engine
  let vectors: Vector[]
  beforeAll(async () => {
    ;({ engine, vectors } = await vectorsIn(dir))
  })
  afterAll(() => engine?.close())

  it.each(CHOSEN)('%s answers as geth, field for field', async (name) => {
    const vector = vectors.find((v) => v.name === name)
    expect(vector, `${name} in ${dir}`).toBeDefined()
    expect(await runVector(engine, vector!)).toEqual([])
  })
})
