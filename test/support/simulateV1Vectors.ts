/**
 * execution-apis' eth_simulateV1 vectors (tests/eth_simulateV1/*.io: one `>>` request line, one
 * `<<` answer line, recorded by geth on the hive test chain) run against an engine booted on that
 * chain: the embedded devnet from the checkout's tests/genesis.json and tests/chain.rlp. Shared
 * by scripts/simulateV1Vectors.ts (all of them, a count) and the optional vector test (a few).
 *
 * The comparison is field for field with nothing masked; an expected error is compared by its
 * code and message. One rule of geth's changed after the vectors were recorded, and is applied to
 * their answers here (`withFreedLogIndices`): a reverted frame's log indices are freed.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { createEngine, type Engine } from '../../engine/index.js'
import { ON_CHAIN } from '../../engine/types.js'
import { simulateV1Methods } from '../../src/rpc/methods/simulateV1.js'
import { toRpcErrorObject } from '../../src/rpc/engineErrors.js'

export interface Vector {
  name: string
  params: unknown[]
  want: { result?: unknown; error?: { code: number; message: string } }
}

/** the vectors of a checkout, by file name, and an engine on the hive chain to run them on */
export async function vectorsIn(root: string): Promise<{ engine: Engine; vectors: Vector[] }> {
  const dir = join(root, 'tests/eth_simulateV1')
  const vectors = readdirSync(dir)
    .filter((f) => f.endsWith('.io'))
    .sort()
    .map((name) => {
      const lines = readFileSync(join(dir, name), 'utf8').split('\n')
      const req = JSON.parse(lines.find((l) => l.startsWith('>>'))!.slice(3)) as { params: unknown[] }
      return { name, params: req.params, want: JSON.parse(lines.find((l) => l.startsWith('<<'))!.slice(3)) as Vector['want'] }
    })
  const engine = await createEngine({
    devnetImport: {
      genesis: JSON.parse(readFileSync(join(root, 'tests/genesis.json'), 'utf8')),
      blocks: readFileSync(join(root, 'tests/chain.rlp')),
    },
    cache: createMemoryCacheStore(),
    // geth's default RPC gas cap, which the vectors were recorded with
    gasCap: 50_000_000n,
    rpcTimeoutMs: 10_000,
    maxStructLogSteps: 100_000,
    simulationTtlSeconds: 60,
  })
  return { engine, vectors }
}

/** the differences between geth's answer and ours, one line each (none: the vector passes) */
export async function runVector(engine: Engine, vector: Vector, opts: { width?: number } = {}): Promise<string[]> {
  let got: { result?: unknown; error?: { code: number; message: string } }
  try {
    got = { result: await simulateV1Methods.eth_simulateV1!(vector.params, { engine, at: ON_CHAIN } as never) }
  } catch (e) {
    // as the endpoint answers it (src/rpc/dispatch.ts)
    got = { error: toRpcErrorObject(e).error }
  }
  const want = { ...vector.want, ...(vector.want.result !== undefined && { result: withFreedLogIndices(vector.want.result) }) }
  return want.error
    ? differences({ code: want.error.code, message: want.error.message }, got.error ?? { result: 'no error' }, '', opts.width ?? 160)
    : differences(want.result, got.result ?? got, '', opts.width ?? 160)
}

function differences(a: unknown, b: unknown, path: string, width: number): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return []
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)])
    return [...keys].flatMap((k) => differences((a as never)[k], (b as never)[k], `${path}.${k}`, width))
  }
  return [`${path}: geth ${JSON.stringify(a)?.slice(0, width)} ours ${JSON.stringify(b)?.slice(0, width)}`]
}

/**
 * The vectors were recorded by a geth whose eth_simulateV1 log tracer left a reverted frame's log
 * indices used (ethSimulate-use-as-many-features-as-possible: a transfer after six failed calls is
 * log 6). geth's current tracer frees them (internal/ethapi/logtracer.go, `onExit`/`onEnd`: "They
 * are the latest logs, so their indices are free again", `t.count -= len(call)`), so a block's
 * surviving logs are numbered 0, 1, 2, … in order: the expected `logIndex` fields are renumbered
 * so. Nothing else in the answer changes (a receipt's logs carry no index).
 */
export function withFreedLogIndices(result: unknown): unknown {
  if (!Array.isArray(result)) return result
  return result.map((block: { calls?: { logs?: { logIndex: string }[] }[] }) => {
    let index = 0
    if (!block?.calls) return block
    return { ...block, calls: block.calls.map((c) => (c.logs ? { ...c, logs: c.logs.map((l) => ({ ...l, logIndex: `0x${(index++).toString(16)}` })) } : c)) }
  })
}
