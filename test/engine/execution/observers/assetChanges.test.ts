/**
 * Asset changes against a real chain: each scenario is a real transaction mined by Anvil, and
 * computeAssetChanges reads balances at the block before and the block of that transaction —
 * exactly what the simulation does with its pre- and post-simulation state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseEther, toHex, type Address } from 'viem'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../../support/anvil.js'
import { contracts } from '../../decoding/contracts.js'
import { chain, type Sent } from '../../decoding/anvilChain.js'
import { computeAssetChanges } from '../../../../engine/execution/observers/assetChanges.js'
import { createTokenInfoReader } from '../../../../engine/decoding/tokenInfo.js'
import { decodeLogs } from '../../../../engine/decoding/decodeLogs.js'
import { isEngineError } from '../../../../engine/platform/errors.js'

const [A, B, C] = DEV_ACCOUNTS as unknown as Address[]

let anvil: AnvilInstance | undefined
let c: ReturnType<typeof chain>
const addr: Record<string, Address> = {}
const z = contracts()

beforeAll(async () => {
  if (!requireAnvil()) return
  anvil = await startAnvil()
  c = chain(anvil)
  addr.token = await c.deploy(A!, z.Token!, ['DEMO', 18, parseEther('1000000')])
  addr.fee = await c.deploy(A!, z.FeeToken!, [parseEther('1000000')])
  addr.bare = await c.deploy(A!, z.NoMetaToken!, [1_000_000n])
  addr.nft = await c.deploy(A!, z.Nft!)
  addr.multi = await c.deploy(A!, z.Multi!)
  addr.weth = await c.deploy(A!, z.Weth!)
  addr.fwd = await c.deploy(A!, z.Forwarder!)
  addr.rejecter = await c.deploy(A!, z.Rejecter!)
  await c.call(A!, addr.nft, z.Nft!.abi, 'mint', [A, 7n])
  await c.call(A!, addr.multi, z.Multi!.abi, 'mint', [A, 1n, 100n])
  await c.call(A!, addr.multi, z.Multi!.abi, 'mint', [A, 2n, 50n])
})
afterAll(async () => anvil?.stop())

/** asset changes of a mined transaction, candidates from its replayed transfers and its logs */
async function changesOf(sent: Sent, account?: Address, accounts?: Address[]) {
  const { transfers } = await c.transfersOf(sent.transactionHash)
  return computeAssetChanges({
    account,
    accounts,
    transfers,
    logs: sent.logs,
    readBefore: c.readerAt(sent.before),
    readAfter: c.readerAt(sent.after),
    tokens: createTokenInfoReader(c.readCallAt(sent.after)),
    nativeSymbol: 'ETH',
  })
}

const nativeOf = (account: Address, before: bigint, after: bigint) => ({
  account,
  type: 'native',
  token: null,
  symbol: 'ETH',
  decimals: 18,
  before: toHex(before),
  after: toHex(after),
  delta: (after - before).toString(),
})

async function balance(account: Address, block: bigint) {
  return BigInt(await anvil!.rpc<string>('eth_getBalance', [account, toHex(block)]))
}

