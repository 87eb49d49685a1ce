/**
 * Approval changes of a simulation, read from state before and after, on compiled contracts of
 * each kind on a fork of a real Anvil: every approval type set, raised, spent and revoked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatUnits, toHex, type Address } from 'viem'
import { requireAnvil } from '../../support/anvil.js'
import { A, B, C, MAX, startPreviewChain, type PreviewChain } from './previewChain.js'

let chain: PreviewChain
const call = (to: string, fn: string, args: unknown[], from: Address = A, name = '') => ({ from, to, name, fn, args })

describe.runIf(requireAnvil())('approval changes', () => {
  beforeAll(async () => {
    chain = await startPreviewChain()
  }, 120_000)
  afterAll(async () => chain?.close())

  it('ERC-20 with permit: set, raised, spent to its real remainder, revoked', async () => {
    const { at } = chain
    const set = await chain.simulate([call('permitToken', 'approve', [B, 100n * 10n ** 18n])])
    expect(set.approvalChanges).toEqual([
      {
        owner: A,
        type: 'erc20',
        token: at.permitToken,
        spender: B,
        before: '0x0',
        after: toHex(100n * 10n ** 18n),
        unlimited: false,
        name: 'Permit Token',
        symbol: 'PMT',
        decimals: 18,
        formatted: '100',
        callIndex: 0,
      },
    ])
    await chain.send(A, at.permitToken!, 'PermitToken', 'approve', [B, 100n * 10n ** 18n])
    const raised = await chain.simulate([call('permitToken', 'increaseAllowance', [B, 5n * 10n ** 17n])])
    expect(raised.approvalChanges!.map((c) => [c.before, c.after, c.formatted])).toEqual([[toHex(100n * 10n ** 18n), toHex(1005n * 10n ** 17n), '100.5']])
    // the spender pulls 40: no Approval event on transferFrom, yet the remainder is read
    const spent = await chain.simulate([call('permitToken', 'transferFrom', [A, C, 40n * 10n ** 18n], B)])
    expect(spent.approvalChanges!.map((c) => [c.owner, c.spender, c.after, c.formatted, c.callIndex])).toEqual([[A, B, toHex(60n * 10n ** 18n), '60', 0]])
    const revoked = await chain.simulate([call('permitToken', 'decreaseAllowance', [B, 100n * 10n ** 18n])])
    expect(revoked.approvalChanges!.map((c) => [c.after, c.unlimited])).toEqual([['0x0', false]])
    // approve then spend in one simulation: one entry, the state at the end, the last call that touched it
    await chain.send(A, at.permitToken!, 'PermitToken', 'approve', [B, 0n])
    const both = await chain.simulate([call('permitToken', 'approve', [B, 10n ** 18n]), call('permitToken', 'transferFrom', [A, C, 4n * 10n ** 17n], B)])
    expect(both.approvalChanges!.map((c) => [c.before, c.after, c.formatted, c.callIndex])).toEqual([['0x0', toHex(6n * 10n ** 17n), '0.6', 1]])
  })

  it('USDT-style token (no return values): unlimited set, spent, and a token without an event caught by its call', async () => {
    const { at } = chain
    const max = await chain.simulate([call('usdt', 'approve', [at.puller, MAX])])
    expect(max.approvalChanges!.map((c) => [c.type, c.spender, c.after, c.unlimited, c.symbol, c.decimals, c.name])).toEqual([
      ['erc20', at.puller, toHex(MAX), true, 'USDT', 6, 'Tether USD'],
    ])
    const pulled = await chain.simulate([call('usdt', 'approve', [at.puller, 5_000_000n]), call('puller', 'pull', [at.usdt, A, 2_000_000n], B)])
    expect(pulled.approvalChanges!.map((c) => [c.after, c.formatted, c.callIndex])).toEqual([[toHex(3_000_000n), '3', 1]])
    const silent = await chain.simulate([call('silent', 'approve', [B, 2n ** 255n])])
    expect(silent.calls[0]!.logs).toEqual([])
    expect(silent.approvalChanges!.map((c) => [c.type, c.spender, c.unlimited, c.formatted])).toEqual([['erc20', B, true, formatUnits(2n ** 255n, 8)]])
  })

  it('ERC-721: an approval set, moved, cleared by a transfer; an operator for all set and revoked', async () => {
    const { at } = chain
    const set = await chain.simulate([call('nft', 'approve', [B, 7n])])
    expect(set.approvalChanges).toEqual([
      {
        owner: A,
        type: 'erc721',
        token: at.nft,
        spender: B,
        tokenId: '0x7',
        before: '0x0',
        after: '0x1',
        unlimited: false,
        name: 'Test NFT',
        symbol: 'TNFT',
        callIndex: 0,
      },
    ])
    await chain.send(A, at.nft!, 'Nft', 'approve', [B, 7n])
    const moved = await chain.simulate([call('nft', 'approve', [C, 7n])])
    expect(moved.approvalChanges!.map((c) => [c.spender, c.before, c.after])).toEqual([
      [B, '0x1', '0x0'],
      [C, '0x0', '0x1'],
    ])
    // B spends its approval: the transfer clears it
    const spent = await chain.simulate([call('nft', 'transferFrom', [A, C, 7n], B)])
    expect(spent.approvalChanges!.map((c) => [c.owner, c.spender, c.tokenId, c.before, c.after])).toEqual([[A, B, '0x7', '0x1', '0x0']])
    const all = await chain.simulate([call('nft', 'setApprovalForAll', [B, true])])
    expect(all.approvalChanges!.map((c) => [c.type, c.spender, c.before, c.after, c.unlimited])).toEqual([['erc721-all', B, '0x0', '0x1', true]])
    await chain.send(A, at.nft!, 'Nft', 'setApprovalForAll', [B, true])
    const revoked = await chain.simulate([call('nft', 'setApprovalForAll', [B, false])])
    expect(revoked.approvalChanges!.map((c) => [c.type, c.after, c.unlimited])).toEqual([['erc721-all', '0x0', false]])
  })

  it('ERC-1155: an operator for all set, used and revoked', async () => {
    const set = await chain.simulate([call('multi', 'setApprovalForAll', [B, true])])
    expect(set.approvalChanges!.map((c) => [c.type, c.owner, c.spender, c.after, c.unlimited])).toEqual([['erc1155-all', A, B, '0x1', true]])
    const used = await chain.simulate([
      call('multi', 'setApprovalForAll', [B, true]),
      call('multi', 'safeTransferFrom', [A, C, 1n, 10n, '0x'], B),
      call('multi', 'setApprovalForAll', [B, false]),
    ])
    // granted and revoked within the run: nothing changed at the end
    expect(used.approvalChanges).toEqual([])
    expect(used.assetChanges!.filter((c) => c.type === 'erc1155').map((c) => [c.account, c.delta, c.formatted])).toEqual([
      [A, '-10', '-10'],
      [C, '10', '10'],
    ])
  })

  it('Permit2: the token approved to Permit2, an allowance set with its expiration, spent, locked down', async () => {
    const { at } = chain
    const expiration = 2_000_000_000
    await chain.send(A, at.permitToken!, 'PermitToken', 'approve', [at.permit2, MAX])
    const set = await chain.simulate([call('permit2', 'approve', [at.permitToken, at.puller, 50n * 10n ** 18n, expiration])])
    expect(set.approvalChanges).toEqual([
      {
        owner: A,
        type: 'permit2',
        token: at.permitToken,
        spender: at.puller,
        before: '0x0',
        after: toHex(50n * 10n ** 18n),
        unlimited: false,
        expiration: toHex(expiration),
        permit2: at.permit2,
        name: 'Permit Token',
        symbol: 'PMT',
        decimals: 18,
        formatted: '50',
        callIndex: 0,
      },
    ])
    const unlimited = await chain.simulate([call('permit2', 'approve', [at.permitToken, at.puller, 2n ** 160n - 1n, expiration])])
    expect(unlimited.approvalChanges!.map((c) => c.unlimited)).toEqual([true])
    await chain.send(A, at.permit2!, 'Permit2', 'approve', [at.permitToken, at.puller, 50n * 10n ** 18n, expiration])
    // Permit2 emits no event when an allowance is spent: the puller's call names it
    const spent = await chain.simulate([call('puller', 'pull2', [at.permit2, at.permitToken, A, 20n * 10n ** 18n], B)])
    expect(spent.approvalChanges!.map((c) => [c.type, c.after, c.formatted])).toEqual([['permit2', toHex(30n * 10n ** 18n), '30']])
    const locked = await chain.simulate([call('permit2', 'lockdown', [[{ token: at.permitToken, spender: at.puller }]])])
    expect(locked.approvalChanges!.map((c) => [c.type, c.after])).toEqual([['permit2', '0x0']])
  })

  it('asset changes and transfers carry name, symbol, decimals and formatted', async () => {
    const r = await chain.simulate([call('permitToken', 'transfer', [B, 15n * 10n ** 17n])], { traceTransfers: true })
    const mine = r.assetChanges!.find((c) => c.account === A && c.type === 'erc20')!
    expect([mine.name, mine.symbol, mine.decimals, mine.delta, mine.formatted]).toEqual(['Permit Token', 'PMT', 18, (-15n * 10n ** 17n).toString(), '-1.5'])
    expect(r.calls[0]!.transfers).toEqual([
      {
        type: 'erc20',
        token: chain.at.permitToken,
        from: A,
        to: B,
        amount: toHex(15n * 10n ** 17n),
        name: 'Permit Token',
        symbol: 'PMT',
        decimals: 18,
        formatted: '1.5',
      },
    ])
  })
})
