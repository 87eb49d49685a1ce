/**
 * What a development node does on a writable fork, one operation per `ForkDevRequest` variant
 * (engine/chains/forks/types.ts; the JSON-RPC names are the HTTP layer's): sending a signed or an
 * impersonated transaction, mining (automine, a number of blocks), time, snapshots, cheats on the
 * state, impersonation, dumps and resets. The request arrives read and checked; what is refused
 * here is what only the fork can tell (a timestamp behind its head, a sender it cannot sign for).
 *
 * Every change is a `write` of the fork service: it runs on the newest head and lands as one
 * atomic commit (a new block with its receipts and state changes, or a new record), or not at all.
 */
import type { Address, Hex } from 'viem'
import type { ChainSource } from '../types.js'
import { DEV_ACCOUNTS, DEVNET_CHAIN_ID } from '../memory/accounts.js'
import { EngineError } from '../../platform/errors.js'
import type { CallParams, GasEstimate } from '../../execution/types.js'
import { decodePoolTx, forkChainOf, headNumber, indexBlocks, loadBlock, type ForkView } from './forkChain.js'
import { mineForkBlock, nextForkBaseFee } from './forkMiner.js'
import { DiffLayer, emptyWrites, mergeWrites, writesToJson } from './forkState.js'
import { anvilStateOf, encodeAnvilState } from './anvilState.js'
import type { ForkService } from './forkService.js'
import { acceptRawTransaction, buildSentTransaction, checkAgainstState } from './sendTransaction.js'
import { storedBlockJson, type ForkDevRequest, type ForkMark, type ForkRecord, type PoolTx, type SendCall, type StoredBlock } from './types.js'
import { createAddressFromString } from '@ethereumjs/util'
import type { OverlayStateManager, StateWrites } from '../../state/index.js'
import type { StateOverrides } from '../../vocabulary.js'
import { toQuantity as q } from '../../platform/quantity.js'

export interface DevDeps {
  forks: ForkService
  /** the engine's estimateGas on a chain (eth_sendTransaction without gas) */
  estimateGas(chain: ChainSource, params: CallParams): Promise<GasEstimate>
}

/** the fork's clock: the next block's timestamp (Anvil: wall clock plus the offset, after the parent) */
function nextTimestamp(view: ForkView): bigint {
  if (view.record.nextTimestamp !== null) return BigInt(view.record.nextTimestamp)
  const parent = view.blocks.length ? view.blocks[view.blocks.length - 1]!.header.timestamp : view.base.header.timestamp
  const now = BigInt(Math.floor(Date.now() / 1000)) + BigInt(view.record.timeOffset)
  return now > parent ? now : parent + 1n
}

function nextBaseFee(view: ForkView): bigint | undefined {
  if (view.record.nextBaseFee !== null) return BigInt(view.record.nextBaseFee)
  const parent = view.blocks.length ? view.blocks[view.blocks.length - 1]!.ethHeader : view.base.ethHeader
  return parent.common.isActivatedEIP(1559) ? nextForkBaseFee(forkChainOf(view).rules, parent) : undefined
}

const markOf = (r: ForkRecord): ForkMark => ({
  head: r.head,
  pending: r.pending,
  timeOffset: r.timeOffset,
  nextTimestamp: r.nextTimestamp,
  transactionCount: r.transactionCount,
  stateBytes: r.stateBytes,
  pool: r.pool,
})

async function headState(view: ForkView): Promise<OverlayStateManager> {
  return forkChainOf(view).stateAfter(headNumber(view))
}

/** sender nonces of the pool: the nonce the next transaction from `from` must carry */
async function pendingNonce(view: ForkView, from: Address, state?: OverlayStateManager): Promise<bigint> {
  const s = state ?? (await headState(view))
  let n = (await s.getAccount(createAddressFromString(from)))?.nonce ?? 0n
  const common = forkChainOf(view).commonAt(view.base.header)
  const nonces = new Set(view.record.pool.filter((t) => t.from === from).map((t) => decodePoolTx(common, t).nonce))
  while (nonces.has(n)) n++
  return n
}

