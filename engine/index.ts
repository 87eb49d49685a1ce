/**
 * createEngine: the engine facade `src/` calls (engine/types.ts). It picks the chain source —
 * the embedded devnet when `rpcUrl` is empty (its demo history, or a chain imported from a genesis
 * and its blocks: `devnetImport`), else a JSON-RPC fork — and wires simulation, step
 * traces, stored simulations, access lists and the trace service over it.
 *
 * Every request resolves its block once to a fixed number and gets its own state manager and VM,
 * so concurrent requests share nothing mutable (only the fork cache of immutable block state).
 *
 * @example
 * const engine = await createEngine({ cache: createMemoryCacheStore(), gasCap: 50_000_000n,
 *   rpcTimeoutMs: 10_000, maxStructLogSteps: 100_000, simulationTtlSeconds: 86_400 })
 * const result = await engine.simulate({ calls, block: { tag: 'latest' }, validation: false, ... })
 */
import { createAccessList } from './operations/accessList/createAccessList.js'
import { createRpcChain } from './chains/remote/rpcChain.js'
import { newUpstreamBudget, upstreamBudgetMs, type UpstreamBudget } from './upstream/upstreamBudget.js'
import type { ChainSource } from './chains/types.js'
import { createDevnet } from './chains/devnet/devnetChain.js'
import { createImportedDevnet } from './chains/devnet/importedDevnet.js'
import { demoTokenAbi } from './chains/devnet/demoTransactions.js'
import { EngineError, isEngineError, toEngineError } from './platform/errors.js'
import { registerErrorAbi } from './operations/simulation/revertReason.js'
import { readChain } from './operations/reads/chainReads.js'
import { runCall } from './operations/simulation/call.js'
import { estimateGas } from './operations/simulation/estimateGas.js'
import { simulate } from './operations/simulation/simulate.js'
import { previewSignature } from './operations/signature/previewSignature.js'
import { simulateSteps } from './operations/simulation/simulateSteps.js'
import { simulateV1 } from './operations/simulateV1/simulateV1.js'
import { loadSimulation } from './operations/simulation/simulationStore.js'
import { createTraceService } from './operations/trace/index.js'
import { DEFAULT_SPILL_THRESHOLD_BYTES, newSpillOwner, removeSpillOwner, type SpillOptions } from './platform/spill/spillFiles.js'
import type { RunDeps } from './run/index.js'
import type { ChainOperations, Engine, EngineOptions, ForkOperation, RunStop } from './types.js'
import { FORK_OPERATIONS } from './types.js'
import { createForkService } from './chains/forks/forkService.js'
import { createMemoryForkStore } from './chains/forks/memoryForkStore.js'
import { createUnavailableForkStore } from './chains/forks/unavailableForkStore.js'
import { forkChainOf } from './chains/forks/forkChain.js'
import { forkRpc } from './chains/forks/devMethods.js'
import { DEFAULT_FORK_LIMITS } from './chains/forks/types.js'

export type { Engine, EngineOptions } from './types.js'

