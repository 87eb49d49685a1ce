import { describe, expect, it } from 'vitest'
import { concat, decodeEventLog, encodeAbiParameters, encodeEventTopics, keccak256, maxUint256, parseEther, toHex, type Address, type Hex } from 'viem'
import { decodeLog, decodeLogs, type RawLog } from '../../../engine/decoding/decodeLogs.js'
import { EVENT_TABLE, eventById, findEvent, type EventId } from '../../../engine/decoding/eventTable.js'
import type { TokenInfo, TokenInfoReader } from '../../../engine/decoding/tokenInfo.js'

const A = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' as Address
const B = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' as Address
const C = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc' as Address
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3' as Address
const NFT = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512' as Address
const BARE = '0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0' as Address // no symbol(), no decimals()

const metadata: Record<string, TokenInfo> = {
  [TOKEN]: { symbol: 'DEMO', decimals: 18 },
  [NFT]: { symbol: 'DEMO-NFT' },
  [BARE]: {},
}
const tokens: TokenInfoReader = async (token) => metadata[token] ?? {}

/** Encodes a log of the table's event exactly as a contract would emit it. */
function logOf(id: EventId, address: Address, args: Record<string, unknown>): RawLog {
  const { abi } = eventById(id)
  const topics = encodeEventTopics({ abi: [abi], eventName: abi.name, args } as never) as Hex[]
  const nonIndexed = abi.inputs.filter((i) => !i.indexed)
  const data = nonIndexed.length
    ? encodeAbiParameters(
        nonIndexed,
        nonIndexed.map((i) => args[i.name!]),
      )
    : '0x'
  return { address, topics, data }
}

describe('eventTable', () => {
  it('tells ERC-20 and ERC-721 Transfer apart by topic count, though topic0 is shared', () => {
    const erc20 = eventById('erc20.Transfer')
    const erc721 = eventById('erc721.Transfer')
    expect(erc20.topic0).toBe(erc721.topic0)
    expect(erc20.topic0).toBe(keccak256(toHex('Transfer(address,address,uint256)')))
    expect(findEvent(erc20.topic0, 3)?.id).toBe('erc20.Transfer')
    expect(findEvent(erc20.topic0, 4)?.id).toBe('erc721.Transfer')
    expect(findEvent(erc20.topic0, 2)).toBeUndefined()
  })

  it('gives Uniswap V2 and V3 Swap/Mint/Burn distinct signatures', () => {
    for (const name of ['Swap', 'Mint', 'Burn'] as const) {
      const v2 = eventById(`uniswapV2.${name}`)
      const v3 = eventById(`uniswapV3.${name}`)
      expect(v2.topic0).not.toBe(v3.topic0)
      expect(findEvent(v3.topic0.toUpperCase().replace('0X', '0x') as Hex, v3.topicCount)?.id).toBe(`uniswapV3.${name}`)
    }
    expect(eventById('uniswapV3.Swap').signature).toBe('Swap(address,address,int256,int256,uint160,uint128,int24)')
  })

  it('holds every event family the spec names, each (topic0, topic count) once', () => {
    expect(EVENT_TABLE).toHaveLength(26)
    const keys = new Set(EVENT_TABLE.map((e) => `${e.topic0}:${e.topicCount}`))
    expect(keys.size).toBe(EVENT_TABLE.length)
    for (const e of EVENT_TABLE) expect(findEvent(e.topic0, e.topicCount)).toBe(e)
  })
})

const ONE_AND_HALF = parseEther('1.5')
const ROLE_MINTER = keccak256(toHex('MINTER_ROLE'))
const ROLE_OTHER = keccak256(toHex('SOMETHING_ELSE'))
const POOL = '0x1f98431c8ad98523631ae4a59f267346ea31f984' as Address

interface Case {
  id: EventId
  address: Address
  args: Record<string, unknown>
  json: Record<string, unknown>
  summary: string
}