/**
 * Mines `count` blocks on the view's head (the first takes the ready pool transactions, in
 * sender-nonce order); the new record and blocks to commit.
 */
async function mine(
  deps: DevDeps,
  view: ForkView,
  count: number,
  opts: { interval?: bigint; timestamp?: bigint; extra?: PoolTx[]; onInvalid?: 'throw' | 'skip'; oneTx?: boolean } = {},
) {
  const { limits } = deps.forks
  const have = Number(headNumber(view) - view.base.header.number)
  if (have + count > limits.maxBlocks) {
    throw new EngineError(
      'FORK_LIMIT_REACHED',
      `the fork would pass ${limits.maxBlocks} blocks (forks.max_blocks); nothing was mined`,
      { limit: 'forks.max_blocks' },
      'create a new fork, or raise forks.max_blocks',
    )
  }
  let cur = view
  let record: ForkRecord = { ...view.record }
  const blocks: StoredBlock[] = []
  for (let i = 0; i < count; i++) {
    const first = i === 0
    const candidates = first ? [...(opts.extra ?? []), ...record.pool] : []
    const all = first ? await readyOrder(cur, candidates) : { ready: [], waiting: [] }
    // automine: one transaction a block, the rest of what is ready stays for the next
    const txs = opts.oneTx ? { ready: all.ready.slice(0, 1), waiting: [...all.ready.slice(1), ...all.waiting] } : all
    const timestamp = first ? (opts.timestamp ?? nextTimestamp(cur)) : lastTs(cur) + (opts.interval ?? 1n)
    const { block, deferred } = await mineForkBlock(cur, txs.ready, {
      timestamp,
      baseFee: first && record.nextBaseFee !== null ? BigInt(record.nextBaseFee) : undefined,
      onInvalid: opts.onInvalid ?? 'skip',
    })
    const size = storedBlockJson(block).length
    if (record.stateBytes + size > limits.maxStateBytes) {
      throw new EngineError(
        'FORK_LIMIT_REACHED',
        `the fork would store more than ${Math.round(limits.maxStateBytes / 2 ** 20)} MiB (forks.max_state_mb); nothing was mined`,
        { limit: 'forks.max_state_mb' },
        'create a new fork, or raise forks.max_state_mb',
      )
    }
    record = {
      ...record,
      head: { number: block.number, hash: block.hash },
      pending: null,
      nextTimestamp: null,
      nextBaseFee: null,
      transactionCount: record.transactionCount + block.txs.length,
      stateBytes: record.stateBytes + size,
      // what could not run yet or did not fit waits; what was invalid on the head is dropped, as a pool drops it
      pool: first ? [...deferred, ...txs.waiting] : record.pool,
    }
    blocks.push(block)
    cur = await advanceView(cur, record, block)
  }
  return { record, blocks, view: cur }
}

function lastTs(view: ForkView): bigint {
  return view.blocks.length ? view.blocks[view.blocks.length - 1]!.header.timestamp : view.base.header.timestamp
}

/** the view after `block` (for mining several blocks in one change) */
async function advanceView(view: ForkView, record: ForkRecord, block: StoredBlock): Promise<ForkView> {
  const parentEnd = view.blocks.length ? view.blocks[view.blocks.length - 1]!.end : DiffLayer.root()
  const loaded = loadBlock(view.base, parentEnd, block)
  const blocks = [...view.blocks, loaded]
  return { ...view, record, blocks, pending: undefined, byHash: indexBlocks(blocks, view) }
}

/** the pool's transactions that can run now, in sender-nonce order; the rest wait */
async function readyOrder(view: ForkView, pool: PoolTx[]): Promise<{ ready: PoolTx[]; waiting: PoolTx[] }> {
  const state = await headState(view)
  const common = forkChainOf(view).commonAt(view.base.header)
  const bySender = new Map<Address, { t: PoolTx; nonce: bigint }[]>()
  for (const t of pool) {
    const list = bySender.get(t.from) ?? []
    list.push({ t, nonce: decodePoolTx(common, t).nonce })
    bySender.set(t.from, list)
  }
  const ready: PoolTx[] = []
  const waiting: PoolTx[] = []
  for (const [from, list] of bySender) {
    list.sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0))
    let next = (await state.getAccount(createAddressFromString(from)))?.nonce ?? 0n
    for (const { t, nonce } of list) {
      if (nonce === next) {
        ready.push(t)
        next++
      } else if (nonce > next) waiting.push(t)
      // below: already used; dropped
    }
  }
  return { ready, waiting }
}

