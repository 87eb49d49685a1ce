/**
 * Max call depth: ethereumjs starts no message for the 1025th nested call, geth still shows that
 * frame (`max call depth exceeded`, gasUsed 0). Before EIP-150 a contract can recurse that deep
 * with a modest gas limit, so the run is on an in-memory Homestead chain.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import type { Address, Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { executeCall } from '../../../engine/execution/executeTransaction.js'
import { MemoryStateSource, OverlayStateManager } from '../../../engine/state/index.js'
import { createCallTracer, type CallFrameJson } from '../../../tracers/callTracer.js'

const SENDER = '0x1000000000000000000000000000000000000001' as Address
const RECURSE = '0x2000000000000000000000000000000000000002' as Address
// CALL(gas - 0x200, ADDRESS, 0, 0, 0, 0, 0); STOP — calls itself until the depth limit stops it
const CODE = '0x60006000600060006000305a6102009003f100' as Hex

describe('max call depth', () => {
  it('shows the call that hit the depth limit as a failed frame at depth 1025', async () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Homestead })
    const state = new OverlayStateManager(MemoryStateSource.fromAlloc({ [SENDER]: { balance: 10n ** 18n }, [RECURSE]: { code: CODE } }))
    const block = {
      number: 1_200_000n,
      timestamp: 1_460_000_000n,
      gasLimit: 10_000_000n,
      coinbase: SENDER,
      difficulty: 1n,
      prevRandao: `0x${'0'.repeat(64)}` as Hex,
    }
    const tracer = createCallTracer()
    const r = await executeCall({ common, state, block }, { from: SENDER, to: RECURSE, data: '0x', gas: 3_000_000n }, { tracers: [tracer] })
    expect(r.status).toBe('success')
    let frame: CallFrameJson = tracer.result()
    let depth = 0
    while (frame.calls?.length) {
      expect(frame.calls).toHaveLength(1)
      frame = frame.calls[0]!
      depth++
    }
    expect(depth).toBe(1025)
    expect(frame).toMatchObject({ from: RECURSE, to: RECURSE, gasUsed: '0x0', error: 'max call depth exceeded', type: 'CALL', value: '0x0' })
  })
})