describe('computeAssetChanges on a real chain', () => {
  it('has a real Anvil', () => {
    expect(anvil, 'Anvil missing').toBeDefined()
  })

  it('reports a standard ERC-20 transfer and the sender’s gas fee', async () => {
    const sent = await c.call(A!, addr.token!, z.Token!.abi, 'transfer', [B, parseEther('1.5')])
    const changes = await changesOf(sent, A)
    const aBefore = await balance(A!, sent.before)
    expect(sent.fee).toBeGreaterThan(0n)
    expect(changes).toEqual([
      nativeOf(A!, aBefore, aBefore - sent.fee),
      {
        account: A,
        type: 'erc20',
        token: addr.token,
        symbol: 'DEMO',
        decimals: 18,
        before: toHex(parseEther('1000000')),
        after: toHex(parseEther('1000000') - parseEther('1.5')),
        delta: (-parseEther('1.5')).toString(),
      },
    ])
  })

  it('reports what a fee-on-transfer token really credits, not what its event claims', async () => {
    const sent = await c.call(A!, addr.fee!, z.FeeToken!.abi, 'transfer', [B, parseEther('100')])
    const { transfers } = await c.transfersOf(sent.transactionHash)
    expect(transfers).toEqual([{ type: 'erc20', token: addr.fee, from: A, to: B, amount: toHex(parseEther('100')) }])
    const changes = await changesOf(sent, B)
    expect(changes).toEqual([
      {
        account: B,
        type: 'erc20',
        token: addr.fee,
        symbol: 'FEE',
        decimals: 18,
        before: '0x0',
        after: toHex(parseEther('99')),
        delta: parseEther('99').toString(),
      },
    ])
    // without an account: every balance that changed, sender's fee included
    const all = await changesOf(sent, undefined, [A!])
    expect(all.map((x) => [x.account, x.type, x.delta])).toEqual([
      [A, 'native', (-sent.fee).toString()],
      [A, 'erc20', (-parseEther('100')).toString()],
      [B, 'erc20', parseEther('99').toString()],
    ])
  })

  it('reports ERC-721 ownership of the moved id as 0x1/0x0', async () => {
    const sent = await c.call(A!, addr.nft!, z.Nft!.abi, 'transferFrom', [A, C, 7n])
    const changes = await changesOf(sent)
    expect(changes).toEqual([
      { account: A, type: 'erc721', token: addr.nft, tokenId: '0x7', symbol: 'DEMO-NFT', before: '0x1', after: '0x0', delta: '-1' },
      { account: C, type: 'erc721', token: addr.nft, tokenId: '0x7', symbol: 'DEMO-NFT', before: '0x0', after: '0x1', delta: '1' },
    ])
  })

  it('reports ERC-1155 balances per id of a batch transfer', async () => {
    const sent = await c.call(A!, addr.multi!, z.Multi!.abi, 'safeBatchTransferFrom', [A, B, [1n, 2n], [30n, 50n], '0x'])
    const changes = await changesOf(sent, B)
    expect(changes).toEqual([
      { account: B, type: 'erc1155', token: addr.multi, tokenId: '0x1', before: '0x0', after: '0x1e', delta: '30' },
      { account: B, type: 'erc1155', token: addr.multi, tokenId: '0x2', before: '0x0', after: '0x32', delta: '50' },
    ])
  })

  it('finds WETH wrapped by deposit (no Transfer event) through its Deposit log', async () => {
    const sent = await c.call(A!, addr.weth!, z.Weth!.abi, 'deposit', [], parseEther('2'))
    const changes = await changesOf(sent, A)
    const aBefore = await balance(A!, sent.before)
    expect(changes).toEqual([
      nativeOf(A!, aBefore, aBefore - parseEther('2') - sent.fee),
      {
        account: A,
        type: 'erc20',
        token: addr.weth,
        symbol: 'WETH',
        decimals: 18,
        before: '0x0',
        after: toHex(parseEther('2')),
        delta: parseEther('2').toString(),
      },
    ])
  })

  it('follows ETH forwarded internally; a forwarding contract with no net change is omitted', async () => {
    const sent = await c.call(A!, addr.fwd!, z.Forwarder!.abi, 'forward', [C], parseEther('3'))
    const { transfers } = await c.transfersOf(sent.transactionHash)
    expect(transfers).toEqual([
      { type: 'native', token: null, from: A, to: addr.fwd, amount: toHex(parseEther('3')) },
      { type: 'native', token: null, from: addr.fwd, to: C, amount: toHex(parseEther('3')) },
    ])
    const changes = await changesOf(sent)
    const aBefore = await balance(A!, sent.before)
    const cBefore = await balance(C!, sent.before)
    expect(changes).toEqual([nativeOf(A!, aBefore, aBefore - parseEther('3') - sent.fee), nativeOf(C!, cBefore, cBefore + parseEther('3'))])
  })

  it('drops the value of a reverted inner call: it stayed with the forwarder', async () => {
    const sent = await c.call(A!, addr.fwd!, z.Forwarder!.abi, 'split', [B, addr.rejecter], 10n)
    const { transfers, tree } = await c.transfersOf(sent.transactionHash)
    expect(tree.calls?.[1]?.error).toBe('execution reverted') // the rejected forward really happened
    expect(transfers).toEqual([
      { type: 'native', token: null, from: A, to: addr.fwd, amount: '0xa' },
      { type: 'native', token: null, from: addr.fwd, to: B, amount: '0x5' },
    ])
    const changes = await changesOf(sent)
    expect(changes.find((x) => x.account === addr.fwd)?.delta).toBe('5')
    expect(changes.find((x) => x.account === addr.rejecter)).toBeUndefined()
  })

  it('handles a token without symbol()/decimals(): no symbol, no decimals, raw summary', async () => {
    const sent = await c.call(A!, addr.bare!, z.NoMetaToken!.abi, 'transfer', [B, 1234n])
    const tokens = createTokenInfoReader(c.readCallAt(sent.after))
    expect(await tokens(addr.bare!)).toEqual({})
    const changes = await changesOf(sent, B)
    expect(changes).toEqual([{ account: B, type: 'erc20', token: addr.bare, before: '0x0', after: '0x4d2', delta: '1234' }])
    const [decoded] = await decodeLogs(sent.logs, tokens)
    expect(decoded?.summary).toBe(`Transfer 1234 ${addr.bare!.slice(0, 6)}…${addr.bare!.slice(-4)} from 0xf39f…2266 to 0x7099…79c8`)
  })

  it('decodes the real logs of a transfer with the token’s on-chain symbol and decimals', async () => {
    const sent = await c.call(A!, addr.token!, z.Token!.abi, 'transfer', [C, parseEther('0.25')])
    const decoded = await decodeLogs(sent.logs, createTokenInfoReader(c.readCallAt(sent.after)))
    expect(decoded).toEqual([
      {
        name: 'Transfer',
        signature: 'Transfer(address,address,uint256)',
        args: { from: A, to: C, value: parseEther('0.25').toString() },
        summary: 'Transfer 0.25 DEMO from 0xf39f…2266 to 0x3c44…93bc',
      },
    ])
  })

  it('wraps a raw reader failure in a STATE_ACCESS_ERROR without its message', async () => {
    const failing = {
      nativeBalance: async () => {
        throw new Error('fetch failed: http://secret-key@rpc.example')
      },
      call: async () => undefined,
    }
    const err = await computeAssetChanges({ account: A, transfers: [], readBefore: failing, readAfter: failing, tokens: async () => ({}) }).catch((e) => e)
    expect(isEngineError(err) && err.code).toBe('STATE_ACCESS_ERROR')
    expect(JSON.stringify({ m: err.message, d: err.details })).not.toContain('secret')
  })
})