/** runs one development-node operation on fork `id`; its answer as a JSON value (null where it has none) */
export async function forkRpc(deps: DevDeps, id: string, request: ForkDevRequest): Promise<unknown> {
  switch (request.method) {
    case 'sendRawTransaction':
      return sendRawTransaction(deps, id, request.raw)
    case 'sendTransaction':
      return sendTransaction(deps, id, request.call)
    case 'pendingNonce':
      return q(await pendingNonce(await deps.forks.view(id), request.address))
    case 'mine':
      return mineBlocks(deps, id, request)
    case 'setAutomine':
      return setAutomine(deps, id, request.enabled)
    case 'getAutomine':
      return (await deps.forks.view(id)).record.automine
    case 'snapshot':
      return snapshot(deps, id)
    case 'revert':
      return revert(deps, id, q(request.id))
    case 'increaseTime':
      return increaseTime(deps, id, request.seconds)
    case 'setNextBlockTimestamp':
      return setNextBlockTimestamp(deps, id, request.timestamp)
    case 'setNextBlockBaseFee':
      return setRecord(deps, id, { nextBaseFee: request.baseFee.toString() })
    case 'setBalance':
      return cheat(deps, id, { [request.address]: { balance: request.balance } })
    case 'setNonce':
      return cheat(deps, id, { [request.address]: { nonce: request.nonce } })
    case 'setCode':
      return cheat(deps, id, { [request.address]: { code: request.code } })
    case 'setStorageAt':
      return cheat(deps, id, { [request.address]: { stateDiff: { [request.slot]: request.value } } })
    case 'impersonate':
      return impersonate(deps, id, request.address, true)
    case 'stopImpersonating':
      return impersonate(deps, id, request.address, false)
    case 'autoImpersonate':
      return setRecord(deps, id, { autoImpersonate: request.enabled })
    case 'dumpState':
      return dumpState(deps, id)
    case 'loadState':
      return cheat(deps, id, request.state)
    case 'reset':
      return reset(deps, id, request.blockNumber)
  }
}

type Change<T> = (view: ForkView) => Promise<{ record: ForkRecord; blocks?: StoredBlock[]; result: T; view?: ForkView }>

/** one atomic change of the fork; its result */
const change = <T>(deps: DevDeps, id: string, fn: Change<T>): Promise<T> => deps.forks.write(id, fn)

/** fields of the fork's record set, nothing mined */
function setRecord(deps: DevDeps, id: string, fields: Partial<ForkRecord>): Promise<null> {
  return change(deps, id, async (view) => ({ record: { ...view.record, ...fields }, result: null }))
}

/** overrides applied to the head's state, pending until the next block */
function cheat(deps: DevDeps, id: string, overrides: StateOverrides): Promise<null> {
  return change(deps, id, async (view) => {
    const state = await headState(view)
    await state.applyOverrides(overrides)
    const writes = view.pending ? mergeWrites(view.pending, state.flatten()) : state.flatten()
    return { record: { ...view.record, pending: writesToJson(writes) }, result: null }
  })
}

/** eth_sendRawTransaction: the signed bytes checked against the head, into the pool */
function sendRawTransaction(deps: DevDeps, id: string, raw: Hex): Promise<Hex> {
  return change(deps, id, async (view) => {
    const chain = forkChainOf(view)
    const state = await headState(view)
    const { entry, tx } = await acceptRawTransaction(raw, chain.commonAt(view.base.header), view.record.chainId, {
      state,
      baseFee: nextBaseFee(view),
      pendingNonce: (a) => pendingNonce(view, a, state),
    })
    return submit(deps, view, entry, tx.nonce, state)
  })
}

