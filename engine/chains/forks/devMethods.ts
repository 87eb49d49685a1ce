/**
 * What a development node answers on top of a chain's reads, on a writable fork, with Anvil's
 * request and result shapes (and the `hardhat_*` / `evm_*` names of the same methods): sending
 * (eth_sendRawTransaction, eth_sendTransaction), mining (automine, evm_mine, anvil_mine), time,
 * snapshots, cheats on the state, impersonation, dumps and resets.
 *
 * Every change is a `write` of the fork service: it runs on the newest head and lands as one
 * atomic commit (a new block with its receipts and state changes, or a new record), or not at all.
 */
import type { Address } from 'viem'
import type { ChainSource } from '../types.js'
import { DEV_ACCOUNTS, DEVNET_CHAIN_ID } from '../memory/accounts.js'
import { EngineError } from '../../platform/errors.js'
import type { CallParams, GasEstimate } from '../../execution/types.js'
import { decodePoolTx, forkChainOf, headNumber, indexBlocks, loadBlock, type ForkView } from './forkChain.js'
import { mineForkBlock, nextForkBaseFee } from './forkMiner.js'
import { DiffLayer, emptyWrites, mergeWrites, writesToJson } from './forkState.js'
import { anvilStateOf, encodeAnvilState, parseAnvilState } from './anvilState.js'
import type { ForkService } from './forkService.js'
import { acceptRawTransaction, buildSentTransaction, checkAgainstState, type SendCall } from './sendTransaction.js'
import * as p from './devParams.js'
import { storedBlockJson, type ForkMark, type ForkRecord, type PoolTx, type StoredBlock } from './types.js'
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