describe('createTokenInfoReader on a real chain', () => {
  it('reads string and bytes32 symbols, and nothing from a non-token', async () => {
    const mkr = await c.deploy(A!, z.Bytes32Token!)
    const head = BigInt(await anvil!.rpc<string>('eth_blockNumber'))
    const tokens = createTokenInfoReader(c.readCallAt(head))
    expect(await tokens(addr.token!)).toEqual({ symbol: 'DEMO', decimals: 18 })
    expect(await tokens(mkr)).toEqual({ symbol: 'MKR', decimals: 18 })
    expect(await tokens(addr.nft!)).toEqual({ symbol: 'DEMO-NFT' })
    expect(await tokens(B!)).toEqual({}) // an EOA: empty return data
    expect(await tokens(addr.fwd!)).toEqual({}) // a contract without the functions: reverts
  })

  it('reads each token once per reader and shares results through the cache store by scope', async () => {
    const { createMemoryCacheStore } = await import('../../../../host/cache/memoryCacheStore.js')
    const store = createMemoryCacheStore()
    const head = BigInt(await anvil!.rpc<string>('eth_blockNumber'))
    let calls = 0
    const counting = (read: ReturnType<typeof c.readCallAt>) => async (to: Address, data: `0x${string}`) => {
      calls++
      return read(to, data)
    }
    const first = createTokenInfoReader(counting(c.readCallAt(head)), { store, scope: `31337:${head}` })
    const [x, y] = await Promise.all([first(addr.token!), first(addr.token!.toUpperCase().replace('0X', '0x') as Address)])
    expect(x).toEqual({ symbol: 'DEMO', decimals: 18 })
    expect(y).toBe(x)
    expect(calls).toBe(3) // symbol(), decimals() and name(), once
    const second = createTokenInfoReader(counting(c.readCallAt(head)), { store, scope: `31337:${head}` })
    expect(await second(addr.token!)).toEqual({ symbol: 'DEMO', decimals: 18 })
    expect(calls).toBe(3) // served by the store
    const otherScope = createTokenInfoReader(counting(c.readCallAt(head)), { store, scope: `31337:${head - 1n}` })
    await otherScope(addr.token!)
    expect(calls).toBe(6)
  })

  it('does not remember a failed read', async () => {
    const { createMemoryCacheStore } = await import('../../../../host/cache/memoryCacheStore.js')
    const store = createMemoryCacheStore()
    const down = createTokenInfoReader(
      async () => {
        throw new Error('upstream down')
      },
      { store, scope: 's' },
    )
    expect(await down(addr.token!)).toEqual({})
    const head = BigInt(await anvil!.rpc<string>('eth_blockNumber'))
    const up = createTokenInfoReader(c.readCallAt(head), { store, scope: 's' })
    expect(await up(addr.token!)).toEqual({ symbol: 'DEMO', decimals: 18 })
  })
})