// One case per table entry (and a few variants): what a user sees for each event.
const cases: Case[] = [
  {
    id: 'erc20.Transfer',
    address: TOKEN,
    args: { from: A, to: B, value: ONE_AND_HALF },
    json: { from: A, to: B, value: '1500000000000000000' },
    summary: 'Transfer 1.5 DEMO from 0xf39f…2266 to 0x7099…79c8',
  },
  {
    id: 'erc20.Transfer',
    address: BARE,
    args: { from: A, to: B, value: 1500n },
    json: { from: A, to: B, value: '1500' },
    summary: 'Transfer 1500 0x9fe4…a6e0 from 0xf39f…2266 to 0x7099…79c8',
  },
  {
    id: 'erc20.Approval',
    address: TOKEN,
    args: { owner: A, spender: B, value: 100n * 10n ** 18n },
    json: { owner: A, spender: B, value: '100000000000000000000' },
    summary: 'Approve 0x7099…79c8 to spend 100 DEMO of 0xf39f…2266',
  },
  {
    id: 'erc20.Approval',
    address: TOKEN,
    args: { owner: A, spender: B, value: maxUint256 },
    json: { owner: A, spender: B, value: maxUint256.toString() },
    summary: 'Approve 0x7099…79c8 to spend unlimited DEMO of 0xf39f…2266',
  },
  {
    id: 'erc721.Transfer',
    address: NFT,
    args: { from: A, to: B, tokenId: 7n },
    json: { from: A, to: B, tokenId: '7' },
    summary: 'Transfer DEMO-NFT #7 from 0xf39f…2266 to 0x7099…79c8',
  },
  {
    id: 'erc721.Approval',
    address: NFT,
    args: { owner: A, approved: B, tokenId: 7n },
    json: { owner: A, approved: B, tokenId: '7' },
    summary: 'Approve 0x7099…79c8 to transfer DEMO-NFT #7 of 0xf39f…2266',
  },
  {
    id: 'erc721.ApprovalForAll',
    address: NFT,
    args: { owner: A, operator: C, approved: true },
    json: { owner: A, operator: C, approved: true },
    summary: 'Approve 0x3c44…93bc to manage all DEMO-NFT of 0xf39f…2266',
  },
  {
    id: 'erc721.ApprovalForAll',
    address: NFT,
    args: { owner: A, operator: C, approved: false },
    json: { owner: A, operator: C, approved: false },
    summary: 'Revoke 0x3c44…93bc from managing all DEMO-NFT of 0xf39f…2266',
  },
  {
    id: 'erc1155.TransferSingle',
    address: BARE,
    args: { operator: C, from: A, to: B, id: 3n, value: 25n },
    json: { operator: C, from: A, to: B, id: '3', value: '25' },
    summary: 'Transfer 25 of 0x9fe4…a6e0 #3 from 0xf39f…2266 to 0x7099…79c8',
  },
  {
    id: 'erc1155.TransferBatch',
    address: BARE,
    args: { operator: C, from: A, to: B, ids: [1n, 2n], values: [10n, 20n] },
    json: { operator: C, from: A, to: B, ids: ['1', '2'], values: ['10', '20'] },
    summary: 'Transfer 0x9fe4…a6e0 10 of #1, 20 of #2 from 0xf39f…2266 to 0x7099…79c8',
  },
  {
    id: 'erc1155.URI',
    address: BARE,
    args: { value: 'ipfs://meta/3.json', id: 3n },
    json: { value: 'ipfs://meta/3.json', id: '3' },
    summary: 'Set URI of 0x9fe4…a6e0 #3 to ipfs://meta/3.json',
  },
  {
    id: 'weth.Deposit',
    address: TOKEN,
    args: { dst: A, wad: ONE_AND_HALF },
    json: { dst: A, wad: '1500000000000000000' },
    summary: 'Deposit 1.5 DEMO to 0xf39f…2266',
  },
  {
    id: 'weth.Withdrawal',
    address: TOKEN,
    args: { src: A, wad: 2n * 10n ** 17n },
    json: { src: A, wad: '200000000000000000' },
    summary: 'Withdraw 0.2 DEMO from 0xf39f…2266',
  },
  {
    id: 'uniswapV2.Swap',
    address: POOL,
    args: { sender: A, amount0In: 1000n, amount1In: 0n, amount0Out: 0n, amount1Out: 497n, to: B },
    json: { sender: A, amount0In: '1000', amount1In: '0', amount0Out: '0', amount1Out: '497', to: B },
    summary: 'Swap 1000 token0 for 497 token1 on pair 0x1f98…f984 to 0x7099…79c8',
  },
  {
    id: 'uniswapV2.Sync',
    address: POOL,
    args: { reserve0: 5000n, reserve1: 2500n },
    json: { reserve0: '5000', reserve1: '2500' },
    summary: 'Sync reserves of pair 0x1f98…f984 to 5000 token0 and 2500 token1',
  },
  {
    id: 'uniswapV2.Mint',
    address: POOL,
    args: { sender: A, amount0: 10n, amount1: 20n },
    json: { sender: A, amount0: '10', amount1: '20' },
    summary: 'Add liquidity 10 token0 and 20 token1 to pair 0x1f98…f984 by 0xf39f…2266',
  },
  {
    id: 'uniswapV2.Burn',
    address: POOL,
    args: { sender: A, amount0: 10n, amount1: 20n, to: B },
    json: { sender: A, amount0: '10', amount1: '20', to: B },
    summary: 'Remove liquidity 10 token0 and 20 token1 from pair 0x1f98…f984 to 0x7099…79c8',
  },
  {
    id: 'uniswapV2.PairCreated',
    address: C,
    args: { token0: TOKEN, token1: BARE, pair: POOL, pairIndex: 1n },
    json: { token0: TOKEN, token1: BARE, pair: POOL, pairIndex: '1' },
    summary: 'Create pair 0x1f98…f984 for DEMO/0x9fe4…a6e0',
  },
  {
    id: 'uniswapV3.Swap',
    address: POOL,
    args: { sender: A, recipient: B, amount0: -497n, amount1: 1000n, sqrtPriceX96: 2n ** 96n, liquidity: 10n ** 18n, tick: -887272 },
    json: {
      sender: A,
      recipient: B,
      amount0: '-497',
      amount1: '1000',
      sqrtPriceX96: (2n ** 96n).toString(),
      liquidity: '1000000000000000000',
      tick: '-887272',
    },
    summary: 'Swap 1000 token1 for 497 token0 on pool 0x1f98…f984 to 0x7099…79c8',
  },
  {
    id: 'uniswapV3.Mint',
    address: POOL,
    args: { sender: C, owner: A, tickLower: -60, tickUpper: 60, amount: 500n, amount0: 7n, amount1: 9n },
    json: { sender: C, owner: A, tickLower: '-60', tickUpper: '60', amount: '500', amount0: '7', amount1: '9' },
    summary: 'Add liquidity 500 in ticks [-60, 60] of pool 0x1f98…f984 for 0xf39f…2266: 7 token0 and 9 token1',
  },
  {
    id: 'uniswapV3.Burn',
    address: POOL,
    args: { owner: A, tickLower: -60, tickUpper: 60, amount: 500n, amount0: 7n, amount1: 0n },
    json: { owner: A, tickLower: '-60', tickUpper: '60', amount: '500', amount0: '7', amount1: '0' },
    summary: 'Remove liquidity 500 in ticks [-60, 60] of pool 0x1f98…f984 for 0xf39f…2266: 7 token0',
  },
  {
    id: 'uniswapV3.Collect',
    address: POOL,
    args: { owner: A, recipient: B, tickLower: -60, tickUpper: 60, amount0: 3n, amount1: 4n },
    json: { owner: A, recipient: B, tickLower: '-60', tickUpper: '60', amount0: '3', amount1: '4' },
    summary: 'Collect 3 token0 and 4 token1 from pool 0x1f98…f984 to 0x7099…79c8',
  },
  {
    id: 'uniswapV3.PoolCreated',
    address: C,
    args: { token0: TOKEN, token1: BARE, fee: 3000, tickSpacing: 60, pool: POOL },
    json: { token0: TOKEN, token1: BARE, fee: '3000', tickSpacing: '60', pool: POOL },
    summary: 'Create pool 0x1f98…f984 for DEMO/0x9fe4…a6e0 with fee 0.3%',
  },
  {
    id: 'ownable.OwnershipTransferred',
    address: TOKEN,
    args: { previousOwner: A, newOwner: B },
    json: { previousOwner: A, newOwner: B },
    summary: 'Transfer ownership of 0x5fbd…0aa3 from 0xf39f…2266 to 0x7099…79c8',
  },
  {
    id: 'accessControl.RoleGranted',
    address: TOKEN,
    args: { role: ROLE_MINTER, account: B, sender: A },
    json: { role: ROLE_MINTER, account: B, sender: A },
    summary: 'Grant MINTER_ROLE on 0x5fbd…0aa3 to 0x7099…79c8 by 0xf39f…2266',
  },
  {
    id: 'accessControl.RoleRevoked',
    address: TOKEN,
    args: { role: ROLE_OTHER, account: B, sender: A },
    json: { role: ROLE_OTHER, account: B, sender: A },
    summary: `Revoke ${ROLE_OTHER.slice(0, 6)}…${ROLE_OTHER.slice(-4)} on 0x5fbd…0aa3 from 0x7099…79c8 by 0xf39f…2266`,
  },
  {
    id: 'erc1967.Upgraded',
    address: TOKEN,
    args: { implementation: NFT },
    json: { implementation: NFT },
    summary: 'Upgrade proxy 0x5fbd…0aa3 to implementation 0xe7f1…0512',
  },
  {
    id: 'erc1967.AdminChanged',
    address: TOKEN,
    args: { previousAdmin: A, newAdmin: B },
    json: { previousAdmin: A, newAdmin: B },
    summary: 'Change admin of proxy 0x5fbd…0aa3 from 0xf39f…2266 to 0x7099…79c8',
  },
  {
    id: 'erc1967.BeaconUpgraded',
    address: TOKEN,
    args: { beacon: C },
    json: { beacon: C },
    summary: 'Upgrade proxy 0x5fbd…0aa3 to beacon 0x3c44…93bc',
  },
]

