/**
 * A request reaches the engine through typed calls an editor can follow: no Proxy around an
 * engine, no request-scoped globals (AsyncLocalStorage), no `as unknown as` hiding what is
 * called. What remains in src/, host/ and engine/ is listed here, each with why it is not on
 * the way from a route to an operation: a library's internals it must reach, or a VM detail.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) return sources(path)
    return name.endsWith('.ts') ? [path] : []
  })
}

/** what may stay, by file and construct, and why */
const ALLOWED: { file: string; construct: string; count: number; why: string }[] = [
  {
    file: 'src/middleware/clientIp.ts',
    construct: 'as unknown as',
    count: 1,
    why: "hono's getConnInfo is typed for its own Context, not one with this service's env",
  },
  {
    file: 'src/normalize/parseBody.ts',
    construct: 'as unknown as',
    count: 1,
    why: "zod's issue union read as the plain path-and-message shape the errors print",
  },
  {
    file: 'src/normalize/abis.ts',
    construct: 'as unknown as',
    count: 3,
    why: 'an ABI item checked by its `type` handed to viem, whose types do not narrow by it',
  },
  {
    file: 'host/metrics/serviceMetrics.ts',
    construct: 'as unknown as',
    count: 1,
    why: "prom-client's metric JSON has no exported type for its own getMetricsAsJSON",
  },
  { file: 'engine/platform/hardfork.ts', construct: 'as unknown as', count: 1, why: "ethereumjs' EVM keeps its supported hardforks on an untyped static" },
  {
    file: 'engine/platform/kzg.ts',
    construct: 'as unknown as',
    count: 1,
    why: "micro-eth-signer's KZG and ethereumjs' kzg interface differ only in their declared types",
  },
  {
    file: 'engine/decoding/decodeLogs.ts',
    construct: 'as unknown as',
    count: 1,
    why: "viem's encodeEventTopics generic cannot be instantiated from an ABI known only at run time",
  },
  {
    file: 'engine/execution/evmBlock.ts',
    construct: 'as unknown as',
    count: 1,
    why: 'the EVM reads a block only for its header and common: a full Block per run would cost a trie',
  },
  {
    file: 'engine/execution/executeTransaction.ts',
    construct: 'as unknown as',
    count: 1,
    why: "ethereumjs' EVM events are typed without the resolve callback it passes",
  },
  { file: 'engine/execution/evmTables.ts', construct: 'as unknown as', count: 1, why: "ethereumjs' EVM prototype internals the opcode tables are built from" },
  { file: 'engine/execution/preparedCommon.ts', construct: 'as unknown as', count: 1, why: "ethereumjs' Common keeps its parameter cache private" },
  {
    file: 'engine/execution/leanStepHook.ts',
    construct: 'as unknown as',
    count: 2,
    why: "the interpreter's step hook: ethereumjs' own (patched) step object and its awaited hook",
  },
  {
    file: 'engine/execution/senderAsEoa.ts',
    construct: 'new Proxy',
    count: 1,
    why: "a state manager seen by ethereumjs' runTx with the sender's code hidden until execution starts (geth skips EIP-3607 for calls)",
  },
]

const CONSTRUCTS = ['new Proxy', 'AsyncLocalStorage', 'as unknown as']

/** a construct's occurrences in code, comments left out */
function occurrences(text: string, construct: string): number {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
  return code.split(construct).length - 1
}

describe('the way from a route to an operation', () => {
  const found = ['src', 'host', 'engine'].flatMap(sources).flatMap((file) => {
    const text = readFileSync(join(root, file), 'utf8')
    return CONSTRUCTS.map((construct) => ({ file: relative(root, join(root, file)), construct, count: occurrences(text, construct) })).filter(
      (f) => f.count > 0,
    )
  })

  it('reads the sources (the check is not vacuous)', () => {
    expect(found.length).toBeGreaterThan(5)
    expect(occurrences('const p = new Proxy(x, {}) // new Proxy', 'new Proxy')).toBe(1)
  })

  it('holds no Proxy, request-scoped global or double cast but the ones listed with their reasons', () => {
    const unlisted = found.filter((f) => !ALLOWED.some((a) => a.file === f.file && a.construct === f.construct && a.count === f.count))
    expect(unlisted.map((f) => `${f.file}: ${f.construct} ×${f.count}`)).toEqual([])
  })

  it('lists nothing that is gone', () => {
    const stale = ALLOWED.filter((a) => !found.some((f) => f.file === a.file && f.construct === a.construct))
    expect(stale.map((a) => `${a.file}: ${a.construct}`)).toEqual([])
  })

  it('keeps request routing out of the list: nothing in src/ or host/ but library boundaries', () => {
    expect(
      ALLOWED.filter(
        (a) => a.file.startsWith('host/workers/') || a.file.startsWith('host/chains') || a.file.startsWith('src/routes/') || a.file.startsWith('src/rpc/'),
      ),
    ).toEqual([])
  })
})
