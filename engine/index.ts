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
 * const result = await engine.simulate(ON_CHAIN, { calls, block: { tag: 'latest' }, validation: false, ... })
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
import type {
  AccessListParams,
  CallParams,
  CreateForkParams,
  Engine,
  EngineOptions,
  ForkAt,
  ForkDevRequest,
  RunAt,
  RunStop,
  SignaturePreviewParams,
  SimulateParams,
  SimulateV1Params,
  StepTraceParams,
  TraceBlockParams,
  TraceCallManyParams,
  TraceCallParams,
  TracerConfig,
} from './types.js'
import type { Hex } from 'viem'
import type { ForkService } from './chains/forks/forkService.js'
import { createForkService } from './chains/forks/forkService.js'
import { createMemoryForkStore } from './chains/forks/memoryForkStore.js'
import { createUnavailableForkStore } from './chains/forks/unavailableForkStore.js'
import { forkChainOf } from './chains/forks/forkChain.js'
import { forkRpc } from './chains/forks/devMethods.js'
import { runStopInstalled } from './execution/runStop.js'
import { leanStepHookInstalled } from './execution/leanStepHook.js'
import { evmTablesInstalled } from './execution/evmTables.js'
import { DEFAULT_FORK_LIMITS } from './chains/forks/types.js'
import { createSourceRegistry, type SourceRegistry } from './sources/registry.js'
import { createSourcifySources } from './sources/verifiedSources.js'

export type { Engine, EngineOptions } from './types.js'

/**
 * Whether the interpreter this engine runs is the patched one (patches/: its loop carries the run's
 * stop watch) and the engine's hooks sit on it: what a packaged build, bundled or not, is checked by.
 */
export function interpreterHooks(): { patchedLoop: boolean; leanStep: boolean; opcodeTables: boolean } {
  return { patchedLoop: runStopInstalled, leanStep: leanStepHookInstalled, opcodeTables: evmTablesInstalled.opcodes }
}

export async function createEngine(opts: EngineOptions): Promise<Engine> {
  const chain = await openChainSource(opts)
  if (!opts.rpcUrl && !opts.devnetImport) registerErrorAbi(demoTokenAbi)
  // one budget per engine call for all its upstream waiting, retries and phases included
  const budgetMs = opts.upstreamBudgetMs ?? upstreamBudgetMs(opts.rpcTimeoutMs)
  const sources = openSourceRegistry(opts, budgetMs)
  const deps: RunDeps = {
    sources,
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
  const forkStore = opts.forksUnavailable !== undefined ? createUnavailableForkStore(opts.forksUnavailable) : (opts.forkStore ?? createMemoryForkStore())
  const forks = createForkService({ chain, store: forkStore, limits: { ...DEFAULT_FORK_LIMITS, ...opts.forkLimits } })
  return new EngineFacade({ opts, deps, forks, spill, budgetMs, sources })
}

/** the sources registry on the engine's cache store, with the Sourcify-compatible service when configured */
function openSourceRegistry(opts: EngineOptions, budgetMs: number): SourceRegistry {
  const maxBytes = opts.sources?.maxBytes ?? DEFAULT_SOURCES_MAX_BYTES
  const url = opts.sources?.sourcifyUrl
  const verified = url ? createSourcifySources({ url, cache: opts.cache, budgetMs, maxBytes }) : undefined
  return createSourceRegistry({ cache: opts.cache, maxBytes, ...(verified && { verified }) })
}

const DEFAULT_SOURCES_MAX_BYTES = 64 * 2 ** 20

/** the chain source of the options: a JSON-RPC fork of `rpcUrl`, else the embedded devnet (its demo history, or an imported chain) */
async function openChainSource(opts: EngineOptions): Promise<ChainSource> {
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
      { chainId: chain.chainId, expected: opts.expectChainId },
      'point rpc_url at the chain configured, or correct its chain_id',
    )
  }
  return chain
}

interface FacadeParts {
  opts: EngineOptions
  deps: RunDeps
  forks: ForkService
  spill: SpillOptions | undefined
  budgetMs: number
  sources: SourceRegistry
}

/**
 * The engine of one chain: each operation one line, naming the function that answers it and
 * running it where `at` says — the chain's own state, or a writable fork's (`at.fork`), its runs
 * stopping at `at.stop`. `at.chain` was routed on by the host before the call reached here.
 */
class EngineFacade implements Engine {
  constructor(private readonly parts: FacadeParts) {}