describe('decodeLogs: every event of the table', () => {
  it('covers every table entry', () => {
    expect(new Set(cases.map((c) => c.id)).size).toBe(EVENT_TABLE.length)
  })

  it.each(cases.map((c, i) => [`${c.id} #${i}`, c] as const))('%s', async (_, c) => {
    const entry = eventById(c.id)
    const decoded = await decodeLog(logOf(c.id, c.address, c.args), tokens)
    expect(decoded).toEqual({ name: entry.abi.name, signature: entry.signature, args: c.json, summary: c.summary })
    // JSON-safe: survives a JSON round trip unchanged
    expect(JSON.parse(JSON.stringify(decoded))).toEqual(decoded)
  })

  it('accepts mixed-case addresses and topics and returns args lowercase', async () => {
    const log = logOf('erc20.Transfer', TOKEN, { from: A, to: B, value: 1n })
    const upper: RawLog = {
      address: TOKEN.toUpperCase().replace('0X', '0x') as Address,
      topics: log.topics.map((t) => t.toUpperCase().replace('0X', '0x') as Hex),
      data: log.data,
    }
    const decoded = await decodeLog(upper, tokens)
    expect(decoded?.args).toEqual({ from: A, to: B, value: '1' })
    expect(decoded?.summary).toBe('Transfer 0.000000000000000001 DEMO from 0xf39f…2266 to 0x7099…79c8')
  })

  it('decodes a list index for index and leaves unknown events undecoded', async () => {
    const unknown: RawLog = { address: TOKEN, topics: [keccak256(toHex('Whatever(uint256)'))], data: encodeAbiParameters([{ type: 'uint256' }], [1n]) }
    const anonymous: RawLog = { address: TOKEN, topics: [], data: '0x' }
    const out = await decodeLogs([unknown, logOf('erc721.Transfer', NFT, { from: A, to: B, tokenId: 1n }), anonymous], tokens)
    expect(out).toHaveLength(3)
    expect(out[0]).toBeUndefined()
    expect(out[1]?.summary).toBe('Transfer DEMO-NFT #1 from 0xf39f…2266 to 0x7099…79c8')
    expect(out[2]).toBeUndefined()
  })

  it('falls back to the raw amount when the token reader fails', async () => {
    const failing: TokenInfoReader = async () => {
      throw new Error('upstream down')
    }
    const decoded = await decodeLog(logOf('erc20.Transfer', TOKEN, { from: A, to: B, value: 5n }), failing)
    expect(decoded?.summary).toBe('Transfer 5 0x5fbd…0aa3 from 0xf39f…2266 to 0x7099…79c8')
  })
})