/** eth_sendTransaction: built for an impersonated or a dev account, filled as Anvil fills it, into the pool */
function sendTransaction(deps: DevDeps, id: string, call: SendCall): Promise<Hex> {
  return change(deps, id, async (view) => {
    const chain = forkChainOf(view)
    const dev =
      (view.record.chainId === DEVNET_CHAIN_ID && view.base.chain.network === 'devnet' ? DEV_ACCOUNTS.find((a) => a.address === call.from) : undefined) ??
      view.record.signers?.find((a) => a.address === call.from)
    if (!dev && !view.record.autoImpersonate && !view.record.impersonated.includes(call.from)) {
      throw new EngineError(
        'VALIDATION_ERROR',
        `No Signer available for ${call.from}`,
        undefined,
        'impersonate the account first (anvil_impersonateAccount), or send a signed transaction',
      )
    }
    const state = await headState(view)
    const nonce = call.nonce ?? (await pendingNonce(view, call.from, state))
    const gas = call.gas ?? (await estimate(deps, chain, call))
    const { entry, tx } = buildSentTransaction(
      chain.commonAt({ ...view.base.header, number: headNumber(view) + 1n, timestamp: nextTimestamp(view) }),
      { ...call, nonce, gas },
      nextBaseFee(view),
      dev?.privateKey,
    )
    await checkAgainstState(tx, call.from, { state, baseFee: nextBaseFee(view) })
    return submit(deps, view, entry, tx.nonce, state)
  })
}

/** `blocks` blocks on the head, `interval` seconds apart, the first at `timestamp` when given */
async function mineBlocks(deps: DevDeps, id: string, request: { blocks?: bigint; interval?: bigint; timestamp?: bigint }): Promise<null> {
  const count = Number(request.blocks ?? 1n)
  await change(deps, id, async (view) => ({ ...(await mine(deps, view, count, { interval: request.interval, timestamp: request.timestamp })), result: null }))
  return null
}

/** automine on or off; turning it on mines what waits, as Anvil does */
function setAutomine(deps: DevDeps, id: string, enabled: boolean): Promise<null> {
  return change(deps, id, async (view) => {
    if (!enabled) return { record: { ...view.record, automine: false }, result: null }
    const mined = view.record.pool.length ? await mine(deps, view, 1) : undefined
    return { record: { ...(mined?.record ?? view.record), automine: true }, blocks: mined?.blocks, result: null }
  })
}

/** a snapshot of the fork's head, pool and clock; its id */
function snapshot(deps: DevDeps, id: string): Promise<Hex> {
  return change(deps, id, async (view) => {
    const sid = q(view.record.nextSnapshotId)
    return {
      record: { ...view.record, snapshots: { ...view.record.snapshots, [sid]: markOf(view.record) }, nextSnapshotId: view.record.nextSnapshotId + 1 },
      result: sid,
    }
  })
}

/** back to snapshot `sid`, dropping it and every later one; false (the fork unchanged) for an unknown one, as Anvil */
function revert(deps: DevDeps, id: string, sid: Hex): Promise<boolean> {
  return change(deps, id, async (view) => {
    const mark = view.record.snapshots[sid]
    if (!mark) return { record: view.record, result: false }
    const keep = Object.fromEntries(Object.entries(view.record.snapshots).filter(([k]) => BigInt(k) < BigInt(sid)))
    return { record: { ...view.record, ...mark, snapshots: keep, epoch: view.record.epoch + 1 }, result: true }
  })
}

/** the clock moved by `seconds`; the total offset (never below zero) */
function increaseTime(deps: DevDeps, id: string, seconds: bigint): Promise<Hex> {
  return change(deps, id, async (view) => {
    const offset = BigInt(view.record.timeOffset) + seconds
    return { record: { ...view.record, timeOffset: offset.toString() }, result: q(offset < 0n ? 0n : offset) }
  })
}