export async function createEngine(opts: EngineOptions): Promise<Engine> {
  // '' (an empty config value) means "not set", like undefined
  const hardfork = opts.hardfork || undefined
  if (opts.rpcUrl && !isHttpUrl(opts.rpcUrl)) {
    // never echo the value: it may hold an API key
    throw new EngineError(
      'VALIDATION_ERROR',
      'rpc_url must be an http:// or https:// URL',
      undefined,
      'set RPC_URL to the JSON-RPC endpoint, or leave it empty for the embedded devnet',
    )
  }
  const chain: ChainSource = opts.rpcUrl
    ? await createRpcChain({
        url: opts.rpcUrl,
        timeoutMs: opts.rpcTimeoutMs,
        cache: opts.cache,
        hardfork,
        kind: opts.chainKind,
        headMaxAgeMs: opts.headMaxAgeMs,
        forkCacheBytes: opts.forkCacheBytes,
        knownChainId: opts.knownChainId,
      })
    : opts.devnetImport
      ? await createImportedDevnet(opts.devnetImport)
      : await createDevnet({ hardfork, ...(opts.chainKind && { kind: opts.chainKind }) })
  if (opts.expectChainId !== undefined && chain.chainId !== opts.expectChainId) {
    await chain.close()
    throw new EngineError(
      'VALIDATION_ERROR',
      `the upstream answers chain id ${chain.chainId}, not the configured ${opts.expectChainId}`,
      {
        chainId: chain.chainId,
        expected: opts.expectChainId,
      },
      'point rpc_url at the chain configured, or correct its chain_id',
    )
  }
  if (!opts.rpcUrl && !opts.devnetImport) registerErrorAbi(demoTokenAbi)
  const deps: RunDeps = {
    chain,
    cache: opts.cache,
    gasCap: opts.gasCap,
    simulationTtlSeconds: opts.simulationTtlSeconds,
    maxStructLogSteps: opts.maxStructLogSteps,
  }
  const spill: SpillOptions | undefined = opts.spill && {
    owner: opts.spill.owner ?? newSpillOwner('engine'),
    thresholdBytes: opts.spill.thresholdBytes ?? DEFAULT_SPILL_THRESHOLD_BYTES,
    maxBytes: opts.spill.maxBytes,
  }
  // one budget per engine call for all its upstream waiting, retries and phases included
  const budgetMs = opts.upstreamBudgetMs ?? upstreamBudgetMs(opts.rpcTimeoutMs)
  // health answers within about a second: a probe the upstream leaves unanswered is a "no"
  const probeMs = Math.min(HEALTH_PROBE_MS, budgetMs)
  /** the chain as one engine call sees it: every upstream wait ends by the call's budget */
  const chainFor = (budget: UpstreamBudget): ChainSource => chain.withBudget?.(budget) ?? chain
  const traces = (c: ChainSource) => createTraceService(c, { ...deps, spill })

  /** what each operation runs over one chain source (the engine's own, or a writable fork's), written once */
  const runsOf: { [K in ForkOperation]: (d: RunDeps, ...args: Parameters<ChainOperations[K]>) => ReturnType<ChainOperations[K]> } = {
    simulate: (d, params) => simulate(d, params),
    simulateSteps: (d, params) => simulateSteps(d, params),
    getSimulation: (_d, id) => loadSimulation(opts.cache, id),
    accessList: (d, params) => createAccessList(d, params),
    traceTransaction: (d, hash, tracerConfig, overrides) => traces(d.chain).traceTransaction(hash, tracerConfig, overrides),
    traceCall: (d, params) => traces(d.chain).traceCall(params),
    traceCallMany: (d, params) => traces(d.chain).traceCallMany(params),
    simulateV1: (d, params) => simulateV1(d, params),
    traceBlock: (d, params) => traces(d.chain).traceBlock(params),
    call: (d, params) => runCall(d, params),
    estimateGas: (d, params) => estimateGas(d, params),
    readChain: (d, method, params) => readChain({ chain: d.chain, cache: opts.cache }, method, params),
  }
  /** operation `method` of `over`, its runs stopping where `stop` says */
  const runOver = (over: ChainSource, stop: RunStop | undefined, method: ForkOperation, args: unknown[]): Promise<unknown> => {
    const run = runsOf[method] as (d: RunDeps, ...a: unknown[]) => Promise<unknown>
    return guard(over, (d) => run(d, ...args), stop)
  }
  const forks = createForkService({
    chain,
    store: opts.forksUnavailable !== undefined ? createUnavailableForkStore(opts.forksUnavailable) : (opts.forkStore ?? createMemoryForkStore()),
    limits: { ...DEFAULT_FORK_LIMITS, ...opts.forkLimits },
  })

  /**
   * The engine, its runs stopping where `stop` says. Every request takes its own view
   * (Engine.withStop), so a view is one small object: its methods sit on the prototype, made once
   * per engine: those of `runsOf` are added to it below.
   */
  // biome-ignore lint/correctness/noUnusedVariables: merged with the class below, which gets these methods on its prototype
  interface EngineView extends ChainOperations {}
  // biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface lists the operations the loop below puts on the prototype
  class EngineView implements Engine {
    constructor(readonly stop: RunStop | undefined) {}
    previewSignature(params: Parameters<Engine['previewSignature']>[0]) {
      return guard(chain, (d) => previewSignature({ ...d, simulate: (p) => simulate(d, p) }, params), this.stop)
    }
    createFork(params: Parameters<Engine['createFork']>[0]) {
      return guard(chain, () => forks.create(params))
    }
    getFork(forkId: string) {
      return guard(chain, () => forks.get(forkId))
    }
    listForks() {
      return guard(chain, () => forks.list())
    }
    deleteFork(forkId: string) {
      return guard(chain, () => forks.delete(forkId))
    }
    onFork<M extends ForkOperation>(forkId: string, method: M, args: Parameters<Engine[M]>): Promise<Awaited<ReturnType<Engine[M]>>> {
      type Answer = Awaited<ReturnType<Engine[M]>>
      return guard(chain, async (): Promise<Answer> => {
        const forkChain = forkChainOf(await forks.view(forkId))
        if (!FORK_OPERATIONS.includes(method)) throw new EngineError('VALIDATION_ERROR', `${String(method)} does not run on a fork`)
        return (await runOver(forkChain, this.stop, method, args)) as Answer
      })
    }
    forkRpc(forkId: string, request: Parameters<Engine['forkRpc']>[1]) {
      const stop = this.stop
      return guard(chain, () =>
        forkRpc({ forks, estimateGas: (c, p) => estimateGas({ ...deps, chain: stopsRuns(stop) ? stoppedAt(c, stop) : c }, p) }, forkId, request),
      )
    }
    health() {
      return health()
    }
    metrics() {
      return metrics()
    }
    close() {
      return close()
    }
    withStop(s: RunStop): Engine {
      return new EngineView(s)
    }
  }
  for (const method of Object.keys(runsOf) as ForkOperation[]) {
    ;(EngineView.prototype as unknown as Record<string, unknown>)[method] = function (this: EngineView, ...args: unknown[]) {
      return runOver(chain, this.stop, method, args)
    }
  }
  return new EngineView(undefined)

  async function health() {
    const [upstreamOk, cacheOk] = await Promise.all([
      chainFor(newUpstreamBudget(probeMs))
        .ping()
        .catch(() => false),
      opts.cache.ping().catch(() => false),
    ])
    return { network: chain.network, chainId: chain.chainId, kind: chain.rules?.kind ?? ('ethereum' as const), upstreamOk, cacheOk }
  }

  async function metrics() {
    // a fork store out of reach counts none open rather than failing the scrape
    return { ...chain.metrics?.(), forksOpen: await forks.count().catch(() => 0) }
  }

  async function close() {
    // files of this engine that nobody claimed; a claimed one is already unlinked
    if (spill) removeSpillOwner(spill.owner)
    await forks.close()
    await chain.close()
  }

  /**
   * Every failure leaves the engine as an EngineError (interface §2): a raw exception here is a
   * bug, reported as INTERNAL_ERROR with a generic message (the real one is logged, never sent:
   * it could carry an upstream URL).
   */
  async function guard<T>(over: ChainSource, run: (deps: RunDeps) => Promise<T>, stop?: RunStop): Promise<T> {
    try {
      // one upstream budget for the whole call, the rerun on a forgotten head included
      // its observer hears when the call waits on the upstream (RunStop.onUpstreamWait)
      const budget = newUpstreamBudget(budgetMs, stop?.onUpstreamWait)
      const runStop = stopsRuns(stop) ? stop : undefined
      const callChain = over.withBudget ? over.withBudget(budget, runStop) : runStop ? stoppedAt(over, runStop) : over
      const callDeps = { ...deps, chain: callChain }
      return await run(callDeps).catch((e: unknown) => {
        // a tracked head the upstream no longer knows (a reorg, a dev chain reverted): run once
        // more on `latest` resolved anew, never fail the request for it
        if (isEngineError(e) && blockUnknown(toEngineError(e)) && over.forgetHead?.()) return run(callDeps)
        throw e
      })
    } catch (e) {
      if (isEngineError(e)) throw prunedAsBlockNotFound(toEngineError(e))
      const redact = (text: string | undefined) => (text && opts.rpcUrl ? text.split(opts.rpcUrl).join('[rpc url]') : text)
      const err = e instanceof Error ? { name: e.name, message: redact(e.message), stack: redact(e.stack) } : redact(String(e))
      opts.logger?.error({ err }, 'engine: unexpected error')
      throw new EngineError('INTERNAL_ERROR', 'internal error while executing the request')
    }
  }
}