describe('decodeLogs: malformed logs get no decoded key, never a wrong one', () => {
  const transfer = logOf('erc20.Transfer', TOKEN, { from: A, to: B, value: 5n })
  const nft = logOf('erc721.Transfer', NFT, { from: A, to: B, tokenId: 5n })
  const word = (n: bigint) => encodeAbiParameters([{ type: 'uint256' }], [n])

  const malformed: [string, RawLog][] = [
    ['ERC-20 Transfer without data', { ...transfer, data: '0x' }],
    ['ERC-20 Transfer with a short amount', { ...transfer, data: '0x0005' }],
    ['ERC-20 Transfer with trailing data', { ...transfer, data: `${transfer.data}${'00'.repeat(32)}` as Hex }],
    ['Transfer with 2 topics', { ...transfer, topics: transfer.topics.slice(0, 2) }],
    ['Transfer with 5 topics', { ...nft, topics: [...nft.topics, nft.topics[3]!] }],
    ['ERC-721 Transfer with data', { ...nft, data: word(1n) }],
    ['address topic with dirty high bits', { ...transfer, topics: [transfer.topics[0]!, `0x${'ff'.repeat(12)}${A.slice(2)}` as Hex, transfer.topics[2]!] }],
    ['Sync reserve beyond uint112', logOfRaw('uniswapV2.Sync', POOL, [], encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [2n ** 112n, 1n]))],
    ['bool not 0/1', logOfRaw('erc721.ApprovalForAll', NFT, [A, C], word(2n))],
    [
      'TransferBatch with a truncated array',
      {
        ...logOf('erc1155.TransferBatch', BARE, { operator: C, from: A, to: B, ids: [1n, 2n], values: [3n, 4n] }),
        data: `0x${logOf('erc1155.TransferBatch', BARE, { operator: C, from: A, to: B, ids: [1n, 2n], values: [3n, 4n] }).data.slice(2, -64)}` as Hex,
      },
    ],
  ]

  it.each(malformed)('%s', async (_, log) => {
    expect(await decodeLog(log, tokens)).toBeUndefined()
  })
})