  simulate(at: RunAt, params: SimulateParams) {
    return this.#run(at, (d) => simulate(d, params))
  }
  previewSignature(at: RunAt, params: SignaturePreviewParams) {
    return this.#run(at, (d) => previewSignature({ ...d, simulate: (p) => simulate(d, p) }, params))
  }
  simulateSteps(at: RunAt, params: StepTraceParams) {
    return this.#run(at, (d) => simulateSteps(d, params))
  }
  getSimulation(at: RunAt, id: string) {
    return this.#run(at, () => loadSimulation(this.parts.opts.cache, id))
  }
  accessList(at: RunAt, params: AccessListParams) {
    return this.#run(at, (d) => createAccessList(d, params))
  }
  traceTransaction(at: RunAt, hash: Hex, tracerConfig: TracerConfig, overrides?: Parameters<Engine['traceTransaction']>[3]) {
    return this.#run(at, (d) => this.#traces(d).traceTransaction(hash, tracerConfig, overrides))
  }
  traceCall(at: RunAt, params: TraceCallParams) {
    return this.#run(at, (d) => this.#traces(d).traceCall(params))
  }
  traceCallMany(at: RunAt, params: TraceCallManyParams) {
    return this.#run(at, (d) => this.#traces(d).traceCallMany(params))
  }
  simulateV1(at: RunAt, params: SimulateV1Params) {
    return this.#run(at, (d) => simulateV1(d, params))
  }
  traceBlock(at: RunAt, params: TraceBlockParams) {
    return this.#run(at, (d) => this.#traces(d).traceBlock(params))
  }
  call(at: RunAt, params: CallParams) {
    return this.#run(at, (d) => runCall(d, params))
  }
  estimateGas(at: RunAt, params: CallParams) {
    // a writable fork answers as Anvil, to the exact minimum (docs/decisions/0128-fork-gas-estimates-as-anvil.md); a chain as geth
    return this.#run(at, (d) => estimateGas(d, params, at.fork ? 0 : undefined))
  }
  readChain(at: RunAt, method: string, params: unknown[]) {
    return this.#run(at, (d) => readChain({ chain: d.chain, cache: this.parts.opts.cache }, method, params))
  }
  createFork(_at: RunAt, params: CreateForkParams) {
    return this.#guard(() => this.parts.forks.create(params))
  }
  getFork(_at: RunAt, forkId: string) {
    return this.#guard(() => this.parts.forks.get(forkId))
  }
  listForks(_at: RunAt) {
    return this.#guard(() => this.parts.forks.list())
  }
  deleteFork(_at: RunAt, forkId: string) {
    return this.#guard(() => this.parts.forks.delete(forkId))
  }
  registerSources(_at: RunAt, buildInfo: unknown) {
    return this.#guard(() => this.parts.sources.register(buildInfo))
  }
  listSources(_at: RunAt) {
    return this.#guard(() => this.parts.sources.list())
  }
  forkRpc(at: ForkAt, request: ForkDevRequest) {
    const { deps, forks } = this.parts
    const stop = runStopping(at.stop)
    const gasOn = (c: ChainSource) => (stop ? stoppedAt(c, stop) : c)
    return this.#guard(() => forkRpc({ forks, estimateGas: (c, p) => estimateGas({ ...deps, chain: gasOn(c) }, p, 0) }, at.fork, request))
  }
  async health(_at: RunAt) {
    const { deps, opts, budgetMs } = this.parts
    const { chain } = deps
    // health answers within about a second: a probe the upstream leaves unanswered is a "no"
    const probe = newUpstreamBudget(Math.min(HEALTH_PROBE_MS, budgetMs))
    const [upstreamOk, cacheOk] = await Promise.all([(chain.withBudget?.(probe) ?? chain).ping().catch(() => false), opts.cache.ping().catch(() => false)])
    return { network: chain.network, chainId: chain.chainId, kind: chain.rules?.kind ?? ('ethereum' as const), upstreamOk, cacheOk }
  }
  async metrics() {
    // a fork store out of reach counts none open rather than failing the scrape
    return { ...this.parts.deps.chain.metrics?.(), forksOpen: await this.parts.forks.count().catch(() => 0) }
  }
  async close() {
    const { spill, forks, deps } = this.parts
    // files of this engine that nobody claimed; a claimed one is already unlinked
    if (spill) removeSpillOwner(spill.owner)
    await forks.close()
    await deps.chain.close()
  }

  #traces(d: RunDeps) {
    return createTraceService(d.chain, { ...this.parts.deps, spill: this.parts.spill })
  }

  /** `run` over the chain `at` names: the engine's own, or a writable fork's (its head is `latest`; the fork never changes by it) */
  #run<T>(at: RunAt, run: (deps: RunDeps) => Promise<T>): Promise<T> {
    if (at.fork === undefined) return this.#guard(() => this.#runOver(this.parts.deps.chain, at.stop, run))
    const fork = at.fork
    return this.#guard(async () => this.#runOver(forkChainOf(await this.parts.forks.view(fork)), at.stop, run))
  }

  /** one engine call over `over`: one upstream budget, its stop, and one rerun on a forgotten head */
  #runOver<T>(over: ChainSource, stop: RunStop | undefined, run: (deps: RunDeps) => Promise<T>): Promise<T> {
    // its observer hears when the call waits on the upstream (RunStop.onUpstreamWait)
    const budget = newUpstreamBudget(this.parts.budgetMs, stop?.onUpstreamWait)
    const runStop = runStopping(stop)
    const callChain = over.withBudget ? over.withBudget(budget, runStop) : runStop ? stoppedAt(over, runStop) : over
    const callDeps = { ...this.parts.deps, chain: callChain }
    return run(callDeps).catch((e: unknown) => {
      // a tracked head the upstream no longer knows (a reorg, a dev chain reverted): run once
      // more on `latest` resolved anew, never fail the request for it
      if (isEngineError(e) && blockUnknown(toEngineError(e)) && over.forgetHead?.()) return run(callDeps)
      throw e
    })
  }

  /**
   * Every failure leaves the engine as an EngineError (interface §2): a raw exception here is a
   * bug, reported as INTERNAL_ERROR with a generic message (the real one is logged, never sent:
   * it could carry an upstream URL).
   */
  async #guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (e) {
      if (isEngineError(e)) throw prunedAsBlockNotFound(toEngineError(e))
      const { rpcUrl, logger } = this.parts.opts
      const redact = (text: string | undefined) => (text && rpcUrl ? text.split(rpcUrl).join('[rpc url]') : text)
      const err = e instanceof Error ? { name: e.name, message: redact(e.message), stack: redact(e.stack) } : redact(String(e))
      logger?.error({ err }, 'engine: unexpected error')
      throw new EngineError('INTERNAL_ERROR', 'internal error while executing the request')
    }
  }
}

/** a stop that can end a run (a deadline or a signal; an observer alone stops nothing), or undefined */
function runStopping(stop: RunStop | undefined): RunStop | undefined {
  return stop !== undefined && (stop.deadline !== undefined || stop.signal !== undefined) ? stop : undefined
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