/** a stop that can end a run: a deadline or a signal (an observer alone stops nothing) */
function stopsRuns(stop: RunStop | undefined): stop is RunStop {
  return stop !== undefined && (stop.deadline !== undefined || stop.signal !== undefined)
}

/**
 * the chain as one engine call sees it: every execution context opened on it carries `stop`. For
 * a chain that makes no per-call view (the devnet); one that does carries the stop in it
 * (`ChainSource.withBudget`)
 */
function stoppedAt(chain: ChainSource, stop: RunStop): ChainSource {
  return Object.create(chain, { runStop: { value: stop, enumerable: true } }) as ChainSource
}

/** how long a health probe waits for the upstream, ms */
const HEALTH_PROBE_MS = 800

/** how nodes say "I no longer hold that block's state" (geth, Erigon, Reth, Nethermind, Anvil) */
const PRUNED_STATE = /missing trie node|historical state|state (is )?not available|pruned|BlockOutOfRange|proof window|header not found/i

/**
 * interface §2: a block whose state the upstream pruned is BLOCK_NOT_FOUND, not an upstream
 * failure. The node's verdict arrives as a STATE_ACCESS_ERROR carrying its JSON-RPC error code.
 */
function prunedAsBlockNotFound(e: EngineError): EngineError {
  if (!upstreamLacksState(e)) return e
  return new EngineError(
    'BLOCK_NOT_FOUND',
    'the state of the selected block is not available upstream (pruned by the node)',
    { method: e.details?.method },
    'select a more recent block, or configure an archive node as rpc_url',
  )
}

/** the node's JSON-RPC error says it holds no state (or no header) for the block asked */
function upstreamLacksState(e: EngineError): boolean {
  return e.code === 'STATE_ACCESS_ERROR' && e.details?.rpcCode !== undefined && PRUNED_STATE.test(e.message)
}

/** the block a request ran on is unknown upstream (past its head, or no state for it) */
function blockUnknown(e: EngineError): boolean {
  return e.code === 'BLOCK_NOT_FOUND' || upstreamLacksState(e)
}

function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url)
    return u.protocol === 'http:' || u.protocol === 'https:'
  } catch {
    return false
  }
}
