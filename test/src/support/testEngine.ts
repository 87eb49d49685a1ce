/**
 * A small Engine for HTTP-layer tests, where the engine's answers do not matter (auth, CORS, rate
 * limits, envelopes, normalization): it records what the HTTP layer handed it and answers with
 * what the test sets. Endpoint results themselves are tested against the real engine elsewhere.
 */
import type { Engine, EngineHealth, SimulateParams, SimulationResult, StepTraceResult, TraceResult } from '../../../engine/types.js'

/** an operation as the test writes it: its arguments after the address */
type WithoutAt<F> = F extends (at: never, ...a: infer A) => infer R ? (...a: A) => R : F

export interface TestEngine extends Engine {
  /** every call, in order: the method, its arguments after the address, and the address */
  calls: { method: string; args: unknown[]; at?: unknown }[]
  last(method: string): unknown[] | undefined
  /** replaces one method's behaviour (given its arguments after the address) */
  answer<K extends keyof Engine>(method: K, impl: WithoutAt<Engine[K]>): void
  healthState: EngineHealth
  closed: boolean
}

export function successResult(params: SimulateParams, id = 'sim_00000000-0000-4000-8000-000000000001'): SimulationResult {
  return {
    simulationId: id,
    status: 'success',
    blockNumber: '0x1',
    gasUsed: `0x${(21000 * params.calls.length).toString(16)}`,
    calls: params.calls.map((_, i) => ({ callIndex: i, status: 'success', returnData: '0x', gasUsed: '0x5208', logs: [] })),
  }
}

export function createTestEngine(): TestEngine {
  const calls: TestEngine['calls'] = []
  const stored = new Map<string, SimulationResult>()
  const impl: Partial<Record<keyof Engine, unknown>> = {}
  const record =
    <K extends keyof Engine>(method: K, fallback: WithoutAt<Engine[K]>) =>
    (...withAt: unknown[]) => {
      // metrics and close take no address
      const [at, ...args] = method === 'metrics' || method === 'close' ? [undefined, ...withAt] : withAt
      calls.push({ method, args, at })
      const f = (impl[method] ?? fallback) as (...a: unknown[]) => unknown
      return f(...args)
    }

  const engine: TestEngine = {
    calls,
    closed: false,
    healthState: { network: 'devnet', chainId: 31337, upstreamOk: true, cacheOk: true },
    last: (method) => [...calls].reverse().find((c) => c.method === method)?.args,
    answer: (method, f) => {
      ;(impl as Record<string, unknown>)[method] = f
    },
    simulate: record('simulate', async (params: SimulateParams) => {
      const result = successResult(params, `sim_00000000-0000-4000-8000-${String(stored.size + 1).padStart(12, '0')}`)
      stored.set(result.simulationId, result)
      return result
    }) as unknown as Engine['simulate'],
    previewSignature: record('previewSignature', async () => {
      throw new Error('previewSignature: no answer given')
    }) as unknown as Engine['previewSignature'],
    simulateSteps: record(
      'simulateSteps',
      async (): Promise<StepTraceResult> => ({
        success: true,
        gasUsed: '0x5208',
        gasLimit: '0x2faf080',
        logs: [],
        returnValue: '0x',
        trace: { steps: [], storageChanges: {}, memoryChanges: [] },
      }),
    ) as unknown as Engine['simulateSteps'],
    getSimulation: record('getSimulation', async (id: string) => stored.get(id)) as unknown as Engine['getSimulation'],
    accessList: record('accessList', async () => ({ accessList: [], gasUsed: '0x5208' })) as unknown as Engine['accessList'],
    traceTransaction: record('traceTransaction', async (): Promise<TraceResult> => ({ callTracer: { type: 'CALL' } })) as unknown as Engine['traceTransaction'],
    traceCall: record('traceCall', async (): Promise<TraceResult> => ({ callTracer: { type: 'CALL' } })) as unknown as Engine['traceCall'],
    traceCallMany: record('traceCallMany', async (p: { bundles: { transactions: unknown[] }[] }) =>
      p.bundles.map((b) => b.transactions.map(() => ({ callTracer: { type: 'CALL' } }))),
    ) as unknown as Engine['traceCallMany'],
    simulateV1: record('simulateV1', async () => []) as unknown as Engine['simulateV1'],
    traceBlock: record('traceBlock', async () => []) as unknown as Engine['traceBlock'],
    call: record('call', async () => ({ status: 'success', returnData: '0x', gasUsed: '0x5208' })) as unknown as Engine['call'],
    estimateGas: record('estimateGas', async () => ({ gas: '0x5208' })) as unknown as Engine['estimateGas'],
    readChain: record('readChain', async (method: string) => (method === 'eth_chainId' ? '0x7a69' : null)) as unknown as Engine['readChain'],
    createFork: record('createFork', async () => {
      throw new Error('the test engine has no forks')
    }) as unknown as Engine['createFork'],
    getFork: record('getFork', async () => {
      throw new Error('the test engine has no forks')
    }) as unknown as Engine['getFork'],
    listForks: record('listForks', async () => []) as unknown as Engine['listForks'],
    deleteFork: record('deleteFork', async () => {}) as unknown as Engine['deleteFork'],
    registerSources: record('registerSources', async () => []) as unknown as Engine['registerSources'],
    listSources: record('listSources', async () => []) as unknown as Engine['listSources'],
    forkRpc: record('forkRpc', async () => {
      throw new Error('the test engine has no forks')
    }) as unknown as Engine['forkRpc'],
    health: record('health', async () => engine.healthState) as unknown as Engine['health'],
    metrics: record('metrics', async () => ({ forksOpen: 0 })) as unknown as Engine['metrics'],
    close: record('close', async () => {
      engine.closed = true
    }) as unknown as Engine['close'],
  }
  return engine
}
