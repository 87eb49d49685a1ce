/**
 * The warnings decided by comparing state before and after a run, on real overlays of a memory
 * state: an EIP-7702 delegation designator written to an account, and the EIP-1967 and ERC-7201
 * slots (written to another value, or to the same one).
 */
import { describe, expect, it } from 'vitest'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import type { Address } from 'viem'
import { MemoryStateSource, OverlayStateManager } from '../../../engine/state/index.js'
import { warningsOf } from '../../../engine/wallet/preview.js'
import { WATCHED_SLOTS } from '../../../engine/wallet/warnings.js'

const EOA: Address = '0x1000000000000000000000000000000000000001'
const PROXY: Address = '0x2000000000000000000000000000000000000002'
const DELEGATE = '0x3000000000000000000000000000000000000003'
const word = (a: string) => hexToBytes(`0x${a.slice(2).padStart(64, '0')}`)

async function run(write: (state: OverlayStateManager) => Promise<void>) {
  const source = MemoryStateSource.fromAlloc({
    [EOA]: { balance: 1n },
    [PROXY]: { code: '0x00', storage: { [WATCHED_SLOTS.implementation]: '0x01', [WATCHED_SLOTS.admin]: '0x02' } },
  })
  const before = new OverlayStateManager(source)
  const after = before.shallowCopy()
  await write(after)
  const reader = { nativeBalance: async () => 0n, call: async () => undefined }
  const tokens = async () => ({})
  const input = {
    facts: [undefined],
    statuses: ['success' as const],
    transfers: [],
    assetChanges: [],
    senders: [EOA],
    before,
    after,
    readBefore: reader,
    readAfter: reader,
    tokens,
  }
  return (await warningsOf(input, [])).map((w) => [w.code, w.account])
}

describe('warnings from the state a run left', () => {
  it('EIP7702_DELEGATION: an account whose code becomes 0xef0100 ‖ address', async () => {
    expect(await run((s) => s.putCode(createAddressFromString(EOA), hexToBytes(`0xef0100${DELEGATE.slice(2)}`)))).toEqual([['EIP7702_DELEGATION', EOA]])
    // other code written there is no delegation
    expect(await run((s) => s.putCode(createAddressFromString(EOA), hexToBytes('0x6001')))).toEqual([])
  })

  it('PROXY_UPGRADED and ADMIN_CHANGED from the EIP-1967 slots, only when the value changes', async () => {
    const proxy = createAddressFromString(PROXY)
    expect(await run((s) => s.putStorage(proxy, word(WATCHED_SLOTS.implementation), word('0x05')))).toEqual([['PROXY_UPGRADED', PROXY]])
    expect(await run((s) => s.putStorage(proxy, word(WATCHED_SLOTS.admin), word('0x06')))).toEqual([['ADMIN_CHANGED', PROXY]])
    expect(await run((s) => s.putStorage(proxy, word(WATCHED_SLOTS.beacon), word('0x07')))).toEqual([['PROXY_UPGRADED', PROXY]])
    expect(await run((s) => s.putStorage(proxy, word(WATCHED_SLOTS.implementation), word('0x01')))).toEqual([])
  })
})
