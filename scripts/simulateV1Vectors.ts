/**
 * Runs execution-apis' eth_simulateV1 vectors (tests/eth_simulateV1/*.io, recorded by geth on the
 * hive test chain) through the JSON-RPC eth_simulateV1 handler, on the hive chain itself: the
 * embedded devnet booted from the checkout's tests/genesis.json with tests/chain.rlp imported
 * (every block checked against its own state root; head 54). Each answer is compared with geth's
 * field for field, nothing masked (the devnet holds the whole state, so simulated blocks get
 * geth's state roots and hashes); an error is compared by code and message.
 *
 * Usage: npx tsx scripts/simulateV1Vectors.ts <execution-apis checkout> [name filter] [--verbose]
 * (the checkout: `git clone https://github.com/ethereum/execution-apis`; a tree with only its
 * tests/ folder will do)
 */
import { vectorsIn, runVector } from '../test/support/simulateV1Vectors.js'

const [root, filter] = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const verbose = process.argv.includes('--verbose')
if (!root) throw new Error('usage: simulateV1Vectors.ts <execution-apis checkout> [name filter] [--verbose]')

const { engine, vectors } = await vectorsIn(root)
let pass = 0
const failed: string[] = []
for (const vector of vectors.filter((v) => !filter || v.name.includes(filter))) {
  const diff = await runVector(engine, vector, { width: verbose ? 4000 : 160 })
  if (diff.length === 0) pass++
  else {
    failed.push(vector.name)
    console.log(`FAIL ${vector.name}`)
    for (const d of diff.slice(0, verbose ? 50 : 4)) console.log(`  ${d}`)
  }
}
console.log(`\n${pass}/${pass + failed.length} vectors pass`)
await engine.close()
