/**
 * The prefetch policy of a fork run: whether its state is fetched ahead from the upstream's
 * eth_createAccessList hints (cold), or it runs on what is held (warm), decided without I/O.
 *
 * - A cold run asks the block and the calls' hints in ONE batch, then every account and slot they
 *   name in one more: 2 round trips instead of 3.
 * - A run looks warm at the block it will run at when the hint for these very calls is held
 *   there, or, when that block is fixed (a number, or the tracked head), when every account the
 *   calls name was read at it already (the same contracts with other arguments): what it still
 *   lacks is read when the run reads it, in the round trip a hint costs.
 * - Once a warm-looking run's block is resolved: at the guessed block it reads by the hints held
 *   or, without one, by its accounts (no hint asked); past it (the head moved) the hints held at
 *   the guess still name what the calls touch (hints, never state), so the new block's state is
 *   read in one batch at once.
 */
import type { Hex } from 'viem'
import type { BlockTag } from '../../platform/blockRef.js'
import type { PrefetchCalls } from '../types.js'

/** what the policy knows of the chain and of what is held, asked only as it decides */
export interface PrefetchView {
  /** the tracked head's number while within its age: a `latest` run is at it without asking */
  trackedHead: bigint | undefined
  /** the head seen at `latest` while it counts as the head: a guess of where a `latest` run lands */
  recentHead: bigint | undefined
  /** the upstream's hint for these calls is held at `block` */
  hintsHeld(block: bigint, calls: PrefetchCalls): boolean
  /** every one of these accounts was read at `block` already */
  holdsAccounts(block: bigint, accounts: Hex[]): boolean
}

export interface RunPlan {
  /** the block the run is expected at without asking the upstream; undefined: unknown */
  guess: bigint | undefined
  /** warm: resolve the block alone, then read what is known; cold: block and hints in one batch */
  warm: boolean
}

/** the accounts a run's calls name (senders and targets), lower-case */
export function namedAccounts(calls: PrefetchCalls): Hex[] {
  return calls.flatMap((c) => (c.to ? [c.from, c.to] : [c.from])).map((a) => a.toLowerCase() as Hex)
}

/** whether a run of `calls` at `selector` is warm, and at which block it is expected */
export function planRun(selector: { number: bigint } | { tag: BlockTag }, calls: PrefetchCalls, view: PrefetchView): RunPlan {
  const latest = 'tag' in selector && selector.tag === 'latest'
  const tracked = view.trackedHead
  const guess = 'number' in selector ? selector.number : latest ? (tracked ?? view.recentHead) : undefined
  // the run will be at `guess` without asking (a number, or the tracked head): only then may
  // held accounts stand in for a hint; at a `latest` asked anew the head may have moved
  const fixed = 'number' in selector || tracked !== undefined
  return { guess, warm: calls.length === 0 || (guess !== undefined && warmAt(guess, calls, fixed, view)) }
}

function warmAt(block: bigint, calls: PrefetchCalls, fixed: boolean, view: PrefetchView): boolean {
  if (view.hintsHeld(block, calls)) return true
  if (!fixed) return false
  return view.holdsAccounts(block, namedAccounts(calls))
}

/**
 * How a warm-looking run reads its state once its block resolved:
 * - `hinted`: at the guessed block, by the hint held there;
 * - `accounts`: at the guessed block, by its accounts alone (no hint is asked; what is missing is
 *   read when read);
 * - `moved`: the head moved past the guess, whose hints are held: they are reused at the new block;
 * - `ask`: neither (the prefetch asks the hints).
 */
export type WarmRead = 'hinted' | 'accounts' | 'moved' | 'ask'

export function warmRead(resolved: bigint, guess: bigint | undefined, calls: PrefetchCalls, view: Pick<PrefetchView, 'hintsHeld'>): WarmRead {
  if (resolved === guess) return view.hintsHeld(guess, calls) ? 'hinted' : 'accounts'
  if (guess !== undefined && view.hintsHeld(guess, calls)) return 'moved'
  return 'ask'
}