/** the next block's timestamp, after the head's; the clock continues from it (Anvil: the offset moves with it) */
function setNextBlockTimestamp(deps: DevDeps, id: string, timestamp: bigint): Promise<null> {
  return change(deps, id, async (view) => {
    if (timestamp <= lastTs(view)) {
      throw new EngineError('VALIDATION_ERROR', `Timestamp error: ${timestamp} is lower than or equal to previous block's timestamp`)
    }
    const offset = timestamp - BigInt(Math.floor(Date.now() / 1000))
    return { record: { ...view.record, nextTimestamp: timestamp.toString(), timeOffset: offset.toString() }, result: null }
  })
}

/** eth_sendTransaction accepts `address` as a sender without its key (`start`), or no longer */
function impersonate(deps: DevDeps, id: string, address: Address, start: boolean): Promise<null> {
  return change(deps, id, async (view) => {
    const rest = view.record.impersonated.filter((x) => x !== address)
    return { record: { ...view.record, impersonated: start ? [...rest, address] : rest }, result: null }
  })
}

/** Anvil's dump of every account the fork changed, as it is at the head */
async function dumpState(deps: DevDeps, id: string): Promise<Hex> {
  const view = await deps.forks.view(id)
  return encodeAnvilState(await anvilStateOf(changedByFork(view), await headState(view), headNumber(view)))
}

async function estimate(deps: DevDeps, chain: ChainSource, call: SendCall): Promise<bigint> {
  const out = await deps.estimateGas(chain, { call: { ...call, data: call.data }, block: { tag: 'latest' } } as CallParams)
  if ('gas' in out) return BigInt(out.gas)
  const message = out.revertReason !== undefined ? `execution reverted: ${out.revertReason}` : out.error
  // a revert carries its bytes, as eth_estimateGas answers them
  throw new EngineError('VALIDATION_ERROR', message, out.revertData !== undefined ? { revertData: out.revertData } : undefined)
}

/** a transaction accepted into the pool: mined at once with automine (unless its nonce leaves a gap) */
async function submit(deps: DevDeps, view: ForkView, entry: PoolTx, nonce: bigint, state: OverlayStateManager) {
  if (view.record.pool.some((t) => t.hash === entry.hash) || view.byHash.has(entry.hash)) {
    throw new EngineError('VALIDATION_ERROR', 'already known')
  }
  const stateNonce = (await state.getAccount(createAddressFromString(entry.from)))?.nonce ?? 0n
  if (!view.record.automine || nonce > stateNonce) {
    return { record: { ...view.record, pool: [...view.record.pool, entry] }, result: entry.hash }
  }
  // automine, as Anvil: the transaction in a block of its own, then each one it made ready (a
  // gap in a sender's nonces filled) in the next blocks
  let mined = await mine(deps, view, 1, { extra: [entry], onInvalid: 'throw', oneTx: true })
  const blocks = [...mined.blocks]
  while ((await readyOrder(mined.view, mined.record.pool)).ready.length > 0) {
    mined = await mine(deps, mined.view, 1, { oneTx: true })
    blocks.push(...mined.blocks)
  }
  return { record: mined.record, blocks, result: entry.hash, view: mined.view }
}

/** every account, code and slot the fork changed (mined and pending) */
function changedByFork(view: ForkView): StateWrites {
  const top = view.blocks.length ? view.blocks[view.blocks.length - 1]!.end : undefined
  const mined = top ? top.flatten() : undefined
  return (mined && view.pending ? mergeWrites(mined, view.pending) : (mined ?? view.pending)) ?? emptyWrites()
}

/** the fork starts over from its fork point, or from another block of the same upstream */
async function reset(deps: DevDeps, id: string, blockNumber: bigint | undefined): Promise<null> {
  return deps.forks.write(id, async (view) => {
    const number = blockNumber ?? BigInt(view.record.forkBlockNumber)
    const header = await view.base.chain.resolveBlock({ number })
    const record: ForkRecord = {
      ...view.record,
      forkBlockNumber: q(header.number),
      forkBlockHash: header.hash,
      epoch: view.record.epoch + 1,
      head: { number: q(header.number), hash: header.hash },
      pending: null,
      timeOffset: '0',
      nextTimestamp: null,
      nextBaseFee: null,
      transactionCount: 0,
      stateBytes: 0,
      pool: [],
      snapshots: {},
    }
    return { record, result: null }
  })
}
