/**
 * Every warning code of a simulation raised by a run that should raise it, and not by one that
 * should not, on compiled contracts on a fork of a real Anvil.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { requireAnvil } from '../../support/anvil.js'
import { decideWarnings } from '../../../engine/wallet/warnings.js'
import { A, B, C, MAX, startPreviewChain, type PreviewChain } from './previewChain.js'

let chain: PreviewChain
const call = (to: string, fn: string, args: unknown[], from: Address = A, name = '') => ({ from, to, name, fn, args })
type Call = ReturnType<typeof call>
const codesOf = async (calls: Call[], account?: Address) => {
  const r = await chain.simulate(calls, account ? { account } : {})
  return r.warnings!.map((w) => w.code).sort()
}

describe.runIf(requireAnvil())('warnings', () => {
  beforeAll(async () => {
    chain = await startPreviewChain()
  }, 120_000)
  afterAll(async () => chain?.close())

  it('UNLIMITED_APPROVAL and APPROVAL_TO_EOA: raised for an unlimited approval to an account without code', async () => {
    const r = await chain.simulate([call('permitToken', 'approve', [B, MAX])])
    expect(r.warnings).toEqual([
      {
        code: 'UNLIMITED_APPROVAL',
        severity: 'warning',
        message: expect.stringContaining('PMT'),
        callIndex: 0,
        account: A,
        token: chain.at.permitToken,
        spender: B,
      },
      {
        code: 'APPROVAL_TO_EOA',
        severity: 'danger',
        message: expect.stringContaining('without code'),
        callIndex: 0,
        account: A,
        token: chain.at.permitToken,
        spender: B,
      },
    ])
    // a bounded approval to a contract: neither
    expect(await codesOf([call('permitToken', 'approve', [chain.at.puller, 10n ** 18n])])).toEqual([])
    // unlimited to a contract: only UNLIMITED_APPROVAL; an unlimited approval revoked: nothing
    expect(await codesOf([call('usdt', 'approve', [chain.at.puller, MAX])])).toEqual(['UNLIMITED_APPROVAL'])
    expect(await codesOf([call('permitToken', 'approve', [B, MAX]), call('permitToken', 'approve', [B, 0n])])).toEqual([])
  })

  it('APPROVAL_FOR_ALL: granting an operator, not revoking one', async () => {
    expect(await codesOf([call('nft', 'setApprovalForAll', [chain.at.puller, true])])).toEqual(['APPROVAL_FOR_ALL'])
    expect(await codesOf([call('multi', 'setApprovalForAll', [B, true])])).toEqual(['APPROVAL_FOR_ALL', 'APPROVAL_TO_EOA'])
    expect(await codesOf([call('nft', 'setApprovalForAll', [chain.at.puller, false])])).toEqual([])
  })

  it('PERMIT2_APPROVAL: an allowance inside Permit2, not an ERC-20 approval of Permit2 itself', async () => {
    const { at } = chain
    expect(await codesOf([call('permit2', 'approve', [at.permitToken, at.puller, 10n ** 18n, 2_000_000_000])])).toEqual(['PERMIT2_APPROVAL'])
    expect(await codesOf([call('permit2', 'approve', [at.permitToken, at.puller, 2n ** 160n - 1n, 2_000_000_000])])).toEqual([
      'PERMIT2_APPROVAL',
      'UNLIMITED_APPROVAL',
    ])
    expect(await codesOf([call('usdt', 'approve', [at.permit2, 10n ** 6n])])).toEqual([])
  })

  it("OWNERSHIP_TRANSFERRED: Ownable's event or a write of the ERC-7201 owner slot, not a write of the same owner", async () => {
    expect(await codesOf([call('owned', 'transferOwnership', [C])])).toEqual(['OWNERSHIP_TRANSFERRED'])
    const slot = await chain.simulate([call('owned', 'setNamespacedOwner', [C])])
    expect(slot.warnings).toEqual([
      { code: 'OWNERSHIP_TRANSFERRED', severity: 'warning', message: expect.stringContaining('ERC-7201'), callIndex: 0, account: chain.at.owned },
    ])
    expect(await codesOf([call('owned', 'poke', [])])).toEqual([])
  })

  it('PROXY_UPGRADED and ADMIN_CHANGED: by event or by a write of the EIP-1967 slot; not a call through the proxy', async () => {
    const { at } = chain
    expect(await codesOf([call('proxy', 'upgradeTo', [at.counter2])])).toEqual(['PROXY_UPGRADED'])
    expect(await codesOf([call('proxy', 'upgradeSilently', [at.counter2])])).toEqual(['PROXY_UPGRADED'])
    expect(await codesOf([call('proxy', 'changeAdmin', [C])])).toEqual(['ADMIN_CHANGED'])
    expect(await codesOf([call('proxy', 'changeAdminSilently', [C])])).toEqual(['ADMIN_CHANGED'])
    expect(await codesOf([call('proxy', 'bump', [], A, 'Counter')])).toEqual([])
  })

  it('CONTRACT_CREATED, SELFDESTRUCT and REVERTED only where the run does them', async () => {
    const made = await chain.simulate([call('factory', 'make', [])])
    expect(made.warnings!.map((w) => [w.code, w.severity, w.callIndex])).toEqual([['CONTRACT_CREATED', 'info', 0]])
    expect(await codesOf([call('bomb', 'boom', [C])])).toEqual(['SELFDESTRUCT'])
    const failed = await chain.simulate([call('counter', 'bump', []), call('permitToken', 'transferFrom', [A, C, 10n ** 30n], B)])
    expect(failed.warnings!.map((w) => [w.code, w.severity, w.callIndex])).toEqual([['REVERTED', 'warning', 1]])
    expect(await codesOf([call('counter', 'bump', [])])).toEqual([])
  })

  it('ASSETS_OUT_NOTHING_IN: a sender who only gives; not one who receives in return', async () => {
    const r = await chain.simulate([call('permitToken', 'transfer', [B, 10n ** 18n])])
    expect(r.warnings).toEqual([{ code: 'ASSETS_OUT_NOTHING_IN', severity: 'warning', message: expect.any(String), callIndex: 0, account: A }])
    // the spender who pulls gains: no warning for it (the account previewed)
    await chain.send(A, chain.at.usdt!, 'TetherToken', 'approve', [chain.at.puller, MAX]).catch(() => undefined)
    expect(await codesOf([call('puller', 'pull', [chain.at.usdt, A, 10n], B)], B)).toEqual([])
    // the owner it is pulled from loses and gets nothing
    expect(await codesOf([call('puller', 'pull', [chain.at.usdt, A, 10n], B)], A)).toEqual(['ASSETS_OUT_NOTHING_IN'])
  })

  it('results identical cold and warm', async () => {
    const calls = [
      call('permitToken', 'approve', [B, MAX]),
      call('permitToken', 'transferFrom', [A, C, 10n ** 18n], B),
      call('nft', 'setApprovalForAll', [B, true]),
    ]
    const strip = (r: Awaited<ReturnType<PreviewChain['simulate']>>) => ({ ...r, simulationId: undefined })
    await chain.anvil.rpc('evm_mine')
    const cold = await chain.simulate(calls)
    const warm = await chain.simulate(calls)
    expect(strip(warm)).toEqual(strip(cold))
    expect(cold.approvalChanges!.length).toBe(2)
    expect(cold.warnings!.map((w) => w.code).sort()).toEqual([
      'APPROVAL_FOR_ALL',
      'APPROVAL_TO_EOA',
      'APPROVAL_TO_EOA',
      'ASSETS_OUT_NOTHING_IN',
      'UNLIMITED_APPROVAL',
    ])
  })
})

describe('EIP7702_DELEGATION', () => {
  const base = {
    statuses: ['success' as const],
    facts: [],
    approvals: [],
    assetChanges: [],
    transfers: [],
    accounts: [],
    slotChanges: [],
    codeAt: async () => '0x' as const,
  }
  it('raised for an account whose code became a delegation, not otherwise', async () => {
    const delegate = '0x000000000000000000000000000000000000beef'
    const w = await decideWarnings({ ...base, delegations: [{ account: A, delegate }] })
    expect(w).toEqual([{ code: 'EIP7702_DELEGATION', severity: 'danger', message: expect.stringContaining(delegate), callIndex: 0, account: A }])
    expect(await decideWarnings({ ...base, delegations: [] })).toEqual([])
  })
})