/** A log of the table's topic0 with hand-made address topics and data. */
function logOfRaw(id: EventId, address: Address, indexedAddresses: Address[], data: Hex): RawLog {
  const entry = eventById(id)
  const pad = (a: Address) => `0x${'00'.repeat(12)}${a.slice(2)}` as Hex
  return { address, topics: [entry.topic0, ...indexedAddresses.map(pad)], data }
}

describe('static events read word by word', () => {
  // every event of the table whose inputs are all static: a log with random canonical words must
  // decode to exactly what viem's decoder reads (addresses lowercased, as every reader does)
  const statics = EVENT_TABLE.filter((e) => e.abi.inputs.every((i) => /^(address|bool|bytes32|uint\d+)$/.test(i.type)))
  const word = (type: string, seed: number): Hex => {
    const rnd = keccak256(toHex(`${type}:${seed}`)).slice(2)
    if (type === 'address') return `0x${'0'.repeat(24)}${rnd.slice(0, 40)}`
    if (type === 'bool') return `0x${'0'.repeat(63)}${seed % 2}`
    const bits = /^uint(\d+)$/.exec(type)?.[1]
    if (bits) return toHex(BigInt(`0x${rnd}`) >> BigInt(256 - Number(bits)), { size: 32 })
    return `0x${rnd}`
  }
  it.each(statics.map((e) => [e.signature, e] as const))('%s', async (_sig, entry) => {
    const indexed = entry.abi.inputs.filter((i) => i.indexed)
    const plain = entry.abi.inputs.filter((i) => !i.indexed)
    const topics = [keccak256(toHex(entry.signature)), ...indexed.map((i, k) => word(i.type, k))] as [Hex, ...Hex[]]
    const data: Hex = plain.length ? concat(plain.map((i, k) => word(i.type, 100 + k))) : '0x'
    const log = { address: '0x00000000000000000000000000000000000000aa' as Hex, topics, data }
    const ours = await decodeLog(log, async () => ({}))
    const { args } = decodeEventLog({ abi: [entry.abi], topics, data: log.data, strict: true })
    const lower = (v: unknown) => (typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? v.toLowerCase() : v)
    expect(ours?.args).toEqual(Object.fromEntries(Object.entries(args as Record<string, unknown>).map(([k, v]) => [k, lower(v)])))
  })
})