export async function forkRpc(deps: DevDeps, id: string, method: string, params: unknown[]): Promise<unknown> {
  const { forks } = deps
  const change = <T>(fn: (view: ForkView) => Promise<{ record: ForkRecord; blocks?: StoredBlock[]; result: T }>) => forks.write(id, fn)
  const cheat = (overrides: (view: ForkView) => Promise<StateOverrides>, result: unknown) =>
    change(async (view) => {
      const state = await headState(view)
      await state.applyOverrides(await overrides(view))
      const writes = view.pending ? mergeWrites(view.pending, state.flatten()) : state.flatten()
      return { record: { ...view.record, pending: writesToJson(writes) }, result }
    })
  const name = method.replace(/^hardhat_/, 'anvil_')
  const hardhat = method.startsWith('hardhat_')

  switch (name) {
    case 'eth_sendRawTransaction':
      return change(async (view) => {
        const chain = forkChainOf(view)
        const state = await headState(view)
        const { entry, tx } = await acceptRawTransaction(p.required(params, 0), chain.commonAt(view.base.header), view.record.chainId, {
          state,
          baseFee: nextBaseFee(view),
          pendingNonce: (a) => pendingNonce(view, a, state),
        })
        return submit(deps, view, entry, tx.nonce, state)
      })
    case 'eth_sendTransaction':
      return change(async (view) => {
        const call = p.sendCall(p.required(params, 0))
        const chain = forkChainOf(view)
        const dev =
          view.record.chainId === DEVNET_CHAIN_ID && view.base.chain.network === 'devnet' ? DEV_ACCOUNTS.find((a) => a.address === call.from) : undefined
        if (!dev && !view.record.autoImpersonate && !view.record.impersonated.includes(call.from)) {
          throw new EngineError(
            'VALIDATION_ERROR',
            `No Signer available for ${call.from}`,
            { rpcCode: -32000, rpcMessage: `No Signer available for ${call.from}` },
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
    case 'eth_getTransactionCount': {
      const view = await forks.view(id)
      const address = p.address(params[0], 0)
      if (params[1] === 'pending') return q(await pendingNonce(view, address))
      throw new EngineError('INTERNAL_ERROR', 'eth_getTransactionCount without pending is a chain read')
    }
    case 'evm_mine':
    case 'anvil_mine': {
      // evm_mine [timestamp]; anvil_mine [count, interval]
      const count = name === 'anvil_mine' ? Number(p.optQuantity(params[0], 0) ?? 1n) : 1
      const interval = name === 'anvil_mine' ? p.optQuantity(params[1], 1) : undefined
      const timestamp =
        name === 'evm_mine'
          ? p.optQuantity(typeof params[0] === 'object' && params[0] !== null ? (params[0] as { timestamp?: unknown }).timestamp : params[0], 0)
          : undefined
      if (count < 1) throw p.bad(0, 'the number of blocks must be at least 1')
      await change(async (view) => ({ ...(await mine(deps, view, count, { interval, timestamp })), result: null }))
      return name === 'evm_mine' ? '0x0' : null
    }
    case 'evm_setAutomine':
    case 'anvil_setAutomine': {
      const on = p.bool(params[0], 0)
      return change(async (view) => {
        if (!on) return { record: { ...view.record, automine: false }, result: hardhat ? true : null }
        // turning it on mines what waits, as Anvil does
        const mined = view.record.pool.length ? await mine(deps, view, 1) : undefined
        return { record: { ...(mined?.record ?? view.record), automine: true }, blocks: mined?.blocks, result: hardhat ? true : null }
      })
    }
    case 'anvil_getAutomine':
      return (await forks.view(id)).record.automine
    case 'evm_snapshot':
    case 'anvil_snapshot':
      return change(async (view) => {
        const sid = q(view.record.nextSnapshotId)
        return {
          record: { ...view.record, snapshots: { ...view.record.snapshots, [sid]: markOf(view.record) }, nextSnapshotId: view.record.nextSnapshotId + 1 },
          result: sid,
        }
      })
    case 'evm_revert':
    case 'anvil_revert': {
      const sid = q(p.quantity(p.required(params, 0), 0))
      return change(async (view) => {
        const mark = view.record.snapshots[sid]
        // Anvil: an unknown snapshot is `false`, the fork unchanged
        if (!mark) return { record: view.record, result: false }
        // reverting drops this snapshot and every later one
        const keep = Object.fromEntries(Object.entries(view.record.snapshots).filter(([k]) => BigInt(k) < BigInt(sid)))
        return { record: { ...view.record, ...mark, snapshots: keep, epoch: view.record.epoch + 1 }, result: true }
      })
    }
    case 'evm_increaseTime':
    case 'anvil_increaseTime': {
      const by = p.quantityOrNumber(p.required(params, 0), 0)
      return change(async (view) => {
        const offset = BigInt(view.record.timeOffset) + by
        return { record: { ...view.record, timeOffset: offset.toString() }, result: q(offset < 0n ? 0n : offset) }
      })
    }
    case 'evm_setNextBlockTimestamp':
    case 'anvil_setNextBlockTimestamp': {
      const ts = p.quantityOrNumber(p.required(params, 0), 0)
      return change(async (view) => {
        if (ts <= lastTs(view)) {
          throw new EngineError('VALIDATION_ERROR', `Timestamp error: ${ts} is lower than or equal to previous block's timestamp`, { rpcCode: -32000 })
        }
        // the clock continues from the set time (Anvil: the offset moves with it)
        const offset = ts - BigInt(Math.floor(Date.now() / 1000))
        return { record: { ...view.record, nextTimestamp: ts.toString(), timeOffset: offset.toString() }, result: null }
      })
    }
    case 'anvil_setNextBlockBaseFeePerGas': {
      const fee = p.quantity(p.required(params, 0), 0)
      return change(async (view) => ({ record: { ...view.record, nextBaseFee: fee.toString() }, result: hardhat ? true : null }))
    }
    case 'anvil_setBalance': {
      const a = p.address(params[0], 0)
      const balance = p.quantity(p.required(params, 1), 1)
      return cheat(async () => ({ [a]: { balance } }), hardhat ? true : null)
    }
    case 'anvil_setNonce': {
      const a = p.address(params[0], 0)
      const nonce = p.quantity(p.required(params, 1), 1)
      return cheat(async () => ({ [a]: { nonce } }), hardhat ? true : null)
    }
    case 'anvil_setCode': {
      const a = p.address(params[0], 0)
      const code = p.data(p.required(params, 1), 1)
      return cheat(async () => ({ [a]: { code } }), hardhat ? true : null)
    }
    case 'anvil_setStorageAt': {
      const a = p.address(params[0], 0)
      const slot = p.word(p.required(params, 1), 1)
      const value = p.word(p.required(params, 2), 2)
      return cheat(async () => ({ [a]: { stateDiff: { [slot]: value } } }), true)
    }
    case 'anvil_impersonateAccount':
    case 'anvil_stopImpersonatingAccount': {
      const a = p.address(params[0], 0)
      const start = name === 'anvil_impersonateAccount'
      return change(async (view) => {
        const rest = view.record.impersonated.filter((x) => x !== a)
        return { record: { ...view.record, impersonated: start ? [...rest, a] : rest }, result: hardhat ? true : null }
      })
    }
    case 'anvil_autoImpersonateAccount': {
      const on = p.bool(params[0], 0)
      return change(async (view) => ({ record: { ...view.record, autoImpersonate: on }, result: null }))
    }
    case 'anvil_dumpState': {
      const view = await forks.view(id)
      return encodeAnvilState(await anvilStateOf(changedByFork(view), await headState(view), headNumber(view)))
    }
    case 'anvil_loadState': {
      const loaded = parseAnvilState(p.required(params, 0), 0)
      return cheat(async () => loaded, true)
    }
    case 'anvil_reset':
      return reset(deps, id, params)
  }
  throw new EngineError('NOT_FOUND', `the method ${method} does not exist/is not available`, { unsupportedMethod: true })
}

async function estimate(deps: DevDeps, chain: ChainSource, call: SendCall): Promise<bigint> {
  const out = await deps.estimateGas(chain, { call: { ...call, data: call.data }, block: { tag: 'latest' } } as CallParams)
  if ('gas' in out) return BigInt(out.gas)
  const message = out.revertReason !== undefined ? `execution reverted: ${out.revertReason}` : out.error
  throw new EngineError('VALIDATION_ERROR', message, {
    rpcCode: out.revertData !== undefined ? 3 : -32000,
    rpcMessage: message,
    ...(out.revertData && { rpcData: out.revertData }),
  })
}

/** a transaction accepted into the pool: mined at once with automine (unless its nonce leaves a gap) */
async function submit(deps: DevDeps, view: ForkView, entry: PoolTx, nonce: bigint, state: OverlayStateManager) {
  if (view.record.pool.some((t) => t.hash === entry.hash) || view.byHash.has(entry.hash)) {
    throw new EngineError('VALIDATION_ERROR', 'already known', { rpcCode: -32000, rpcMessage: 'already known' })
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

/** anvil_reset: the fork starts over from its fork point, or from another block of the same upstream */
async function reset(deps: DevDeps, id: string, params: unknown[]): Promise<null> {
  const opts = p.resetOptions(params[0])
  return deps.forks.write(id, async (view) => {
    const number = opts.blockNumber ?? BigInt(view.record.forkBlockNumber)
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
