import { describe, expect, it } from 'vitest'
import { encodeAbiParameters, encodeEventTopics, parseAbi, type Address, type Hex } from 'viem'
import { createTransfersTracer, transfersOfLog } from '../../../../engine/execution/observers/transfers.js'
import type { CallType, EnterEvent, LogEvent } from '../../../../tracers/types.js'

const A = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' as Address
const B = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' as Address
const C = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc' as Address
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3' as Address
const NFT = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512' as Address
const MULTI = '0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0' as Address

const abi = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
])
const nftAbi = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)'])

function erc20Log(from: Address, to: Address, value: bigint, depth = 1): LogEvent {
  return {
    address: TOKEN,
    topics: encodeEventTopics({ abi, eventName: 'Transfer', args: { from, to } }) as Hex[],
    data: encodeAbiParameters([{ type: 'uint256' }], [value]),
    depth,
    index: 0,
  }
}
function erc721Log(from: Address, to: Address, tokenId: bigint, depth = 1): LogEvent {
  return { address: NFT, topics: encodeEventTopics({ abi: nftAbi, args: { from, to, tokenId } }) as Hex[], data: '0x', depth, index: 0 }
}
function singleLog(from: Address, to: Address, id: bigint, value: bigint): LogEvent {
  return {
    address: MULTI,
    topics: encodeEventTopics({ abi, eventName: 'TransferSingle', args: { operator: C, from, to } }) as Hex[],
    data: encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [id, value]),
    depth: 1,
    index: 0,
  }
}
function batchLog(from: Address, to: Address, ids: bigint[], values: bigint[]): LogEvent {
  return {
    address: MULTI,
    topics: encodeEventTopics({ abi, eventName: 'TransferBatch', args: { operator: C, from, to } }) as Hex[],
    data: encodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], [ids, values]),
    depth: 1,
    index: 0,
  }
}
const enter = (depth: number, type: CallType, from: Address, to: Address, value: bigint | undefined): EnterEvent => ({
  depth,
  type,
  from,
  to,
  input: '0x',
  gas: 100_000n,
  value,
})
const ok = (depth: number) => ({ depth, output: '0x' as Hex, gasUsed: 21_000n, reverted: false })
const reverted = (depth: number) => ({ depth, output: '0x' as Hex, gasUsed: 21_000n, reverted: true, error: 'execution reverted' })

describe('transfers tracer', () => {
  it('records native value of value-carrying frames and token logs in execution order', () => {
    const t = createTransfersTracer()
    t.onEnter(enter(0, 'CALL', A, B, 10n))
    t.onLog(erc20Log(A, C, 5n, 0))
    t.onEnter(enter(1, 'CALL', B, C, 3n))
    t.onLog(erc721Log(B, C, 42n))
    t.onExit(ok(1))
    t.onLog(singleLog(A, B, 7n, 2n))
    t.onExit(ok(0))
    expect(t.result()).toEqual([
      { type: 'native', token: null, from: A, to: B, amount: '0xa' },
      { type: 'erc20', token: TOKEN, from: A, to: C, amount: '0x5' },
      { type: 'native', token: null, from: B, to: C, amount: '0x3' },
      { type: 'erc721', token: NFT, from: B, to: C, amount: '0x1', tokenId: '0x2a' },
      { type: 'erc1155', token: MULTI, from: A, to: B, amount: '0x2', tokenId: '0x7' },
    ])
  })

  it('drops everything a reverted frame and its children recorded, keeps the rest', () => {
    const t = createTransfersTracer()
    t.onEnter(enter(0, 'CALL', A, B, 0n))
    t.onLog(erc20Log(A, B, 1n, 0))
    t.onEnter(enter(1, 'CALL', B, C, 9n)) // reverts below
    t.onLog(erc20Log(B, C, 2n))
    t.onEnter(enter(2, 'CALL', C, A, 4n)) // succeeds itself, but its parent reverts
    t.onLog(erc20Log(C, A, 3n, 2))
    t.onExit(ok(2))
    t.onExit(reverted(1))
    t.onEnter(enter(1, 'CALL', B, A, 6n))
    t.onExit(ok(1))
    t.onExit(ok(0))
    expect(t.result()).toEqual([
      { type: 'erc20', token: TOKEN, from: A, to: B, amount: '0x1' },
      { type: 'native', token: null, from: B, to: A, amount: '0x6' },
    ])
  })

  it('reports nothing when the top call reverts', () => {
    const t = createTransfersTracer()
    t.onEnter(enter(0, 'CALL', A, B, 10n))
    t.onLog(erc20Log(A, B, 1n, 0))
    t.onEnter(enter(1, 'CALL', B, C, 3n))
    t.onExit(ok(1))
    t.onExit(reverted(0))
    expect(t.result()).toEqual([])
  })

  it('counts SELFDESTRUCT and CREATE/CREATE2 value, not DELEGATECALL/CALLCODE/STATICCALL or zero value', () => {
    const t = createTransfersTracer()
    t.onEnter(enter(0, 'CALL', A, B, 0n))
    t.onEnter(enter(1, 'DELEGATECALL', B, C, 10n)) // parent's value, moves nothing
    t.onExit(ok(1))
    t.onEnter(enter(1, 'CALLCODE', B, C, 11n))
    t.onExit(ok(1))
    t.onEnter(enter(1, 'STATICCALL', B, C, undefined))
    t.onExit(ok(1))
    t.onEnter(enter(1, 'CREATE', B, NFT, 12n))
    t.onExit(ok(1))
    t.onEnter(enter(1, 'CREATE2', B, MULTI, 13n))
    t.onExit(ok(1))
    t.onEnter(enter(1, 'SELFDESTRUCT', B, C, 14n))
    t.onExit(ok(1))
    t.onExit(ok(0))
    expect(t.result()).toEqual([
      { type: 'native', token: null, from: B, to: NFT, amount: '0xc' },
      { type: 'native', token: null, from: B, to: MULTI, amount: '0xd' },
      { type: 'native', token: null, from: B, to: C, amount: '0xe' },
    ])
  })

  it('splits an ERC-1155 batch into one transfer per id', () => {
    const t = createTransfersTracer()
    t.onEnter(enter(0, 'CALL', A, MULTI, 0n))
    t.onLog(batchLog(A, B, [1n, 2n], [30n, 40n]))
    t.onExit(ok(0))
    expect(t.result()).toEqual([
      { type: 'erc1155', token: MULTI, from: A, to: B, amount: '0x1e', tokenId: '0x1' },
      { type: 'erc1155', token: MULTI, from: A, to: B, amount: '0x28', tokenId: '0x2' },
    ])
  })
})

describe('transfersOfLog', () => {
  it('ignores malformed or foreign logs', () => {
    const good = erc20Log(A, B, 1n)
    expect(transfersOfLog(good)).toHaveLength(1)
    expect(transfersOfLog({ ...good, data: '0x' })).toEqual([])
    expect(transfersOfLog({ ...good, topics: good.topics.slice(0, 2) })).toEqual([])
    expect(transfersOfLog({ ...good, topics: [good.topics[0]!, `0x${'11'.repeat(32)}`, good.topics[2]!] })).toEqual([])
    expect(transfersOfLog({ ...erc721Log(A, B, 1n), data: encodeAbiParameters([{ type: 'uint256' }], [1n]) })).toEqual([])
    expect(
      transfersOfLog({ ...batchLog(A, B, [1n], [2n]), data: encodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], [[1n, 2n], [3n]]) }),
    ).toEqual([])
    expect(transfersOfLog({ address: A, topics: [], data: '0x' })).toEqual([])
  })
})
